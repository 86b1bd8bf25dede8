// Waiting for another connection's lock without blocking the event loop.
//
// SQLite waits for a lock in a busy handler that sleeps inside the call, and
// better-sqlite3's calls are synchronous: a statement that meets another
// process's write lock would stop the whole process, every request in it, for
// up to the busy timeout. The store's connections run with busy_timeout = 0, so
// SQLite answers SQLITE_BUSY at once, and the wait happens here, on timers.
import { adapterFailureOf } from '../../engine/db-errors.js';

/** The pauses of SQLite's own busy handler (sqliteDefaultBusyCallback), in ms; the last one repeats. */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/**
 * Another connection holds a lock, as better-sqlite3 throws it or Prisma's
 * adapter reports it. A stale snapshot (SQLITE_BUSY_SNAPSHOT) is left out:
 * the same statement would meet it again, only the whole transaction can go on.
 */
export function isBusy(error: unknown): boolean {
  const code = adapterFailureOf(error)?.originalCode ?? (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY') && code !== 'SQLITE_BUSY_SNAPSHOT';
}

/**
 * Runs `attempt` again, after a pause, while it fails with SQLITE_BUSY and
 * less than `timeoutMs` has passed; then the last failure stands. `attempt`
 * must change nothing when it is refused: one statement, or a transaction that
 * rolls back on a throw.
 */
export async function whenNotBusy<T>(attempt: () => T | Promise<T>, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const waited = Date.now() - started;
      if (!isBusy(error) || waited >= timeoutMs) throw error;
      const pause = Math.min(PAUSES_MS[Math.min(tries, PAUSES_MS.length - 1)], timeoutMs - waited);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
