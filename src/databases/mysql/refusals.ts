// The MariaDB pool retries a connection that the server refuses until
// acquireTimeout, then fails the call with "pool timeout" (and an unknown
// database it does not even report before then); PostgreSQL's pool fails it
// at once with the server's reason. Here the calls that wait on an empty pool
// fail as soon as a refusal is known: from the pool's own report (a refused
// password, at once), or from a connection of our own that asks the server
// when calls have waited ASK_EVERY_MS on an empty pool (an unknown database).
// A healthy pool, whose calls get a connection sooner, is never asked about.
import type { Connection, Pool } from 'mariadb';
import { onPoolError, takingThrough, waitingCalls } from './mariadb-pool.js';

/**
 * Logins the server refuses, where waiting will not help: access denied to the database (1044), to the user (1045, 1698
 * without a password), unknown database (1049), a host blocked after too many connection errors (1129, until FLUSH HOSTS)
 * or not allowed (1130), an expired password (1862), a locked account (MariaDB 4151, MySQL 3118).
 */
export const REFUSALS: ReadonlySet<number> = new Set([1044, 1045, 1049, 1129, 1130, 1698, 1862, 3118, 4151]);

/** How often the calls that wait on an empty pool ask the server whether it refuses them: longer than a healthy pool takes to open its first connection. */
const ASK_EVERY_MS = 250;

const errnoOf = (error: unknown) => (error as { errno?: unknown } | undefined)?.errno as number;
/** The server's refusal in a pool 'error' event (a pool error whose cause is the server's). */
const refusalIn = (error: unknown) => [error, (error as { cause?: unknown })?.cause].find((each) => REFUSALS.has(errnoOf(each)));

/**
 * `pool`, whose calls that wait for a connection fail with the server's refusal
 * as soon as one is known while the pool has no connection left (a busy pool's
 * calls may still get one that is released). `connect()` opens a connection
 * with the pool's options. A call failed so is never run: the connection the
 * pool hands it later goes straight back.
 */
export function refusingAtOnce(pool: Pool, connect: () => Promise<Connection>): Pool {
  // Each call that waits for a connection, failed with the refusal once one is known.
  let watch = () => undefined as void;
  const calls = waitingCalls(pool, () => watch());
  const refuseWaiting = (refusal: unknown) => {
    if (refusal !== undefined) calls.failWaiting(refusal);
  };

  // One question at a time, its answer shared: the refusal, or undefined (let in, or no answer: the pool's timeout tells).
  let asking: Promise<unknown> | undefined;
  const ask = () => {
    asking ??= connect()
      .then(
        (connection) => void connection.end().catch(() => undefined),
        (error: unknown) => (REFUSALS.has(errnoOf(error)) ? error : undefined),
      )
      .finally(() => (asking = undefined));
    return asking.then(refuseWaiting);
  };

  // The pool reports each connection it failed to open, a refused password at once.
  onPoolError(pool, (error) => refuseWaiting(refusalIn(error)));
  // An unknown database it reports only when it gives up: while calls wait on an empty pool, ask.
  let watching: NodeJS.Timeout | undefined;
  watch = () => {
    watching ??= setTimeout(() => {
      watching = undefined;
      if (calls.count() === 0) return;
      if (pool.totalConnections() === 0) void ask();
      watch();
    }, ASK_EVERY_MS).unref();
  };

  return takingThrough(pool, calls.getConnection);
}
