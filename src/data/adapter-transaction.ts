// Statements and transactions straight on a driver adapter; a transaction is
// closed the way Prisma's own transaction manager closes one (COMMIT and
// ROLLBACK sent, or left to the adapter).
import type { ArgType, SqlDriverAdapter, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

export type Arg = string | number | Date | null;

const argType = (arg: Arg): ArgType => ({ scalarType: arg instanceof Date ? 'datetime' : typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' });

/** A statement for the adapter: each argument typed from its value, as the adapters expect. */
export const sql = (text: string, args: Arg[]): SqlQuery => ({ sql: text, args, argTypes: args.map(argType) });

/**
 * Runs `work` in a transaction of the adapter and commits it, or rolls it back
 * when `work` throws or returns null (nothing to keep). COMMIT and ROLLBACK are
 * sent as Prisma's own transaction manager sends them.
 */
export async function inTransaction<T>(adapter: SqlDriverAdapter, work: (tx: Transaction) => Promise<T | null>): Promise<T | null> {
  const tx = await adapter.startTransaction();
  let result: T | null;
  try {
    result = await work(tx);
  } catch (error) {
    // The work's error is the one to report; a failed ROLLBACK still returns the connection.
    await end(tx, 'ROLLBACK').catch(() => undefined);
    throw error;
  }
  await end(tx, result === null ? 'ROLLBACK' : 'COMMIT');
  return result;
}

async function end(tx: Transaction, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
  const close = () => (statement === 'COMMIT' ? tx.commit() : tx.rollback());
  if (tx.options.usePhantomQuery) return close();
  try {
    await tx.executeRaw(sql(statement, []));
  } catch (error) {
    // The connection goes back either way; a failed COMMIT is the caller's error.
    await tx.rollback();
    throw error;
  }
  await close();
}
