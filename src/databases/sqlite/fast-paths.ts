// SQLite's fast paths. SQLite runs in process: each is synchronous
// better-sqlite3 work on the store adapter's own connection, statements
// prepared once, behind the adapter's file lock.
import type Database from 'better-sqlite3';
import type { Statement as PreparedStatement } from 'better-sqlite3';
import { assertSeqInRange } from '../../engine/tables/message-rows.js';
import { historyOf } from '../../engine/row-codec.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import type { Message } from '../../message.types.js';
import { StoreNotFoundError } from '../../store.errors.js';
import type { Arg, Row } from '../../engine/adapter-statement.js';
import { listSessionsSql, messageInserts, updateHeaderReturningSql } from '../../engine/portable-sql.js';
import type { ReadPlan, Run, Statement, Value } from '../../engine/adapter-statement.js';
import type { FastPaths } from '../../engine/provider-kit.js';
import type { DirectWork, SerializedSqliteAdapter, SqliteTransaction } from './sqlite-adapter.js';
import { placeholder, SQL } from './sql.js';

/** How Prisma's SQLite adapter writes dates (its default "iso8601" format), so rows read back alike. */
const sqliteDate = (date: Date) => date.toISOString().replace('Z', '+00:00');
const sqliteValue = (arg: Arg) => (arg instanceof Date ? sqliteDate(arg) : arg);
/** Bytes too, as a Buffer (better-sqlite3 binds it as a blob). */
const sqliteArg = (arg: Value) => (arg instanceof Uint8Array ? Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength) : sqliteValue(arg));

/**
 * One BEGIN IMMEDIATE transaction, as the raw driver's: the thread's counter
 * bumped (unscoped: the thread created, unless it was deleted), then the
 * messages inserted (a long batch in several INSERTs). Made once per connection.
 */
const appendTransactions = new WeakMap<
  Database.Database,
  Database.Transaction<(threadId: string, messages: Message[], at: string, tenantId?: string) => number | null>
>();
function appendIn(db: Database.Database, prepared: (sql: string) => PreparedStatement) {
  let append = appendTransactions.get(db);
  if (!append) {
    append = db.transaction((threadId: string, messages: Message[], at: string, tenantId?: string): number | null => {
      const bumped = (
        tenantId === undefined
          ? prepared(SQL.upsertThread).get({ thread: threadId, count: messages.length, at })
          : prepared(SQL.bumpTenantsThread).get({ thread: threadId, count: messages.length, at, tenant: tenantId })
      ) as { last_seq: number } | undefined;
      if (!bumped && tenantId !== undefined) return null;
      if (!bumped) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
      assertSeqInRange(threadId, bumped.last_seq);
      for (const { text, args } of messageInserts(threadId, bumped.last_seq - messages.length + 1, messages)) prepared(text).run(...args.map(sqliteValue));
      return bumped.last_seq;
    });
    appendTransactions.set(db, append);
  }
  return append;
}

/** Runs its statements in one better-sqlite3 transaction (BEGIN IMMEDIATE, or a savepoint inside a transaction). Made once per connection. */
const writeAllTransactions = new WeakMap<Database.Database, Database.Transaction<(statements: Statement[]) => void>>();
function writeAllIn(db: Database.Database, prepared: (sql: string) => PreparedStatement) {
  let writeAll = writeAllTransactions.get(db);
  if (!writeAll) {
    writeAll = db.transaction((statements: Statement[]) => {
      for (const { text, args } of statements) prepared(text).run(...args.map(sqliteArg));
    });
    writeAllTransactions.set(db, writeAll);
  }
  return writeAll;
}

/** Runs a read plan in one better-sqlite3 transaction (BEGIN DEFERRED: one snapshot; inside a transaction, a savepoint). Made once per connection. */
const readAllTransactions = new WeakMap<Database.Database, Database.Transaction<(plan: ReadPlan<unknown>) => unknown>>();
function readAllIn(db: Database.Database, prepared: (sql: string) => PreparedStatement) {
  let readAll = readAllTransactions.get(db);
  if (!readAll) {
    readAll = db.transaction((plan: ReadPlan<unknown>) => {
      let step = plan.next();
      while (!step.done)
        step = plan.next(
          prepared(step.value.text)
            .raw(true)
            .all(...step.value.args.map(sqliteArg)) as Row[],
        );
      return step.value;
    });
    readAllTransactions.set(db, readAll);
  }
  return readAll;
}

/** The fast paths on the store adapter's own connection, behind its lock. */
export const sqliteFastPaths = (adapter: SerializedSqliteAdapter): FastPaths => fastPathsOn((work) => adapter.direct(work));

/**
 * The fast paths in the application's transaction `tx`, on its connection: the same statements, an
 * append in a savepoint (better-sqlite3 nests its transaction functions so); reads see its own writes.
 * `assertOpen` before each call (see ProviderKit); each is one synchronous piece of work.
 */
export const sqliteHostFastPaths = (tx: SqliteTransaction, assertOpen: () => void): FastPaths =>
  fastPathsOn(async (work) => {
    assertOpen();
    return tx.direct(work);
  });

function fastPathsOn(direct: <T>(work: DirectWork<T>) => Promise<T>): FastPaths {
  const run = <T>(work: (prepared: (sql: string) => PreparedStatement) => T) => direct((_db, prepared) => work(prepared));
  return {
    // BEGIN IMMEDIATE, or a savepoint inside a transaction.
    append: (threadId, messages, now, tenantId) => direct((db, prepared) => appendIn(db, prepared).immediate(threadId, messages, sqliteDate(now), tenantId)),
    writeAll: async (statements) => direct((db, prepared) => writeAllIn(db, prepared).immediate(statements)),
    readAll: async <T>(plan: () => ReadPlan<T>) => direct((db, prepared) => readAllIn(db, prepared).deferred(plan()) as T),

    history: (threadId, tenantId) =>
      run((prepared) => {
        const rows = (
          tenantId === undefined
            ? prepared(SQL.history).raw().all({ thread: threadId })
            : prepared(SQL.scopedHistory).raw().all({ thread: threadId, tenant: tenantId })
        ) as Row[];
        if (tenantId !== undefined && rows[0]?.[0] !== -1) return null;
        return historyOf(tenantId === undefined ? rows : rows.slice(1));
      }),

    count: (threadId, tenantId) =>
      run((prepared) => {
        const [owned, total] = (
          tenantId === undefined
            ? prepared(SQL.count).raw().get({ thread: threadId })
            : prepared(SQL.scopedCount).raw().get({ thread: threadId, tenant: tenantId })
        ) as Row;
        return Number(owned) === 0 ? null : Number(total);
      }),

    // One statement, autocommitted (or in the app's transaction).
    updateHeader: (id, changes, now, tenantId) =>
      run((prepared) => {
        const { text, args } = updateHeaderReturningSql(id, changes, now, tenantId, placeholder);
        const row = prepared(text)
          .raw()
          .get(...args.map(sqliteValue)) as Row | undefined;
        return row ? sessionOf(row) : null;
      }),

    listSessions: (query) =>
      run((prepared) => {
        const { text, args } = listSessionsSql(query, placeholder);
        return (
          prepared(text)
            .raw()
            .all(...args.map(sqliteValue)) as Row[]
        ).map(sessionOf);
      }),
  };
}

/** Statements in the transaction `tx`, each prepared once, in process (see ProviderKit.statementsOn). */
export const directStatements =
  (tx: SqliteTransaction): Run =>
  (text, args) =>
    tx.direct((_db, prepared) => {
      const statement = prepared(text);
      const values = args.map(sqliteArg);
      if (!statement.reader) return (statement.run(...values), []);
      return statement.raw(true).all(...values) as Row[];
    });
