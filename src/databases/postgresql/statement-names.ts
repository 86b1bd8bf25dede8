// Named prepared statements for the fast paths' hot statements on the store's
// own pools. PostgreSQL parses and plans an unnamed statement on every call;
// for an append's CTE that is most of its time (about 0.5 ms of 0.8 on
// loopback). A named one is parsed and planned once per connection, through
// Prisma's pg adapter (its statementNameGenerator option, which the kit sets
// on the adapters it builds; an application's own adapter names nothing).
//
// A name is derived from its text, so one name always means one text, in
// every process. Behind PgBouncer in transaction mode (before 1.21), a server
// connection may lack a name another one has: the statement fails before it
// runs (26000, 42P05), and from then on that adapter's statements go unnamed.
// Single statements on the pool are named, and those of the store's own
// transactions, which are run again whole; never one in the application's
// transaction, which such a failure would end.
import { createHash } from 'node:crypto';
import type { SqlDriverAdapter, SqlQuery } from '@prisma/driver-adapter-utils';

/** The queries to name, each with its name, until the adapter runs them. */
const NAMES = new WeakMap<SqlQuery, string>();
/** Adapters whose server lost or refused a name. */
const UNNAMED = new WeakSet<SqlDriverAdapter>();
const NAME_OF = new Map<string, string>();

/**
 * Prisma's pg adapter option: the name of a query the fast paths marked, else undefined, which the adapter
 * sends as an unnamed statement (its type says string; node-postgres takes undefined for no name).
 */
export const statementNameGenerator = (query: SqlQuery): string => NAMES.get(query) as string;

function nameOf(text: string): string {
  let name = NAME_OF.get(text);
  if (!name) NAME_OF.set(text, (name = `nas_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`));
  return name;
}

/** A statement PostgreSQL refused for its name alone: nothing of it ran. */
function refusedName(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return code === '26000' || code === '42P05' || (code === '0A000' && /cached plan/.test(String((error as Error).message)));
}

/** `query`, to be named when `owner`'s connections still take names (else unnamed, also on a second try). */
export function named(owner: SqlDriverAdapter, query: SqlQuery): SqlQuery {
  if (UNNAMED.has(owner)) NAMES.delete(query);
  else NAMES.set(query, nameOf(query.sql));
  return query;
}

/**
 * Runs `work`, whose statements on `owner` may be `named`: one statement, or a transaction of its own.
 * Refused for a name (nothing of it ran, a transaction was rolled back), it runs `work` again, nothing named.
 */
export async function withNames<T>(owner: SqlDriverAdapter, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!refusedName(error)) throw error;
    UNNAMED.add(owner);
    return work();
  }
}

/** Runs `query` on the pool, named (see withNames). */
export const queryNamed = (adapter: SqlDriverAdapter, query: SqlQuery) => withNames(adapter, () => adapter.queryRaw(named(adapter, query)));
