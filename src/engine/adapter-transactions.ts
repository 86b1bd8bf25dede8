// Transactions straight on a driver adapter, in Prisma's own adapter interface
// (which every kit's adapter speaks): statements without the Prisma client in
// between, for the hot paths no kit spells out in its own driver's terms
// (LangGraph's checkpoints). Statements use `?`; the kit numbers them.
import type { IsolationLevel as AdapterIsolationLevel, SqlDriverAdapter, SqlQueryable, Transaction } from '@prisma/driver-adapter-utils';
import { inSavepoint, spelled, type InTransaction, type ReadAll, type ReadPlan, type Run, type Value, type WriteAll } from './adapter-statement.js';
import type { ProviderKit } from './provider-kit.js';
import type { IsolationLevel } from './dialect.js';

/**
 * Runs `plan`, each statement through `run`; the plan's result.
 *
 * @param plan - The plan's generator: the integration contract's ReadPlan, as a `plan()` made it.
 * @param run - Runs one statement and gives its rows: a transaction's `query` (IntegrationReads).
 */
export async function runPlan<T>(plan: ReadPlan<T>, run: Run): Promise<T> {
  let step = plan.next();
  while (!step.done) step = plan.next(await run(step.value.text, step.value.args));
  return step.value;
}

/** ReadAll as a read transaction of `transaction`'s. */
export const readAllIn =
  (transaction: InTransaction): ReadAll =>
  (plan) =>
    transaction(false, (run) => runPlan(plan(), run));

/** WriteAll as a write transaction of `transaction`'s. */
export const writeAllIn =
  (transaction: InTransaction): WriteAll =>
  (statements) =>
    transaction(true, async (run) => {
      for (const { text, args } of statements) await run(text, args);
    });

const LEVELS: Record<IsolationLevel, AdapterIsolationLevel> = {
  Serializable: 'SERIALIZABLE',
  RepeatableRead: 'REPEATABLE READ',
  ReadCommitted: 'READ COMMITTED',
};

const argType = (value: Value) =>
  ({
    scalarType: value instanceof Date ? 'datetime' : value instanceof Uint8Array ? 'bytes' : typeof value === 'number' ? 'int' : 'string',
    arity: 'scalar',
  }) as const;

/** Statements on the transaction `tx`: the kit's own way, or through queryRaw, their `?` numbered as the kit spells placeholders. */
function runOn(tx: Transaction, kit: ProviderKit): Run {
  return kit.statementsOn?.(tx) ?? queryRawOn(tx, kit);
}

function queryRawOn(queryable: SqlQueryable, kit: ProviderKit): Run {
  return async (text, args) => {
    const sql = spelled(text, kit.dialect.placeholder);
    // Bytes as a Buffer: every adapter's driver binds it as a blob.
    const values = args.map((value) => (value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value));
    return (await queryable.queryRaw({ sql, args: values, argTypes: args.map(argType) })).rows;
  };
}

/**
 * `work` in a transaction of its own on `adapter` (a connection of its pool; on SQLite, behind its
 * file lock), at `level`: committed when it returns, rolled back when it returns null or throws.
 */
export async function inOwnTransaction<T>(adapter: SqlDriverAdapter, level: IsolationLevel | undefined, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tx = await adapter.startTransaction(level && LEVELS[level]);
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    try {
      // Where the adapter's commit() is bookkeeping only, the statement is the caller's to send (as Prisma's engine sends it).
      if (!tx.options.usePhantomQuery) await tx.executeRaw({ sql: statement, args: [], argTypes: [] });
    } finally {
      await (statement === 'COMMIT' ? tx.commit() : tx.rollback());
    }
  };
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await end('ROLLBACK').catch(() => undefined);
    throw error;
  }
  await end(result === null ? 'ROLLBACK' : 'COMMIT');
  return result;
}

/** A transaction of its own on `adapter` per call, at the kit's level for a write or a read. */
export function adapterTransactions(adapter: SqlDriverAdapter, kit: ProviderKit): InTransaction {
  return <T>(write: boolean, work: (run: Run) => Promise<T>): Promise<T> =>
    inOwnTransaction(adapter, write ? kit.dialect.writeIsolation : kit.dialect.readIsolation, (tx) => work(runOn(tx, kit)));
}

/**
 * The same in the application's transaction `tx` (the driver's, under Prisma's): a write in a
 * savepoint, so that a failed one leaves the transaction as it found it. `assertOpen` before each statement.
 */
export function hostTransactions(tx: Transaction, kit: ProviderKit, assertOpen: () => void): InTransaction {
  const run = runOn(tx, kit);
  const checked: Run = async (text, args) => (assertOpen(), run(text, args));
  // Savepoints through executeRaw: each has a name of its own, which no statement cache should keep.
  const savepoint = async (statement: string) => (assertOpen(), tx.executeRaw({ sql: statement, args: [], argTypes: [] }));
  return <T>(write: boolean, work: (run: Run) => Promise<T>) => (write ? (inSavepoint(savepoint, () => work(checked)) as Promise<T>) : work(checked));
}
