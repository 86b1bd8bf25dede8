// What SQLite keeps of a deleted row until told otherwise: the row's bytes stay
// on its page, or on a free page, in the database file, and every earlier
// version of a page stays in the write-ahead log until a checkpoint. An erasing
// job runs with secure_delete on (deletes overwrite with zeros; the store's own
// connections have it on always), then checkpoints the log into the file and
// truncates it. Another connection's open read holds a checkpoint back: the
// store waits for it on timers, a bounded time, then says what is left.
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreBusyError } from '../../store.errors.js';
import type { Erasure } from '../provider-kit.js';

/** How long an erasing job waits for other connections' reads to let its checkpoint finish. */
export const ERASURE_CHECKPOINT_WAIT_MS = 5_000;

export const sqliteErasure: Erasure = {
  async before(query) {
    await query('PRAGMA secure_delete = ON');
  },

  async after(query) {
    const deadline = Date.now() + ERASURE_CHECKPOINT_WAIT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, 100)) {
      const [result] = await query('PRAGMA wal_checkpoint(TRUNCATE)');
      if (Number(result?.busy) === 0) return;
      if (Date.now() + pause > deadline) {
        throw new StoreBusyError(
          `the erased rows are deleted, but their bytes stay in the SQLite file's write-ahead log until it is checkpointed, which another connection's open read ` +
            `held back for ${ERASURE_CHECKPOINT_WAIT_MS / 1000} s: end that read (another process's open transaction or statement), then run the same call again, ` +
            'which deletes nothing more and checkpoints',
        );
      }
      await sleep(pause);
    }
  },
};
