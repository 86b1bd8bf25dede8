// PostgreSQL's fast paths: one statement each, straight on Prisma's pg adapter
// (one pool with the client). A statement sees one snapshot, so a read needs no
// transaction; an append is one round trip.
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { historyOf, MESSAGE_COLUMNS, messageColumns } from '../../data/row-codec.js';
import { sessionOf } from '../../data/session-list.js';
import { sql, type Arg, type Row } from '../adapter-statement.js';
import { listSessionsSql } from '../portable-sql.js';
import type { FastPaths } from '../provider-kit.js';

// The thread is $1 and, scoped, the tenant $2. PostgreSQL bounds the index range
// on (thread_id, seq) with a one-row CTE joined to the log (with a scalar
// subquery it may scan the thread when its estimates say so).
const BOUNDARY = (columns: string) => `b AS (SELECT ${columns} FROM agent_boundary WHERE thread_id = $1 ORDER BY seq DESC LIMIT 1)`;
const OWNED = 'o AS (SELECT 1 FROM agent_thread WHERE id = $1 AND tenant_id = $2)';
const AFTER_CUT = 'agent_message m ON m.thread_id = $1 AND m.seq > c.cut AND m.event_type IS NULL';
const history = (scoped: boolean) => `WITH ${BOUNDARY('cut_seq, messages')}, c AS (SELECT COALESCE(MAX(cut_seq), 0) AS cut FROM b)${scoped ? `, ${OWNED}` : ''}
  ${scoped ? 'SELECT -1 AS part, NULL::integer, NULL::text, NULL::jsonb, NULL::text, NULL::jsonb, NULL::timestamp(3) FROM o UNION ALL' : ''}
  SELECT 0 AS part, NULL::integer, NULL::text, b.messages, NULL::text, NULL::jsonb, NULL::timestamp(3) FROM b
  UNION ALL
  SELECT 1, m.seq, m.role, m.content, m.message_id, m.metadata, m.created_at FROM c JOIN ${AFTER_CUT}
  ORDER BY 1, 2`;
const count = (scoped: boolean) => `WITH ${BOUNDARY('cut_seq, message_count')},
    c AS (SELECT COALESCE(MAX(cut_seq), 0) AS cut, COALESCE(MAX(message_count), 0) AS replaced FROM b)${scoped ? `, ${OWNED}` : ''}
  SELECT ${scoped ? '(SELECT COUNT(*) FROM o)' : '1'}, c.replaced + COUNT(m.seq) FROM c LEFT JOIN ${AFTER_CUT} GROUP BY c.replaced`;
const STATEMENTS = {
  history: history(false),
  scopedHistory: history(true),
  count: count(false),
  scopedCount: count(true),
};

export function postgresFastPaths(adapter: SqlDriverAdapter): FastPaths {
  const rows = async (text: string, args: Arg[]): Promise<Row[]> => (await adapter.queryRaw(sql(text, args))).rows;
  return {
    // A CTE bumps the counter, locking the row, and the INSERT reads the new value.
    // A missing, deleted or other tenant's thread matches no row and nothing is written.
    async append(threadId, messages, now, tenantId) {
      const args: Arg[] = [threadId, messages.length, now];
      const tenant = tenantId === undefined ? '' : ` AND tenant_id = $${args.push(tenantId)}`;
      const values = messages.map((message, i) => {
        const at = args.length;
        args.push(...messageColumns(message));
        return `(${i + 1}, $${at + 1}, $${at + 2}::jsonb, $${at + 3}, $${at + 4}::jsonb, $${at + 5}::timestamp(3))`;
      });
      const inserted = await rows(
        `WITH bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1${tenant} RETURNING last_seq)
         INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
         SELECT $1, bumped.last_seq - $2 + m.ord, m.role, m.content, m.message_id, m.metadata, m.created_at
         FROM bumped, (VALUES ${values.join(', ')}) AS m (ord, role, content, message_id, metadata, created_at)
         RETURNING seq`,
        args,
      );
      return inserted.length === 0 ? null : Math.max(...inserted.map((row) => Number(row[0])));
    },

    async history(threadId, tenantId) {
      if (tenantId === undefined) return historyOf(await rows(STATEMENTS.history, [threadId]));
      const read = await rows(STATEMENTS.scopedHistory, [threadId, tenantId]);
      return Number(read[0]?.[0]) === -1 ? historyOf(read.slice(1)) : null;
    },

    async count(threadId, tenantId) {
      const [[owned, total]] = await rows(tenantId === undefined ? STATEMENTS.count : STATEMENTS.scopedCount, tenantId === undefined ? [threadId] : [threadId, tenantId]);
      return Number(owned) === 0 ? null : Number(total);
    },

    async listSessions(query) {
      const { text, args } = listSessionsSql(query, (i) => `$${i + 1}`);
      return (await rows(text, args)).map(sessionOf);
    },
  };
}
