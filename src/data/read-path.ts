// The read path. Agents reload the effective history every turn, so getHistory
// and count go straight to the driver (the adapter, or on MariaDB its pool)
// instead of through a read transaction of Prisma's: on PostgreSQL and SQLite one statement reads the
// latest boundary and the messages after it, from the one snapshot a statement
// sees; on MySQL two statements share a transaction's snapshot.
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import type { Pool } from 'mariadb';
import type { HistoryMessage } from '../message.types.js';
import { sql, type Row } from './adapter-statement.js';
import type { Provider } from './dialect.js';
import { inMariaDbTransaction, mariadbPoolOf, type Query } from './mariadb-pool.js';
import { boundaryHistory, toStoredMessage } from './message.repository.js';
import type { SerializedSqliteAdapter } from './sqlite-adapter.js';

export interface ReadPath {
  /** The effective history of the thread (`[]` when it does not exist). */
  history(threadId: string): Promise<HistoryMessage[]>;
  /** Its length, counted in the database. */
  count(threadId: string): Promise<number>;
}

type Run = (sql: string, args: string[]) => Promise<Row[]>;

/**
 * PostgreSQL and SQLite: one statement. Each planner bounds the index range on
 * (thread_id, seq) with the cut in its own way: PostgreSQL with a one-row CTE
 * joined to the log (compared with a scalar subquery it may scan the thread when
 * its estimates say so), SQLite with a scalar subquery (it scans with the join).
 */
const STATEMENTS = {
  postgresql: {
    history: `WITH b AS (SELECT cut_seq, messages FROM agent_boundary WHERE thread_id = $1 ORDER BY seq DESC LIMIT 1),
        c AS (SELECT COALESCE(MAX(cut_seq), 0) AS cut FROM b)
      SELECT 0 AS part, NULL::integer, NULL::text, b.messages, NULL::text, NULL::jsonb, NULL::timestamp(3) FROM b
      UNION ALL
      SELECT 1, m.seq, m.role, m.content, m.message_id, m.metadata, m.created_at FROM c JOIN agent_message m ON m.thread_id = $1 AND m.seq > c.cut AND m.event_type IS NULL
      ORDER BY 1, 2`,
    count: `WITH b AS (SELECT cut_seq, message_count FROM agent_boundary WHERE thread_id = $1 ORDER BY seq DESC LIMIT 1),
        c AS (SELECT COALESCE(MAX(cut_seq), 0) AS cut, COALESCE(MAX(message_count), 0) AS replaced FROM b)
      SELECT c.replaced + COUNT(m.seq) FROM c LEFT JOIN agent_message m ON m.thread_id = $1 AND m.seq > c.cut AND m.event_type IS NULL GROUP BY c.replaced`,
  },
  sqlite: {
    history: `SELECT 0 AS part, NULL, NULL, messages, NULL, NULL, NULL FROM (SELECT messages FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1)
      UNION ALL
      SELECT 1, seq, role, content, message_id, metadata, created_at FROM agent_message
      WHERE thread_id = ? AND event_type IS NULL AND seq > COALESCE((SELECT cut_seq FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1), 0)
      ORDER BY 1, 2`,
    count: `SELECT COALESCE((SELECT message_count FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1), 0) + (SELECT COUNT(*) FROM agent_message
      WHERE thread_id = ? AND event_type IS NULL AND seq > COALESCE((SELECT cut_seq FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1), 0))`,
  },
};

export function readPath(adapter: SqlDriverAdapter, provider: Provider): ReadPath {
  if (provider === 'mysql') return mysqlReads(mariadbPoolOf(adapter));
  const statements = STATEMENTS[provider];
  const run: Run = provider === 'sqlite' ? sqliteRun(adapter as SerializedSqliteAdapter) : async (text, args) => (await adapter.queryRaw(sql(text, args))).rows;
  return {
    async history(threadId) {
      return historyOf(await run(statements.history, Array(placeholdersIn(statements.history)).fill(threadId)));
    },
    async count(threadId) {
      const [[count]] = await run(statements.count, Array(placeholdersIn(statements.count)).fill(threadId));
      return Number(count);
    },
  };
}

/**
 * MySQL and MariaDB bound the log's index range with a cut they read first, not
 * with a subquery inside the statement: two statements, in one repeatable-read
 * transaction (MySQL's default level) so that they read one snapshot.
 */
function mysqlReads(pool: Pool): ReadPath {
  const latest = (columns: string) => `SELECT ${columns} FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1`;
  const after = 'FROM agent_message WHERE thread_id = ? AND event_type IS NULL AND seq > ?';
  const read = <T>(work: (query: Query) => Promise<T>) => inMariaDbTransaction(pool, work) as Promise<T>;
  return {
    history: (threadId) =>
      read(async (query) => {
        const [boundary] = await query(latest('0, NULL, NULL, messages, NULL, NULL, NULL, cut_seq'), [threadId]);
        const cut = boundary ? Number(boundary[7]) : 0;
        // created_at as milliseconds since the epoch: a DATETIME holding UTC, counted in SQL without a zone, reads faster than its text.
        const log = await query(`SELECT 1, seq, role, content, message_id, metadata, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', created_at) DIV 1000 ${after} ORDER BY seq`, [
          threadId,
          cut,
        ]);
        return historyOf(boundary ? [boundary, ...log] : log);
      }),
    count: (threadId) =>
      read(async (query) => {
        const [boundary] = await query(latest('cut_seq, message_count'), [threadId]);
        const [[count]] = await query(`SELECT COUNT(*) ${after}`, [threadId, boundary ? Number(boundary[0]) : 0]);
        return (boundary ? Number(boundary[1]) : 0) + Number(count);
      }),
  };
}

/** How many parameters a statement takes, each the thread id: PostgreSQL names one $1, SQLite's `?` come one by one. */
const placeholdersIn = (sql: string) => (sql.includes('$1') ? 1 : sql.split('?').length - 1);

/** Rows of [part, seq, role, content, message_id, metadata, created_at]: a first row of part 0 holds the boundary's messages. */
function historyOf(rows: Row[]): HistoryMessage[] {
  const boundary = rows.length > 0 && Number(rows[0][0]) === 0 ? rows[0] : undefined;
  const log = (boundary ? rows.slice(1) : rows).map(logMessage);
  return boundary ? [...boundaryHistory(json(boundary[3])), ...log] : log;
}

/** SQLite: the store adapter's own connection, statements prepared once, behind its lock. */
function sqliteRun(adapter: SerializedSqliteAdapter): Run {
  return (text, args) => adapter.direct((_db, prepared) => prepared(text).raw().all(args) as Row[]);
}

// The drivers hand JSON back as text and dates as ISO strings (a date without
// its zone is UTC, as the store writes them) or, from MySQL, as epoch milliseconds.
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
const date = (value: unknown) =>
  typeof value === 'number' || value instanceof Date
    ? new Date(value)
    : new Date(/(Z|[+-]\d\d:?\d\d)$/.test(String(value)) ? String(value) : `${String(value).replace(' ', 'T')}Z`);

/** A log row in the repository's shape, JSON parsed and the date read. */
const logMessage = ([, seq, role, content, messageId, metadata, createdAt]: Row): HistoryMessage =>
  toStoredMessage({ seq: Number(seq), role: role as string, content: json(content), messageId: messageId as string | null, metadata: metadata === null ? null : json(metadata), createdAt: date(createdAt) });
