// SQLite's fast paths. SQLite runs in process: each is synchronous
// better-sqlite3 work on the store adapter's own connection, statements
// prepared once, behind the adapter's file lock.
import type Database from 'better-sqlite3';
import type { Statement as PreparedStatement } from 'better-sqlite3';
import { assertSeqInRange } from '../../engine/tables/message-rows.js';
import { historyOf, MESSAGE_COLUMNS } from '../../engine/row-codec.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import type { Message } from '../../message.types.js';
import { StoreNotFoundError } from '../../store.errors.js';
import type { Arg, Row } from '../../engine/adapter-statement.js';
import { listSessionsSql, messageInserts } from '../../engine/portable-sql.js';
import type { ReadPlan, Run, Statement, Value } from '../../engine/adapter-statement.js';
import type { FastPaths } from '../../engine/provider-kit.js';
import type { DirectWork, SerializedSqliteAdapter, SqliteTransaction } from './sqlite-adapter.js';

// Scoped, the tenant is @tenant, and every part is gated on the thread being the
// tenant's (an uncorrelated EXISTS, evaluated once), so another tenant's log is never read.
const OWNED = 'SELECT 1 FROM agent_thread WHERE id = @thread AND tenant_id = @tenant';
const gate = (scoped: boolean) => (scoped ? ` AND EXISTS (${OWNED})` : '');
/** The latest boundary's column of the thread @thread. */
const latest = (column: string, scoped: boolean) => `(SELECT ${column} FROM agent_boundary WHERE thread_id = @thread${gate(scoped)} ORDER BY seq DESC LIMIT 1)`;
const afterCut = (scoped: boolean) =>
  `FROM agent_message WHERE thread_id = @thread AND event_type IS NULL AND seq > COALESCE(${latest('cut_seq', scoped)}, 0)${gate(scoped)}`;

// One statement, one snapshot. The cut is a scalar subquery: SQLite bounds the index range on (thread_id, seq) with it (a join makes it scan).
// Scoped, a first row of part -1 says that the thread is the tenant's.
const history = (scoped: boolean) => `${scoped ? `SELECT -1 AS part, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM (${OWNED}) UNION ALL ` : ''}
  SELECT 0 AS part, NULL, NULL, messages, NULL, NULL, NULL, NULL, NULL FROM (SELECT messages FROM agent_boundary WHERE thread_id = @thread${gate(scoped)} ORDER BY seq DESC LIMIT 1)
  UNION ALL
  SELECT 1, seq, ${MESSAGE_COLUMNS} ${afterCut(scoped)}
  ORDER BY 1, 2`;
const count = (scoped: boolean) =>
  `SELECT ${scoped ? `EXISTS (${OWNED})` : '1'}, COALESCE(${latest('message_count', scoped)}, 0) + (SELECT COUNT(*) ${afterCut(scoped)})`;
/** The read statements, exported for the query-plan tests. */
export const STATEMENTS = { history: history(false), scopedHistory: history(true), count: count(false), scopedCount: count(true) };

/** Bumps the thread's counter, or creates the thread holding @count; a deleted thread (a tombstone, no row) returns no row. */
const UPSERT_THREAD = `INSERT INTO agent_thread (id, last_seq, created_at, updated_at)
  SELECT @thread, @count, @at, @at WHERE NOT EXISTS (SELECT 1 FROM agent_tombstone WHERE id = @thread)
  ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + excluded.last_seq, updated_at = excluded.updated_at
  RETURNING last_seq`;
/** Scoped, only the tenant's existing thread is bumped; no row otherwise. */
const BUMP_TENANTS_THREAD =
  'UPDATE agent_thread SET last_seq = last_seq + @count, updated_at = @at WHERE id = @thread AND tenant_id = @tenant RETURNING last_seq';

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
          ? prepared(UPSERT_THREAD).get({ thread: threadId, count: messages.length, at })
          : prepared(BUMP_TENANTS_THREAD).get({ thread: threadId, count: messages.length, at, tenant: tenantId })
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
            ? prepared(STATEMENTS.history).raw().all({ thread: threadId })
            : prepared(STATEMENTS.scopedHistory).raw().all({ thread: threadId, tenant: tenantId })
        ) as Row[];
        if (tenantId !== undefined && rows[0]?.[0] !== -1) return null;
        return historyOf(tenantId === undefined ? rows : rows.slice(1));
      }),

    count: (threadId, tenantId) =>
      run((prepared) => {
        const [owned, total] = (
          tenantId === undefined
            ? prepared(STATEMENTS.count).raw().get({ thread: threadId })
            : prepared(STATEMENTS.scopedCount).raw().get({ thread: threadId, tenant: tenantId })
        ) as Row;
        return Number(owned) === 0 ? null : Number(total);
      }),

    listSessions: (query) =>
      run((prepared) => {
        const { text, args } = listSessionsSql(query, () => '?');
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
