// SQLite's own statements, in one table: the fast paths' reads and appends
// (fast-paths.ts), with named parameters (@thread, @tenant, @count, @at), as
// better-sqlite3 binds them. The statements every database spells alike are in
// engine/portable-sql.ts.
import { MESSAGE_COLUMNS } from '../../engine/row-codec.js';

/** How SQLite spells a positional parameter (the statements below name theirs, which better-sqlite3 binds by name). */
export const placeholder = () => '?';

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

export const SQL = {
  /** The reads, one statement each (exported for the query-plan tests). */
  history: history(false),
  scopedHistory: history(true),
  count: count(false),
  scopedCount: count(true),
  /** Bumps the thread's counter, or creates the thread holding @count; a deleted thread (a tombstone, no row) returns no row. */
  upsertThread: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at)
  SELECT @thread, @count, @at, @at WHERE NOT EXISTS (SELECT 1 FROM agent_tombstone WHERE id = @thread)
  ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + excluded.last_seq, updated_at = excluded.updated_at
  RETURNING last_seq`,
  /** Scoped, only the tenant's existing thread is bumped; no row otherwise. */
  bumpTenantsThread: 'UPDATE agent_thread SET last_seq = last_seq + @count, updated_at = @at WHERE id = @thread AND tenant_id = @tenant RETURNING last_seq',
};
