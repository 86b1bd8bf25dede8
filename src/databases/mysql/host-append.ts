// An append in the application's transaction on MySQL and MariaDB: five
// statements in two round trips, where one after another took seven.
//   1. SAVEPOINT; lock the thread's row, changing nothing; read its count as the
//      transaction's snapshot holds it (see snapshot-check.ts).
//   2. When the locked count and the snapshot's agree: bump the count; INSERT the
//      messages (a long batch's further INSERTs one after another).
// The statements of a round trip are pipelined: the connector sends them without
// waiting for each reply, and the server runs them in order. A failure rolls back
// to the savepoint, leaving the transaction as it found it. The savepoint is never
// released: the store's calls in a transaction run one after another, and setting
// it again moves it (MySQL and MariaDB keep one savepoint per name).
import { assertSeqInRange } from '../../engine/tables/message-rows.js';
import type { Message } from '../../message.types.js';
import { StoreBusyError, StoreNotFoundError } from '../../store.errors.js';
import { BrokenHostTransaction } from '../../engine/adapter-statement.js';
import { messageInserts } from '../../engine/portable-sql.js';
import type { Query } from './mariadb-pool.js';
import { SQL } from './sql.js';

/**
 * Appends `messages` in the transaction whose connection `query` runs on; the last seq handed out,
 * or null when scoped and the thread is not the tenant's (nothing written).
 */
export async function appendInHost(query: Query, threadId: string, messages: Message[], now: Date, tenantId: string | undefined): Promise<number | null> {
  const [opened, counted] = await Promise.allSettled([query(SQL.savepoint, []), checkedCount(query, threadId, now, tenantId)]);
  // The lock ran without the savepoint: a row it created cannot be undone.
  if (opened.status === 'rejected') throw broken('a store write in your transaction could not open its savepoint', opened.reason);
  try {
    if (counted.status === 'rejected') throw counted.reason;
    const count = counted.value;
    if (count === null) return null;
    const last = count + messages.length;
    assertSeqInRange(threadId, last);
    // Only the bump and the first INSERT pipelined: after a deadlock (the transaction gone), a statement already sent would commit on its own.
    const [first, ...rest] = messageInserts(threadId, count + 1, messages);
    await Promise.all([query(SQL.setCount, [last, now, threadId]), query(first.text, first.args)]);
    for (const { text, args } of rest) await query(text, args);
    return last;
  } catch (error) {
    await query(SQL.rollbackToSavepoint, []).catch((failure: unknown) => {
      const why = broken('a store write in your transaction could not be undone', failure);
      throw new BrokenHostTransaction(why.message, error);
    });
    throw error;
  }
}

/** The transaction can no longer take the store's statements; `failure` says why, unless it already says so. */
const broken = (message: string, failure: unknown) => (failure instanceof BrokenHostTransaction ? failure : new BrokenHostTransaction(message, failure));

/** The thread's count, its row locked, checked against the snapshot; null when scoped and it is not the tenant's. */
async function checkedCount(query: Query, threadId: string, now: Date, tenantId: string | undefined): Promise<number | null> {
  const [count, snapshot] = await Promise.all([lockedCount(query, threadId, now, tenantId), query(SQL.lastSeq(false), [threadId])]);
  if (count !== null && (snapshot.length === 0 || Number(snapshot[0][0]) !== count)) {
    throw new StoreBusyError(
      `session ${threadId} was written after your transaction's snapshot was taken (REPEATABLE READ): the store wrote nothing. ` +
        'Run transactions that call the store at READ COMMITTED, or run this one again',
    );
  }
  return count;
}

async function lockedCount(query: Query, threadId: string, now: Date, tenantId: string | undefined): Promise<number | null> {
  if (tenantId !== undefined) {
    const [row] = await query(SQL.lockTenantsThread, [threadId, tenantId]);
    return row === undefined ? null : Number(row[0]);
  }
  const { insertId, affectedRows } = await query(SQL.lockAndCount, [threadId, now, now, threadId]);
  if (affectedRows === 0 && Number(insertId ?? 0) === 0) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
  return Math.max(Number(insertId ?? 0) - 1, 0);
}
