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
// truncates it. Both run on a connection of their own in a worker thread
// (vacuum-worker.ts), so no connection of the process waits in SQLite's busy
// handler. Another connection's open read holds a checkpoint back: the store
// waits for it on timers, a bounded time, then says what is left.
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreBusyError, StoreDatabaseError } from '../../store.errors.js';
import { finishedAfterNow } from './vacuum-worker.js';
import type { ClientQuery, Erasure } from '../../engine/provider-kit.js';

/** How long an erasing call waits for other connections to let its rebuild and checkpoint finish. */
export const ERASURE_CHECKPOINT_WAIT_MS = 5_000;

/** Files whose erasing call failed to finish, and since when: the next erasing call finishes them, even one that deletes nothing. */
const unfinished = new Map<string, number>();

const LEFT = 'the erased rows are deleted, but their bytes stay in the SQLite file and its write-ahead log until it is rebuilt and checkpointed';

export const sqliteErasure: Erasure = {
  async before(query) {
    await query('PRAGMA secure_delete = ON');
  },

  async after(query, { rebuild, erased }) {
    const path = await fileOf(query);
    if (!path || (!erased && !unfinished.has(path))) return;
    const since = performance.now();
    try {
      await finish(path, rebuild);
    } catch (error) {
      unfinished.set(path, Math.min(unfinished.get(path) ?? since, since));
      throw error;
    }
  },
};

/** Rebuilds (or only checkpoints) `path` until done, pausing on timers between tries, for up to ERASURE_CHECKPOINT_WAIT_MS. */
async function finish(path: string, rebuild: boolean): Promise<void> {
  const started = performance.now();
  let vacuum = rebuild;
  for (let pause = 1; ; pause = Math.min(pause * 2, 100)) {
    const outcome = await finishedAfterNow(path, vacuum).catch((error: Error) => {
      throw new StoreDatabaseError(
        `${LEFT}, which failed: ${error.message}. Fix that (a rebuild needs free disk space up to the file's size), then run the same call again, or any bulk job`,
        { cause: error },
      );
    });
    if (outcome.done) {
      // Every call that failed before this job started is finished by it.
      if ((unfinished.get(path) ?? Infinity) < outcome.startedAt) unfinished.delete(path);
      return;
    }
    // Once rebuilt, only the checkpoint is left to finish: the rebuild is not run again.
    if (outcome.vacuumed) vacuum = false;
    const waited = performance.now() - started;
    if (waited + pause > ERASURE_CHECKPOINT_WAIT_MS) {
      throw new StoreBusyError(
        `${LEFT}, which another connection held back for ${(waited / 1000).toFixed(1)} s: end its open read (another process's open transaction or statement, or a backup tool's) ` +
          'or wait for its write, then run the same call again (or any bulk job), which deletes nothing more and finishes',
      );
    }
    await sleep(pause);
  }
}

/** The file of the connection's main database; undefined for one in memory. */
async function fileOf(query: ClientQuery): Promise<string | undefined> {
  const main = (await query('PRAGMA database_list')).find((row) => row.name === 'main');
  return typeof main?.file === 'string' && main.file !== '' ? main.file : undefined;
}
