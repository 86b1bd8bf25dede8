// How many rows one INSERT carries. A batch of any length is written as
// several INSERTs inside its one transaction, so that no statement passes a
// database's limits: SQLite binds at most 32,766 values to a statement,
// PostgreSQL 65,535, and MySQL and MariaDB refuse a statement longer than
// max_allowed_packet (16 MiB by default on MariaDB, 64 MiB on MySQL 8).

/** Rows per INSERT: of at most eleven values each, far below any database's limit on values. */
export const MAX_INSERT_ROWS = 1000;

/** Characters of text per INSERT: even as 3-byte UTF-8, escaped, well inside a 16 MiB packet. */
export const MAX_INSERT_CHARS = 1024 * 1024;

/**
 * `rows` in order, in runs of at most `maxRows` (MAX_INSERT_ROWS) rows and MAX_INSERT_CHARS
 * characters (`charsOf` a row); a row longer than that on its own is a run of
 * its own. A batch of normal size is one run: one statement.
 */
export function insertRuns<T>(rows: T[], charsOf: (row: T) => number, maxRows = MAX_INSERT_ROWS): T[][] {
  if (rows.length <= 1) return [rows];
  return [...runsOf(rows, charsOf, maxRows)];
}

/** The same runs, each made when it is taken: rows made one by one (a generator) are made a run at a time. */
export function* runsOf<T>(rows: Iterable<T>, charsOf: (row: T) => number, maxRows = MAX_INSERT_ROWS): Generator<T[]> {
  let run: T[] = [];
  let chars = 0;
  for (const row of rows) {
    const size = charsOf(row);
    if (run.length === maxRows || (run.length > 0 && chars + size > MAX_INSERT_CHARS)) {
      yield run;
      run = [];
      chars = 0;
    }
    run.push(row);
    chars += size;
  }
  if (run.length > 0) yield run;
}

/** The characters of a row's text values (its numbers, dates and nulls are a few bytes each). */
export const textLength = (values: readonly unknown[]): number =>
  values.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 0), 0);
