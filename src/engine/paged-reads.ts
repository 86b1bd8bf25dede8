// A long log read a page at a time, in one transaction: each statement's rows are
// few enough to convert in a few milliseconds, and the process gets its turns
// between them (give-way.ts), where one statement for all would hold it throughout.

/** Rows per statement of a whole log's read. */
export const LOG_PAGE = 500;

/** Every row `readAfter` gives, page after page by seq from `from` on, until a page comes back short. */
export async function readPaged<T extends { seq: number }>(readAfter: (seq: number, take: number) => Promise<T[]>, from: number): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await readAfter(rows.at(-1)?.seq ?? from, LOG_PAGE);
    rows.push(...page);
    if (page.length < LOG_PAGE) return rows;
  }
}
