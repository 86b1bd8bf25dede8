// MySQL's REPEATABLE READ in an application's transaction (often the server's
// default, which `@Transactional()` inherits): the reads after the thread's lock
// see the snapshot of the transaction's first plain read, which may be older
// than the lock. Before a log write, the thread's row as locked (the latest) and
// as that snapshot holds it must agree, or the write is a StoreBusyError.
import { StoreBusyError } from '../../store.errors.js';

/** The check's three statements, on Prisma's transaction client (host-append.ts runs the same check, pipelined, on the connection). */
export interface ThreadRowReads {
  /** Locks the row (creating it when missing, as the store's upsert does, gap locks included) without changing it or taking a snapshot. */
  lockUnchanged(threadId: string, now: Date): Promise<void>;
  /** The row's last_seq: as locked (`locking`), or as the transaction's snapshot holds it. */
  lastSeq(threadId: string, locking: boolean): Promise<number | undefined>;
}

/**
 * The lock comes first and takes no snapshot: an upsert that changes nothing leaves no version of
 * ours to read, so the plain read after it sees the snapshot (taken now, if the transaction had none).
 */
export async function assertSnapshotCurrent(reads: ThreadRowReads, threadId: string, now: Date): Promise<void> {
  await reads.lockUnchanged(threadId, now);
  const locked = await reads.lastSeq(threadId, true);
  if ((await reads.lastSeq(threadId, false)) !== locked) {
    throw new StoreBusyError(
      `session ${threadId} was written after your transaction's snapshot was taken (REPEATABLE READ): the store wrote nothing. ` +
        'Run transactions that call the store at READ COMMITTED, or run this one again',
    );
  }
}
