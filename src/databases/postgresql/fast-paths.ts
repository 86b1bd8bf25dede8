// PostgreSQL's fast paths: one statement each, straight on Prisma's pg adapter
// (one pool with the client). A statement sees one snapshot, so a read needs no
// transaction; an append of a batch of normal size to an existing thread is one round trip.
import type { SqlDriverAdapter, SqlQuery, SqlQueryable, Transaction } from '@prisma/driver-adapter-utils';
import { insertRuns, textLength } from '../../engine/insert-runs.js';
import { historyOf, messageColumns } from '../../engine/row-codec.js';
import { StoreNotFoundError } from '../../store.errors.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { BrokenHostTransaction, inSavepoint, sql, type Arg, type Row } from '../../engine/adapter-statement.js';
import { listSessionsSql, updateHeaderReturningSql } from '../../engine/portable-sql.js';
import type { FastPaths } from '../../engine/provider-kit.js';
import type { SessionMeta, SessionUpdate } from '../../session.types.js';
import { inOwnTransaction } from '../../engine/adapter-transactions.js';
import { placeholder, SQL } from './sql.js';
import { named, queryNamed, withNames } from './statement-names.js';

/**
 * An append of several statements: a new thread's first append, or any append
 * of a long batch (several runs, see insertRuns). Unscoped, the thread is
 * upserted with the first run, then its tombstone read in a snapshot taken
 * after the row's lock, so that a delete that committed meanwhile is seen and
 * the thread does not come back. Scoped, only the tenant's thread is bumped:
 * null when there is none (to be rolled back). The later runs follow on `tx`.
 */
async function appendRuns(
  tx: SqlQueryable,
  threadId: string,
  runs: Arg[][][],
  now: Date,
  tenantId: string | undefined,
  isDeleted: (tx: SqlQueryable, threadId: string, now: Date, name: Name) => Promise<boolean> = tombstoneRead,
  name: Name = unnamed,
): Promise<number | null> {
  const [first, ...rest] = runs;
  const count = runs.reduce((sum, run) => sum + run.length, 0);
  const { text, args } = SQL.firstRun(threadId, count, now, tenantId, first);
  // The counter's new value (null: not the tenant's thread); the INSERT runs whether or not the SELECT reads it.
  const [[last]] = (await tx.queryRaw(first.length <= NAMED_RUN ? name(sql(text, args)) : sql(text, args))).rows;
  if (tenantId === undefined && (await isDeleted(tx, threadId, now, name))) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
  if (last === null) return null;
  let after = Number(last) - count + first.length;
  for (const run of rest) {
    const later = SQL.laterRun(threadId, after, run);
    await tx.executeRaw(sql(later.text, later.args));
    after += run.length;
  }
  return Number(last);
}

/** The tombstone as the statement's snapshot holds it: at READ COMMITTED, every delete that committed before it. */
const tombstoneRead = async (tx: SqlQueryable, threadId: string, _now: Date, name: Name) =>
  (await tx.queryRaw(name(sql(SQL.tombstone, [threadId])))).rows.length > 0;

/** How a statement is sent: named where the store's own transaction or pool runs it (see statement-names.ts), else as it is. */
type Name = (query: SqlQuery) => SqlQuery;
const unnamed: Name = (query) => query;

/** The tombstone as last committed, at any level (see SQL.tombstoneProbe). */
async function deletedSinceAnySnapshot(tx: SqlQueryable, threadId: string, now: Date): Promise<boolean> {
  if ((await tx.queryRaw(sql(SQL.tombstoneProbe.insert, [threadId, now]))).rows.length === 0) return true;
  await tx.executeRaw(sql(SQL.tombstoneProbe.undo, [threadId]));
  return false;
}

/**
 * A batch of normal size to an existing thread, in one statement: a CTE bumps the counter, locking the
 * row, and the INSERT reads the new value. A missing, deleted or other tenant's thread matches no row and
 * nothing is written (`last` null). Then the statement also reports a tombstone its snapshot holds, so that
 * an append to a thread deleted earlier fails at once; one deleted while it waited is caught by appendRuns.
 */
async function appendToExisting(
  rows: Rows,
  threadId: string,
  run: Arg[][],
  now: Date,
  tenantId: string | undefined,
): Promise<{ last: number | null; deleted: boolean }> {
  const { text, args } = SQL.appendToExisting(threadId, now, tenantId, run);
  const [[last, deleted]] = await rows(text, args, run.length <= NAMED_RUN);
  return { last: last === null ? null : Number(last), deleted: Boolean(deleted) };
}

/** One statement's rows; `hot`: a statement worth naming where the connection takes names (see statement-names.ts). */
type Rows = (text: string, args: Arg[], hot?: boolean) => Promise<Row[]>;

/** Appends of up to this many messages are named statements: a few texts, each prepared once per connection. */
const NAMED_RUN = 16;

/** On the pool: hot statements named. */
const namedRows =
  (adapter: SqlDriverAdapter): Rows =>
  async (text, args, hot) =>
    (hot ? await queryNamed(adapter, sql(text, args)) : await adapter.queryRaw(sql(text, args))).rows;

/** In the application's transaction: nothing named (a statement refused for its name would end its transaction). */
const plainRows =
  (db: SqlQueryable): Rows =>
  async (text, args) =>
    (await db.queryRaw(sql(text, args))).rows;

/** Runs `work` on a transaction all or nothing, keeping nothing when it returns null. */
type Atomically = (work: (tx: SqlQueryable, name: Name) => Promise<number | null>) => Promise<number | null>;

/** A transaction of its own on a connection of the pool, at the server's default level, its hot statements named (run again unnamed should a name be refused). */
const inTransaction =
  (adapter: SqlDriverAdapter): Atomically =>
  (work) =>
    withNames(adapter, () => inOwnTransaction(adapter, undefined, (tx) => work(tx, (query) => named(adapter, query))));

/**
 * The fast paths on the pool under Prisma's pg adapter. A batch of normal size to an existing thread is
 * one statement, which needs no transaction; a first append or a long batch is a transaction of its own.
 */
export function postgresFastPaths(adapter: SqlDriverAdapter): FastPaths {
  const atomically = inTransaction(adapter);
  const rows = namedRows(adapter);
  return {
    ...readsOn(rows),
    updateHeader: (id, changes, now, tenantId) => headerUpdate(rows, id, changes, now, tenantId),
    async append(threadId, messages, now, tenantId) {
      const runs = insertRuns(messages.map(messageColumns), textLength);
      if (runs.length > 1) return atomically((tx, name) => appendRuns(tx, threadId, runs, now, tenantId, tombstoneRead, name));
      const { last, deleted } = await appendToExisting(rows, threadId, runs[0], now, tenantId);
      if (last !== null || tenantId !== undefined) return last;
      if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
      return atomically((tx, name) => appendRuns(tx, threadId, runs, now, undefined, tombstoneRead, name));
    },
  };
}

/**
 * The fast paths in the application's transaction `tx` (the driver's transaction under Prisma's): the
 * same statements; reads see the transaction's own writes. `assertOpen` before each statement (see
 * ProviderKit). An append of one statement (a batch of normal size to an existing thread, without
 * message ids) is all or nothing by itself and takes no savepoint (two round trips fewer): should the
 * database fail it, PostgreSQL ends the transaction, as it does for any failed statement, and the
 * store's later calls there refuse. Every other append runs in a savepoint, so that its failure (a
 * lost race for a message id, a deleted thread found after the upsert) leaves the transaction usable.
 * A thread created in the transaction has its tombstone looked for by a write (deletedSinceAnySnapshot).
 */
export function postgresHostFastPaths(transaction: Transaction, assertOpen: () => void): FastPaths {
  const tx: SqlQueryable = {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    queryRaw: async (query) => (assertOpen(), transaction.queryRaw(query)),
    executeRaw: async (query) => (assertOpen(), transaction.executeRaw(query)),
  };
  const inSavepointOnTx = (work: () => Promise<number | null>) => inSavepoint((statement) => tx.executeRaw(sql(statement, [])), work);
  const rows = plainRows(tx);
  return {
    ...readsOn(rows),
    // One statement, as an append's: should the database fail it, PostgreSQL has ended the transaction.
    updateHeader: (id, changes, now, tenantId) => headerUpdate(rows, id, changes, now, tenantId).catch(endedTransaction),
    async append(threadId, messages, now, tenantId) {
      const runs = insertRuns(messages.map(messageColumns), textLength);
      if (runs.length === 1 && messages.every((message) => message.id === undefined)) {
        const { last, deleted } = await appendToExisting(rows, threadId, runs[0], now, tenantId).catch(endedTransaction);
        if (last !== null || tenantId !== undefined) return last;
        if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
        // The thread does not exist (or was deleted while the statement waited): nothing was written.
        return inSavepointOnTx(() => appendRuns(tx, threadId, runs, now, undefined, deletedSinceAnySnapshot));
      }
      return inSavepointOnTx(async () => {
        if (runs.length === 1) {
          const { last, deleted } = await appendToExisting(rows, threadId, runs[0], now, tenantId);
          if (last !== null || tenantId !== undefined) return last;
          if (deleted) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
        }
        return appendRuns(tx, threadId, runs, now, tenantId, deletedSinceAnySnapshot);
      });
    },
  };
}

/** A store write of one statement failed in the application's transaction: PostgreSQL has ended that transaction. */
function endedTransaction(error: unknown): never {
  throw error instanceof BrokenHostTransaction
    ? error
    : new BrokenHostTransaction('a store write failed in your transaction, which PostgreSQL then ended', error);
}

/** SessionStore.update in one statement (updateHeaderReturningSql); null when no thread (of the tenant) matched. */
async function headerUpdate(rows: Rows, id: string, changes: SessionUpdate, now: Date, tenantId: string | undefined): Promise<SessionMeta | null> {
  const { text, args } = updateHeaderReturningSql(id, changes, now, tenantId, placeholder);
  const [row] = await rows(text, args, true);
  return row ? sessionOf(row) : null;
}

/** The reads: one statement each, one snapshot. */
function readsOn(rows: Rows): Omit<FastPaths, 'append'> {
  return {
    async history(threadId, tenantId) {
      if (tenantId === undefined) return historyOf(await rows(SQL.history, [threadId], true));
      const read = await rows(SQL.scopedHistory, [threadId, tenantId], true);
      return Number(read[0]?.[0]) === -1 ? historyOf(read.slice(1)) : null;
    },

    async count(threadId, tenantId) {
      const [[owned, total]] = await rows(
        tenantId === undefined ? SQL.count : SQL.scopedCount,
        tenantId === undefined ? [threadId] : [threadId, tenantId],
        true,
      );
      return Number(owned) === 0 ? null : Number(total);
    },

    async listSessions(query) {
      const { text, args } = listSessionsSql(query, placeholder);
      return (await rows(text, args)).map(sessionOf);
    },
  };
}
