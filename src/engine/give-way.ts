// Gives the event loop a turn by elapsed time. better-sqlite3 runs each statement
// synchronously and a settled promise's continuation runs before any timer or
// socket, so a loop of awaited store calls, or a long job, would hold the process
// until it ends. Each call here is cheap (a clock read); once SLICE_MS have passed
// since the turn began, it waits for the loop to come round (setImmediate, after
// timers and I/O), so nothing else in the process waits much longer than a slice
// and one statement.
import { performance } from 'node:perf_hooks';
import type { Run } from './adapter-statement.js';

/** How long store work runs before the rest of the process gets a turn. */
export const SLICE_MS = 5;

/** When this turn's store work began, if it is still this turn (a check of `turned` is pending). */
let began: number | undefined;

const turned = () => {
  began = undefined;
};

/**
 * Undefined when the slice has time left; else a promise that settles once the
 * event loop has turned. Callers await it only when given one, so the common case
 * adds no await.
 */
export function giveWay(): Promise<void> | undefined {
  const now = performance.now();
  if (began === undefined) {
    // The first store work since the loop turned: the slice starts now, and ends when the loop turns.
    began = now;
    setImmediate(turned);
    return undefined;
  }
  if (now - began < SLICE_MS) return undefined;
  return new Promise((resolve) => setImmediate(resolve));
}

/** `run`, the event loop given its turn (above) before each statement: a long job's statements on SQLite's synchronous driver would hold the process to its end. */
export const givingWay =
  (run: Run): Run =>
  async (text, args) => {
    const turn = giveWay();
    if (turn) await turn;
    return run(text, args);
  };
