// Many rows in raw INSERTs through the store's Prisma transaction. Prisma's
// createMany plans each call anew, at about a quarter of a millisecond a row
// (a 1,000-row batch held the event loop for 250 ms); a raw statement of the
// same rows costs a fifth of that, and runs of RAW_INSERT_ROWS keep each one
// short enough for the process to get its turns between them (give-way.ts).
import { runsOf, textLength } from './insert-runs.js';
import type { StoreTx } from './dialect.js';

/** Rows per raw INSERT: a few milliseconds of work on SQLite. */
export const RAW_INSERT_ROWS = 100;

/**
 * Inserts the rows `rowOf` makes of `items` (values in `columns`' order) into `table`, in order, in runs
 * (see insertRuns), each run's rows made just before its statement, so that no step of a long batch is long.
 */
export async function insertRaw<T>(tx: StoreTx, table: string, columns: readonly string[], items: Iterable<T>, rowOf: (item: T) => unknown[]): Promise<void> {
  const rows = (function* () {
    for (const item of items) yield rowOf(item);
  })();
  for (const run of runsOf(rows, textLength, RAW_INSERT_ROWS)) {
    let index = 0;
    const values = run.map((row) => `(${row.map(() => tx.dialect.placeholder(index++)).join(', ')})`).join(', ');
    await tx.prisma.$executeRawUnsafe(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values}`, ...run.flat());
  }
}
