// MySQL's and MariaDB's own statements on the store's tables, in one table: the
// fast paths' (fast-paths.ts, host-append.ts), the kit's dialect's (index.ts)
// and the snapshot check's (snapshot-check.ts). Every parameter is `?`. The
// statements every database spells alike are in engine/portable-sql.ts; the
// migration locks are with the migrations (migrations.ts, galera.ts).

import { SESSION_COLUMNS } from '../../engine/portable-sql.js';

/** How MySQL spells every parameter. */
export const placeholder = () => '?';

/** The rows of the thread ? after the cut ? (messages, not events). */
const AFTER_CUT = 'FROM agent_message WHERE thread_id = ? AND event_type IS NULL AND seq > ?';

/** The latest boundary of the thread ?, found by its key ((thread_id, MAX(seq)): one index lookup, no sort). */
const LATEST_KEY = 'thread_id = ? AND seq = (SELECT MAX(seq) FROM agent_boundary WHERE thread_id = ?)';
/** Whether the thread ? is the tenant ?'s. */
const OWNED = 'EXISTS (SELECT 1 FROM agent_thread WHERE id = ? AND tenant_id = ?)';

/**
 * The effective history in one statement, one snapshot: the latest boundary's messages (part 0), then the
 * log after its cut (part 1), the cut read from a one-row derived table, which MariaDB reads first, as a
 * constant, and bounds the log's index range with (a subquery's value in the WHERE clause it would not).
 * Scoped, a row of part -1 first when the thread is the tenant's, and every other part gated on it, so that
 * nothing of another tenant's session is read. No ORDER BY: sorting the union would put its rows in a
 * temporary table; each part comes in key order, and the caller puts them in order.
 */
function history(threadId: string, tenantId: string | undefined): { text: string; args: string[] } {
  const scoped = tenantId !== undefined;
  const gate = scoped ? ` AND ${OWNED}` : '';
  const owned = scoped ? [threadId, tenantId] : [];
  const text =
    (scoped ? 'SELECT -1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM agent_thread WHERE id = ? AND tenant_id = ? UNION ALL ' : '') +
    `SELECT 0, NULL, NULL, messages, NULL, NULL, NULL, NULL, NULL FROM agent_boundary WHERE ${LATEST_KEY}${gate}
     UNION ALL
     SELECT 1, m.seq, m.role, m.content, m.message_id, m.metadata, m.provider_options, m.value_types, TIMESTAMPDIFF(MICROSECOND, '1970-01-01', m.created_at) DIV 1000
     FROM (SELECT COALESCE(MAX(cut_seq), 0) AS cut FROM agent_boundary WHERE ${LATEST_KEY}${gate}) c
     JOIN agent_message m ON m.thread_id = ? AND m.seq > c.cut AND m.event_type IS NULL${scoped ? ` WHERE ${OWNED}` : ''}`;
  return { text, args: [...owned, threadId, threadId, ...owned, threadId, threadId, ...owned, threadId, ...owned] };
}

/** The savepoint of an append in an application's transaction (see host-append.ts). */
const SAVEPOINT = 'nestjs_agent_store_append';

/** The rows of `history` in their order: by part, then seq. */
export const historyOrder = (a: unknown[], b: unknown[]) => Number(a[0]) - Number(b[0]) || Number(a[1]) - Number(b[1]);

export const SQL = {
  history,
  /** The latest boundary of the thread ?, after a SELECT of its columns. */
  latest: 'FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1',
  /**
   * Scoped, after a SELECT of the boundary's columns (alias b), for the thread ?, ? and the tenant ?: one row when the
   * thread is the tenant's (boundary columns null when it has none), none when it is not. The latest boundary is found
   * by its key, (thread_id, MAX(seq)): one index lookup, no sort, however many there are.
   */
  ownedLatest:
    'FROM agent_thread t LEFT JOIN agent_boundary b ON b.thread_id = t.id AND b.seq = (SELECT MAX(seq) FROM agent_boundary WHERE thread_id = ?) WHERE t.id = ? AND t.tenant_id = ?',
  /** A session's header (the thread ?; scoped, if it is the tenant ?'s) as SESSION_COLUMNS, its parent joined. */
  header: (scoped: boolean) =>
    `SELECT ${SESSION_COLUMNS} FROM agent_thread t LEFT JOIN agent_subsession e ON e.child_id = t.id WHERE t.id = ?${scoped ? ' AND t.tenant_id = ?' : ''}`,
  /** How many messages the log holds after the cut. */
  countAfterCut: `SELECT COUNT(*) ${AFTER_CUT}`,

  /**
   * Bumps the thread's counter by the count, or creates the thread holding it, unless it was deleted
   * (id, count, now, now, id). LAST_INSERT_ID(expr) hands a bumped counter back in the statement's own reply.
   */
  upsertThread: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) SELECT ?, ?, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM agent_tombstone WHERE id = ?)
     ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + VALUES(last_seq)), updated_at = VALUES(updated_at)`,
  /** Scoped (count, now, id, tenant): only the tenant's existing thread is bumped, its new counter in the reply's insert id. */
  bumpTenantsThread: 'UPDATE agent_thread SET last_seq = LAST_INSERT_ID(last_seq + ?), updated_at = ? WHERE id = ? AND tenant_id = ?',

  savepoint: `SAVEPOINT ${SAVEPOINT}`,
  rollbackToSavepoint: `ROLLBACK TO SAVEPOINT ${SAVEPOINT}`,
  /**
   * Locks the thread's row, creating it (at 0) unless it is missing and deleted, and changes nothing
   * else: no version of ours for the snapshot read after it to see (id, now, now, id). LAST_INSERT_ID(last_seq + 1) puts
   * the count as locked, plus one, in the reply's insert id, which is 0 when the row was created.
   */
  lockAndCount: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) SELECT ?, 0, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM agent_tombstone WHERE id = ?)
  ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1) - 1`,
  /** Scoped (id, tenant): the tenant's thread locked, with its count; no row when it is not the tenant's. */
  lockTenantsThread: 'SELECT last_seq FROM agent_thread WHERE id = ? AND tenant_id = ? FOR UPDATE',
  /** Sets the thread's counter (last, now, id). */
  setCount: 'UPDATE agent_thread SET last_seq = ?, updated_at = ? WHERE id = ?',

  /** The thread ?'s count: as locked (`locking`), or as the transaction's snapshot holds it (a plain read takes the snapshot if there was none). */
  lastSeq: (locking: boolean) => `SELECT last_seq FROM agent_thread WHERE id = ?${locking ? ' FOR UPDATE' : ''}`,
  /** Locks the row (creating it when missing, as the store's upsert does, gap locks included) without changing it or taking a snapshot (id, now, now). */
  lockUnchanged: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (?, 0, ?, ?)
  ON DUPLICATE KEY UPDATE last_seq = last_seq`,

  /**
   * Creates the thread (id, now, now, id) unless it exists. INSERT IGNORE would swallow every error, and ON DUPLICATE KEY
   * locks the row; a read-committed INSERT … SELECT reads without locking.
   */
  ensureThread: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at)
          SELECT ?, 0, ?, ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM agent_thread WHERE id = ?)`,
  /** Adds the count to the thread's counter, or creates it holding the count (id, count, now, now). */
  reserveSeqs: `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE last_seq = last_seq + VALUES(last_seq), updated_at = VALUES(updated_at)`,
  /** The tombstone of the thread ?, by a locking read: the latest committed row at any level. */
  tombstone: 'SELECT 1 FROM agent_tombstone WHERE id = ? LOCK IN SHARE MODE',
  /** The clause after an INSERT whose key `keys` is taken: keeping the row sets a key column to itself (INSERT IGNORE would swallow every other error too). */
  onConflict: (keys: string[], update: string[]) =>
    `ON DUPLICATE KEY UPDATE ${update.length === 0 ? `${keys[0]} = ${keys[0]}` : update.map((column) => `${column} = VALUES(${column})`).join(', ')}`,
};
