// The store's own SQL in one transaction: on the kit's driver where its fast paths run (no Prisma
// client in between), through Prisma's raw queries elsewhere; one body of SQL either way, its
// parameters `?`, its rows lists of columns. Retries, the application's transaction (a write in a
// savepoint there) and replicas are the door's (database.ts), as for every store call.
import { spelled, type Run, type Value } from './adapter-statement.js';
import type { StoreDatabase } from './database.js';
import type { Dialect, StoreTx } from './dialect.js';

/** A statement that returns rows (the others, through Prisma, are executed and return none). */
const READS = /^\s*(SELECT|WITH)\b/i;

/**
 * Runs `work`'s statements in one transaction: a write at the kit's write level, all or nothing; a
 * read in one snapshot. `rows`, for Prisma's path: the rows a write touches (more time to run).
 */
export async function inStatements<T>(db: StoreDatabase, write: boolean, work: (run: Run) => Promise<T>, rows = 0): Promise<T> {
  const fast = await db.fastPaths();
  if (fast?.transaction) return fast.transaction(write, work);
  return write ? db.write((tx) => work(onPrisma(db, tx)), rows) : db.read((tx) => work(onPrisma(db, tx)));
}

/** Statements through Prisma's raw queries in the store's transaction `tx`: a row's columns by name, so a statement's must be unique. */
function onPrisma(db: StoreDatabase, tx: StoreTx): Run {
  const placeholder = db.kit.dialect.placeholder;
  return async (text, args) => {
    const spelt = spelled(text, placeholder);
    if (!READS.test(text)) {
      await tx.prisma.$executeRawUnsafe(spelt, ...args);
      return [];
    }
    return (await tx.prisma.$queryRawUnsafe<Record<string, unknown>[]>(spelt, ...args)).map(Object.values);
  };
}

/** Runs a DELETE or UPDATE in `run`'s transaction and returns how many rows it changed. */
export async function changedBy(run: Run, dialect: Dialect, text: string, args: Value[]): Promise<number> {
  const [first, ...after] = dialect.counted(text);
  let rows = await run(first, args);
  for (const statement of after) rows = await run(statement, []);
  return Number(rows[0][0]);
}
