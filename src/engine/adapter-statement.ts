// Statements straight on a driver adapter, typed as the adapters expect.
import type { ArgType, SqlQuery } from '@prisma/driver-adapter-utils';

export type Arg = string | number | Date | null;

/**
 * A result row, its columns in the statement's order.
 *
 * @inline
 */
export type Row = unknown[];

/**
 * A value a statement takes: text, a number, a date, bytes or NULL.
 *
 * @inline
 */
export type Value = string | number | Date | Uint8Array | null;

/**
 * One statement; its rows, columns in the statement's order (a write's: none).
 *
 * @inline
 */
export type Run = (text: string, args: Value[]) => Promise<Row[]>;

/**
 * Runs `work`'s statements in one transaction: a write at the store's write level, all or nothing
 * (a work that returns null keeps nothing); a read in one snapshot.
 */
export type InTransaction = <T>(write: boolean, work: (run: Run) => Promise<T>) => Promise<T>;

export interface Statement {
  text: string;
  args: Value[];
}

/** Runs `statements` one after another, all or nothing. */
export type WriteAll = (statements: Statement[]) => Promise<void>;

/**
 * Reads as a generator: it yields each statement and is given its rows, so that one plan runs on
 * any driver, synchronously where the driver is (SQLite's) and with an await between statements elsewhere.
 */
export type ReadPlan<T> = Generator<Statement, T, Row[]>;

/** Runs the plan `plan()` makes in one snapshot (made again should the call run again, as on a retry). */
export type ReadAll = <T>(plan: () => ReadPlan<T>) => Promise<T>;

const argType = (arg: Arg): ArgType => ({ scalarType: arg instanceof Date ? 'datetime' : typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' });

/** `text` with each `?` spelled as the database spells its i-th parameter (Dialect.placeholder). */
export function spelled(text: string, placeholder: (index: number) => string): string {
  let i = 0;
  return text.replaceAll('?', () => placeholder(i++));
}

/** A statement for the adapter: each argument typed from its value. */
export const sql = (text: string, args: Arg[]): SqlQuery => ({ sql: text, args, argTypes: args.map(argType) });

/**
 * The application's transaction can no longer take the store's statements: it ended while a store
 * call ran in it, or a savepoint of the store's could not be rolled back or released (the database
 * may have ended the transaction: MariaDB rolls the whole of it back on a deadlock). `failure` is the
 * error the write met first, if any. The store refuses its later calls in that transaction.
 */
export class BrokenHostTransaction extends Error {
  constructor(
    message: string,
    readonly failure?: unknown,
  ) {
    super(message, { cause: failure });
  }
}

/** Savepoint names: calls through two transaction clients of one transaction (a nested one) never share one. */
let savepoints = 0;

/**
 * Runs `work` in a savepoint of the transaction whose statements `run` sends,
 * and keeps what it wrote unless it throws or returns null: a write in the
 * application's transaction is all or nothing, and a failed one leaves that
 * transaction usable (PostgreSQL would otherwise abort the whole of it).
 */
export async function inSavepoint<T>(run: (statement: string) => Promise<unknown>, work: () => Promise<T | null>): Promise<T | null> {
  const name = `nestjs_agent_store_${++savepoints}`;
  await run(`SAVEPOINT ${name}`);
  let result: T | null;
  try {
    result = await work();
  } catch (error) {
    await settle(run, `ROLLBACK TO SAVEPOINT ${name}`, name, error);
    throw error;
  }
  if (result === null) await settle(run, `ROLLBACK TO SAVEPOINT ${name}`, name, undefined);
  else await settle(run, undefined, name, undefined);
  return result;
}

/** Rolls the savepoint back (`rollback`) and releases it; when that fails, the transaction holds a write it must not commit. */
async function settle(run: (statement: string) => Promise<unknown>, rollback: string | undefined, name: string, failure: unknown): Promise<void> {
  try {
    if (rollback) await run(rollback);
    await run(`RELEASE SAVEPOINT ${name}`);
  } catch (error) {
    if (error instanceof BrokenHostTransaction) throw new BrokenHostTransaction(error.message, failure ?? error.failure);
    throw new BrokenHostTransaction(`a store write in your transaction could not be ${rollback ? 'undone' : 'completed'}`, failure ?? error);
  }
}
