// MySQL's and MariaDB's fast paths, in transactions on the connector pool under
// Prisma's adapter (see mariadb-pool.ts). MySQL bounds the log's index range
// with a cut it reads first, not with a subquery: a read is two statements in
// one repeatable-read transaction (MySQL's default level), one snapshot.
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { historyOf, MESSAGE_COLUMNS, messageColumns } from '../../data/row-codec.js';
import { sessionOf } from '../../data/session-list.js';
import type { Message } from '../../message.types.js';
import { StoreNotFoundError } from '../../store.errors.js';
import type { Arg } from '../adapter-statement.js';
import { listSessionsSql } from '../portable-sql.js';
import type { FastPaths } from '../provider-kit.js';
import { batch, inMariaDbTransaction, mariadbPoolOf, queryPool, type Query } from './mariadb-pool.js';

const LATEST = 'FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1';
/** Scoped: one row when the thread is the tenant's (boundary columns null when it has none), none when it is not. */
const OWNED_LATEST = 'FROM agent_thread t LEFT JOIN agent_boundary b ON b.thread_id = t.id WHERE t.id = ? AND t.tenant_id = ? ORDER BY b.seq DESC LIMIT 1';
const AFTER_CUT = 'FROM agent_message WHERE thread_id = ? AND event_type IS NULL AND seq > ?';

export function mysqlFastPaths(adapter: SqlDriverAdapter): FastPaths {
  const pool = mariadbPoolOf(adapter);
  const inTransaction = <T>(work: (query: Query) => Promise<T>) => inMariaDbTransaction(pool, work) as Promise<T>;
  /** The latest boundary's columns (`cut_seq` last), or null when scoped and the thread is not the tenant's; [] when it has no boundary. */
  const latest = async (query: Query, columns: string, threadId: string, tenantId: string | undefined) => {
    const [row] = tenantId === undefined ? await query(`SELECT ${columns} ${LATEST}`, [threadId]) : await query(`SELECT ${columns} ${OWNED_LATEST}`, [threadId, tenantId]);
    if (!row) return tenantId === undefined ? [] : null;
    return row.at(-1) === null ? [] : row;
  };
  return {
    // One request, one round trip: a transaction that bumps the thread's counter (unscoped: creates
    // the thread unless it was deleted), inserts the messages at the numbers it read back from the
    // row it holds locked, and returns the new last number. A missing, deleted or other tenant's
    // thread leaves no row to read: nothing is written.
    async append(threadId, messages, now, tenantId) {
      const { statements, args } = appendBatch(threadId, messages, now, tenantId);
      const results = await batch(pool, statements, args);
      const [row] = results[3];
      if (row) return Number(row[0]);
      if (tenantId === undefined) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
      return null;
    },

    history: (threadId, tenantId) =>
      inTransaction(async (query) => {
        const boundary = await latest(query, '0, NULL, NULL, messages, NULL, NULL, NULL, cut_seq', threadId, tenantId);
        if (boundary === null) return null;
        // created_at as milliseconds since the epoch: a DATETIME holding UTC, counted in SQL without a zone, reads faster than its text.
        const log = await query(`SELECT 1, seq, role, content, message_id, metadata, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', created_at) DIV 1000 ${AFTER_CUT} ORDER BY seq`, [
          threadId,
          boundary.length > 0 ? Number(boundary.at(-1)) : 0,
        ]);
        return historyOf(boundary.length > 0 ? [boundary, ...log] : log);
      }),

    count: (threadId, tenantId) =>
      inTransaction(async (query) => {
        const boundary = await latest(query, 'message_count, cut_seq', threadId, tenantId);
        if (boundary === null) return null;
        const [[count]] = await query(`SELECT COUNT(*) ${AFTER_CUT}`, [threadId, boundary.length > 0 ? Number(boundary[1]) : 0]);
        return (boundary.length > 0 ? Number(boundary[0]) : 0) + Number(count);
      }),

    async listSessions(query) {
      const { text, args } = listSessionsSql(query, () => '?');
      return (await queryPool(pool)(text, args)).map(sessionOf);
    },
  };
}

/** The thread's row as an append may touch it (scoped, only when it is the tenant's), its columns prefixed by `alias`. */
const threadRow = (tenantId: string | undefined, alias = '') => (tenantId === undefined ? `${alias}id = ?` : `${alias}id = ? AND ${alias}tenant_id = ?`);

/**
 * The append's five statements. The counter is bumped first, taking the row's
 * lock; the messages' numbers are read from that row inside the INSERT, so no
 * result has to come back between statements.
 */
function appendBatch(threadId: string, messages: Message[], now: Date, tenantId: string | undefined): { statements: string; args: Arg[] } {
  const n = messages.length;
  const thread = tenantId === undefined ? [threadId] : [threadId, tenantId];
  const bump =
    tenantId === undefined
      ? {
          sql: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) SELECT ?, ?, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM agent_tombstone WHERE id = ?)
            ON DUPLICATE KEY UPDATE last_seq = last_seq + VALUES(last_seq), updated_at = VALUES(updated_at)`,
          args: [threadId, n, now, now, threadId],
        }
      : { sql: `UPDATE agent_thread SET last_seq = last_seq + ?, updated_at = ? WHERE ${threadRow(tenantId)}`, args: [n, now, ...thread] };
  // The messages as a derived table of constants, each with its distance k from the last number.
  const values = messages.map((_, i) => (i === 0 ? 'SELECT ? AS k, ? AS role, ? AS content, ? AS message_id, ? AS metadata, ? AS created_at' : 'SELECT ?, ?, ?, ?, ?, ?'));
  return {
    statements: [
      'START TRANSACTION',
      bump.sql,
      `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
        SELECT t.id, t.last_seq - m.k, m.role, m.content, m.message_id, m.metadata, m.created_at
        FROM agent_thread t JOIN (${values.join(' UNION ALL ')}) m WHERE ${threadRow(tenantId, 't.')}`,
      `SELECT last_seq FROM agent_thread WHERE ${threadRow(tenantId)}`,
      'COMMIT',
    ].join(';\n'),
    args: [...bump.args, ...messages.flatMap((message, i) => [n - 1 - i, ...messageColumns(message)]), ...thread, ...thread],
  };
}
