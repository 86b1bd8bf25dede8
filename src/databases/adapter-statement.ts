// Statements straight on a driver adapter, typed as the adapters expect.
import type { ArgType, SqlQuery } from '@prisma/driver-adapter-utils';
import { StoreDatabaseError } from '../store.errors.js';

export type Arg = string | number | Date | null;

/** A result row, its columns in the statement's order. */
export type Row = unknown[];

const argType = (arg: Arg): ArgType => ({ scalarType: arg instanceof Date ? 'datetime' : typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' });

/** A statement for the adapter: each argument typed from its value. */
export const sql = (text: string, args: Arg[]): SqlQuery => ({ sql: text, args, argTypes: args.map(argType) });

/** The savepoint a store write takes in the application's transaction (Prisma names its own prisma_sp_N). */
const SAVEPOINT = 'nestjs_agent_store';

/**
 * Runs `work` in a savepoint of the transaction whose statements `run` sends,
 * and keeps what it wrote unless it throws or returns null: a write in the
 * application's transaction is all or nothing, and a failed one leaves that
 * transaction usable (PostgreSQL would otherwise abort the whole of it).
 */
export async function inSavepoint<T>(run: (statement: string) => Promise<unknown>, work: () => Promise<T | null>): Promise<T | null> {
  await run(`SAVEPOINT ${SAVEPOINT}`);
  let result: T | null;
  try {
    result = await work();
  } catch (error) {
    await undo(run, error);
    throw error;
  }
  if (result === null) await undo(run, undefined);
  else await run(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  return result;
}

/** Rolls the savepoint back; when even that fails, the transaction holds half a write and must not commit. */
async function undo(run: (statement: string) => Promise<unknown>, failure: unknown): Promise<void> {
  try {
    await run(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    await run(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  } catch (error) {
    throw new StoreDatabaseError('a store write failed in your transaction and could not be undone: roll the transaction back', { cause: failure ?? error });
  }
}
