// What SQLite keeps of a deleted row until told otherwise: the row's bytes stay
// on its page, or on a free page, in the database file, and every earlier
// version of a page stays in the write-ahead log until a checkpoint. An erasing
// call runs with secure_delete on (deletes overwrite with zeros; the store's own
// connections have it on always), then rebuilds the file (VACUUM), which is what
// removes the copies secure_delete cannot reach: those that SQLite's page
// rebuilds leave in a page's unused space, and those a connection without it
// left (a file of an earlier release, your own client before its first erasing
// call). With `sqliteVacuum: 'bulk-jobs'` only the bulk jobs rebuild; a single
// session's delete or prune then only checkpoints the log into the file and
// truncates it. The VACUUM runs off the event loop (vacuum-worker.ts). Another
// connection's open read holds a checkpoint back: the store waits for it on
// timers, a bounded time, then says what is left.
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreBusyError } from '../../store.errors.js';
import { rebuildAfterNow } from './vacuum-worker.js';
import type { ClientQuery, Erasure } from '../provider-kit.js';

/** How long an erasing call waits for other connections' reads to let its VACUUM and checkpoint finish. */
export const ERASURE_CHECKPOINT_WAIT_MS = 5_000;

export const sqliteErasure: Erasure = {
  async before(query) {
    await query('PRAGMA secure_delete = ON');
  },

  async after(query, rebuild) {
    // Waits happen on timers, never in SQLite's busy handler, which sleeps inside the call
    // (Prisma's stock adapter runs with busy_timeout 5000; the store's own, 0).
    const [setting] = await query('PRAGMA busy_timeout');
    const timeout = Number(Object.values(setting ?? {})[0] ?? 0);
    if (timeout !== 0) await query('PRAGMA busy_timeout = 0');
    try {
      const deadline = Date.now() + ERASURE_CHECKPOINT_WAIT_MS;
      const path = rebuild ? await fileOf(query) : undefined;
      if (path) await untilFree(deadline, async () => (await rebuildAfterNow(path)) === 'done');
      else await untilFree(deadline, async () => Number((await query('PRAGMA wal_checkpoint(TRUNCATE)'))[0]?.busy) === 0);
    } finally {
      if (timeout !== 0) await query(`PRAGMA busy_timeout = ${timeout}`);
    }
  },
};

/** The file of the connection's main database; undefined for one in memory. */
async function fileOf(query: ClientQuery): Promise<string | undefined> {
  const main = (await query('PRAGMA database_list')).find((row) => row.name === 'main');
  return typeof main?.file === 'string' && main.file !== '' ? main.file : undefined;
}

/** Runs `attempt` until it succeeds, pausing on timers between tries, until `deadline`. */
async function untilFree(deadline: number, attempt: () => Promise<boolean>): Promise<void> {
  for (let pause = 1; !(await attempt()); pause = Math.min(pause * 2, 100)) {
    if (Date.now() + pause > deadline) {
      throw new StoreBusyError(
        `the erased rows are deleted, but their bytes stay in the SQLite file and its write-ahead log until it is rebuilt and checkpointed, which another connection ` +
          `held back for ${ERASURE_CHECKPOINT_WAIT_MS / 1000} s: end its open read (another process's open transaction or statement, or a backup tool's) or wait for its write, then run the same call again, ` +
          'which deletes nothing more and finishes',
      );
    }
    await sleep(pause);
  }
}
