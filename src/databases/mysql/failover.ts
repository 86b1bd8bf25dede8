// One database through several servers (a Galera cluster's nodes), tried in
// order: the store's calls take their connections from the node they last got
// one from, and move on to the next node when that one is not there. A node is
// not there when its pool has no connection left and fails to open one for a
// reason of the network (refused, reset, unreachable, timed out), seen at once
// from the pool's 'error' events rather than after its acquire timeout.
import type { EventEmitter } from 'node:events';
import type { Pool, PoolConnection } from 'mariadb';
import { onPoolError, takingThrough, waitingCalls } from './mariadb-pool.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);
// The connector's: socket timeout, connection closed, connection timeout.
const UNREACHABLE_ERRNOS = new Set([45001, 45009, 45012, 45026, 45028]);

/** Whether `error` (or its cause) says the server cannot be reached, rather than that it refused or failed a statement. */
export function isUnreachable(error: unknown): boolean {
  for (
    let each = error as { code?: unknown; errno?: unknown; cause?: unknown } | undefined, depth = 0;
    each && depth < 4;
    each = each.cause as typeof each, depth++
  ) {
    if (UNREACHABLE.has(String(each.code)) || UNREACHABLE_ERRNOS.has(Number(each.errno))) return true;
  }
  return false;
}

/** Connections from `pool`: each call gets one, or fails with the first failure to reach the server seen while the pool has no connection at all. */
function connectionsFrom(pool: Pool): () => Promise<PoolConnection> {
  const calls = waitingCalls(pool);
  onPoolError(pool, (error) => {
    if (isUnreachable(error)) calls.failWaiting(error);
  });
  return calls.getConnection;
}

/** One pool over the pools of `nodes` (the first preferred), moving to the next node when one cannot be reached. */
export function failingOver(nodes: Pool[]): Pool {
  let current = 0;
  const fromNode = nodes.map(connectionsFrom);
  const getConnection = async (): Promise<PoolConnection> => {
    let failure: unknown;
    for (let tried = 0; tried < nodes.length; tried++) {
      const node = (current + tried) % nodes.length;
      try {
        const connection = await fromNode[node]();
        current = node;
        return connection;
      } catch (error) {
        if (!isUnreachable(error)) throw error;
        failure = error;
      }
    }
    throw failure;
  };
  const sum = (count: (pool: Pool) => number) => () => nodes.reduce((total, pool) => total + count(pool), 0);
  const whole: Record<PropertyKey, unknown> = {
    end: async () => void (await Promise.all(nodes.map((pool) => pool.end()))),
    totalConnections: sum((pool) => pool.totalConnections()),
    activeConnections: sum((pool) => pool.activeConnections()),
    idleConnections: sum((pool) => pool.idleConnections()),
    on(event: string, listener: (...args: unknown[]) => void) {
      for (const pool of nodes) (pool as unknown as EventEmitter).on(event, listener);
      return this;
    },
  };
  const taking = takingThrough(nodes[0], getConnection);
  return new Proxy(taking, {
    get: (target, key) => (Object.hasOwn(whole, key) ? whole[key] : Reflect.get(target, key)),
  });
}
