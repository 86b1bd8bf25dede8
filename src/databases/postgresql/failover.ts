// One database through several PostgreSQL servers, tried in order: a primary and
// the standbys an operator may promote. The store's calls take their connections
// from the server they last got one from, and move on to the next server when that
// one cannot be reached or takes no writes, as libpq's target_session_attrs=read-write
// does: each new connection asks its server once whether it is in recovery or its
// transactions read-only (default_transaction_read_only, as some switchover tooling sets). After a
// promotion the calls write on the new primary; an old primary that came back as a
// standby is passed over. Promoting a standby, and fencing an old primary that came
// back as a primary, are the operator's: the store only follows.
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { redactText, redactUrl } from '../../values/redact.js';
import { StoreConfigurationError } from '../../store.errors.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE']);
// Admin shutdown, crash shutdown, cannot connect now (starting up, shutting down, recovering after a crash), and the
// connection exceptions of class 08 but its protocol violation (08P01), which is no server's absence.
const SERVER_GONE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
// node-postgres's words for a connection that went away or never came (its connection timeout among them), or for a
// server that did not answer a new connection's check in time.
const CONNECTION_LOST = /^Connection terminated|is not queryable|^Query read timeout$/;
// pg-pool's, when none of a server's connections came free within its connection timeout: the server may be busy,
// or gone without closing them (a host down, a network partition), each held by a query that waits for the
// operating system to give its connection up. Either way the next server is tried, and the call fails with this
// when none takes writes, as it would without failover.
const NO_FREE_CONNECTION = /^timeout exceeded when trying to connect$/;

/** No server of a failover list takes writes: each one could not be reached, is a standby or is read-only. */
export class NoPrimaryError extends Error {
  override name = 'NoPrimaryError';
}

/** Thrown by a new connection's check when its server takes no writes (`message` says why): the connection is closed and the next server tried. */
class StandbyServer extends Error {}

/** Whether `error` (or its cause) says the server cannot be reached or is going away, rather than that it refused the store or failed a statement. */
export function isUnreachable(error: unknown): boolean {
  for (
    let each = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    each && depth < 4;
    each = each.cause as typeof each, depth++
  ) {
    if (UNREACHABLE.has(String(each.code)) || SERVER_GONE.has(String(each.code)) || CONNECTION_LOST.test(String(each.message))) return true;
  }
  return false;
}

/** A new connection's check, answered within `timeoutMs` (the pool's connection timeout ends before it), that its server takes writes. */
const refusingStandby =
  (timeoutMs: number | undefined) =>
  async (client: pg.ClientBase): Promise<void> => {
    // node-postgres's timeout of one query, which its typings leave out.
    const check = {
      text: "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only",
      query_timeout: timeoutMs,
    } as pg.QueryConfig;
    const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(check);
    if (rows[0]?.standby !== false) throw new StandbyServer('is a standby (in recovery)');
    if (rows[0].read_only) throw new StandbyServer('takes no writes (transaction_read_only is on)');
  };

// The driver's callback form (its last overload), which its own `query` calls.
type ConnectCallback = Parameters<pg.Pool['connect']>[0];

/**
 * A pool over one pool per url (the first preferred), each `config`'s, of the driver's own Pool class: Prisma's pg
 * adapter takes a pool from outside only when it is one. Its `query` is the driver's, on a connection from `connect`.
 */
function failingOver(Pool: typeof pg.Pool, urls: string[], config: pg.PoolConfig): pg.Pool {
  class FailoverPool extends Pool {
    readonly #servers = urls.map((url) => new Pool({ ...config, connectionString: url, onConnect: refusingStandby(config.connectionTimeoutMillis) }));
    #current = 0;

    constructor() {
      super({ ...config, connectionString: urls[0] });
      // An idle connection's failure, which the adapter listens for (unheard, it would throw).
      for (const server of this.#servers) server.on('error', (error, client) => this.emit('error', error, client));
    }

    override connect(): Promise<pg.PoolClient>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
      const connecting = this.#connect();
      if (!callback) return connecting;
      connecting.then(
        (client) => callback(undefined, client, client.release),
        (error: Error) => callback(error, undefined, () => undefined),
      );
    }

    async #connect(): Promise<pg.PoolClient> {
      const passed: string[] = [];
      let busy: unknown;
      let failure: unknown;
      for (let tried = 0; tried < urls.length; tried++) {
        const server = (this.#current + tried) % urls.length;
        try {
          const client = await this.#servers[server].connect();
          this.#current = server;
          return client;
        } catch (error) {
          if (NO_FREE_CONNECTION.test(String((error as Error)?.message))) {
            busy ??= error;
            continue;
          }
          if (!(error instanceof StandbyServer) && !isUnreachable(error)) throw error;
          failure = error;
          passed.push(
            `${redactUrl(urls[server])} ${error instanceof StandbyServer ? error.message : `cannot be reached (${redactText(String((error as Error).message))})`}`,
          );
        }
      }
      if (busy) throw busy;
      throw new NoPrimaryError(`no PostgreSQL server takes writes: ${passed.join('; ')}`, { cause: failure });
    }

    override async end(): Promise<void> {
      await Promise.all(this.#servers.map((server) => server.end()));
    }
  }
  return new FailoverPool();
}

/**
 * An adapter factory of Prisma's pg adapter whose every connect makes a pool over `urls` (see failingOver),
 * which the adapter ends on dispose.
 */
export function failoverAdapterFactory(
  Adapter: typeof PrismaPg,
  Pool: typeof pg.Pool,
  urls: string[],
  config: pg.PoolConfig,
  options: NonNullable<ConstructorParameters<typeof PrismaPg>[1]>,
): SqlDriverAdapterFactory {
  // Only its names: it never connects.
  const { provider, adapterName } = new Adapter(config);
  return {
    provider,
    adapterName,
    async connect() {
      const pool = failingOver(Pool, urls, config);
      const adapter = await new Adapter(pool, { ...options, disposeExternalPool: true }).connect();
      // An adapter loading another copy of pg would have taken the pool for a configuration, and connected elsewhere.
      if (adapter.underlyingDriver() !== pool) {
        await adapter.dispose();
        throw new StoreConfigurationError(
          'StoreModule option "failover" needs @prisma/adapter-pg to load the same pg package as the application: deduplicate pg (npm dedupe pg)',
        );
      }
      return adapter;
    },
  };
}
