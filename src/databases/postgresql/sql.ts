// PostgreSQL's own statements, in one table: the fast paths' reads and appends
// (fast-paths.ts) and the tombstone probe the kit's dialect shares with them.
// The statements every database spells alike are in engine/portable-sql.ts.
import type { Arg } from '../../engine/adapter-statement.js';
import { MESSAGE_COLUMNS } from '../../engine/row-codec.js';

/** A statement with its arguments, numbered as its text numbers them. */
interface Numbered {
  text: string;
  args: Arg[];
}

/** How PostgreSQL spells a statement's i-th parameter (from 0). */
export const placeholder = (index: number) => `$${index + 1}`;

// The thread is $1. PostgreSQL bounds the index range on (thread_id, seq) with a one-row CTE joined
// to the log (with a scalar subquery it may scan the thread when its estimates say so).
// Scoped, the tenant is $2: a one-row CTE says whether the thread is the tenant's,
// and every other branch is gated on it, so another tenant's log is never read.
const OWNED = 'o AS (SELECT 1 FROM agent_thread WHERE id = $1 AND tenant_id = $2)';
const gate = (scoped: boolean) => (scoped ? ' AND EXISTS (SELECT 1 FROM o)' : '');
const ctes = (scoped: boolean, boundaryColumns: string, cut: string) =>
  `WITH ${scoped ? `${OWNED}, ` : ''}b AS (SELECT ${boundaryColumns} FROM agent_boundary WHERE thread_id = $1${gate(scoped)} ORDER BY seq DESC LIMIT 1), c AS (SELECT ${cut} FROM b)`;
const afterCut = (scoped: boolean) => `agent_message m ON m.thread_id = $1 AND m.seq > c.cut AND m.event_type IS NULL${gate(scoped)}`;
/** MESSAGE_COLUMNS of the table alias `alias`. */
const prefixed = (alias: string) =>
  MESSAGE_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
/** Typed NULLs for the text columns of MESSAGE_COLUMNS a row of the UNION does not hold (all but created_at are text). */
const nullTexts = (count: number) => Array(count).fill('NULL::text').join(', ');

/** The effective history: the latest boundary's messages (part 0), then the log after its cut (part 1); scoped, first a row of part -1 when the thread is the tenant's. */
const history = (scoped: boolean) => `${ctes(scoped, 'cut_seq, messages', 'COALESCE(MAX(cut_seq), 0) AS cut')}
  ${scoped ? `SELECT -1 AS part, NULL::integer, ${nullTexts(6)}, NULL::timestamp(3) FROM o UNION ALL` : ''}
  SELECT 0 AS part, NULL::integer, NULL::text, b.messages, ${nullTexts(4)}, NULL::timestamp(3) FROM b
  UNION ALL
  SELECT 1, m.seq, ${prefixed('m')} FROM c JOIN ${afterCut(scoped)}
  ORDER BY 1, 2`;
/** Whether the thread is the tenant's (1 unscoped), and the effective history's length. */
const count = (scoped: boolean) => `${ctes(scoped, 'cut_seq, message_count', 'COALESCE(MAX(cut_seq), 0) AS cut, COALESCE(MAX(message_count), 0) AS replaced')}
  SELECT ${scoped ? '(SELECT COUNT(*) FROM o)' : '1'}, c.replaced + COUNT(m.seq) FROM c LEFT JOIN ${afterCut(scoped)} GROUP BY c.replaced`;

/** Messages as a VALUES list of (ord, MESSAGE_COLUMNS), given as their messageColumns, the arguments pushed onto `args`. */
function messageValues(run: Arg[][], args: Arg[]): string {
  return run
    .map((columns, i) => {
      const at = args.length;
      args.push(...columns);
      return `(${i + 1}, ${columns.map((_, c) => `${placeholder(at + c)}${c === columns.length - 1 ? '::timestamp(3)' : ''}`).join(', ')})`;
    })
    .join(', ');
}

/** Inserts the messages of `values` after the last_seq of `source` less $2 (the count), returning their seqs. */
const insertFrom = (source: string, values: string) =>
  `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
   SELECT $1, ${source}.last_seq - $2 + m.ord, ${prefixed('m')}
   FROM ${source}, (VALUES ${values}) AS m (ord, ${MESSAGE_COLUMNS})
   RETURNING seq`;

/** Creates the thread $1 holding $2, or bumps its counter by $2 (at $3). */
const UPSERT_THREAD = `upserted AS (INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES ($1, $2, $3, $3)
  ON CONFLICT (id) DO UPDATE SET last_seq = agent_thread.last_seq + EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at RETURNING last_seq)`;
/** Bumps the counter of the thread $1 by $2 (at $3) if it is the tenant $4's. */
const BUMP_TENANTS_THREAD = 'bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1 AND tenant_id = $4 RETURNING last_seq)';

export const SQL = {
  /** The reads, one statement each (exported for the query-plan tests). */
  history: history(false),
  scopedHistory: history(true),
  count: count(false),
  scopedCount: count(true),

  /**
   * The first statement of an append of several (see fast-paths.ts appendRuns), for `count` messages in all:
   * the thread upserted, or scoped bumped if it is the tenant's, with the first run of messages. It reads
   * the counter's new value, null when scoped and the thread is not the tenant's.
   */
  firstRun(threadId: string, count: number, now: Date, tenantId: string | undefined, run: Arg[][]): Numbered {
    const args: Arg[] = tenantId === undefined ? [threadId, count, now] : [threadId, count, now, tenantId];
    const [counter, source] = tenantId === undefined ? [UPSERT_THREAD, 'upserted'] : [BUMP_TENANTS_THREAD, 'bumped'];
    const text = `WITH ${counter}, inserted AS (${insertFrom(source, messageValues(run, args))}) SELECT (SELECT last_seq FROM ${source})`;
    return { text, args };
  },

  /** A later run of a long batch: its messages inserted after seq `after` of the thread. */
  laterRun(threadId: string, after: number, run: Arg[][]): Numbered {
    const args: Arg[] = [threadId, after];
    const text = `INSERT INTO agent_message (thread_id, seq, ${MESSAGE_COLUMNS})
   SELECT $1, $2 + m.ord, ${prefixed('m')}
   FROM (VALUES ${messageValues(run, args)}) AS m (ord, ${MESSAGE_COLUMNS})`;
    return { text, args };
  },

  /**
   * A batch of normal size to the existing thread, in one statement: a CTE bumps the counter (scoped,
   * only the tenant's thread), locking the row, and the INSERT reads the new value. It reads the last
   * seq (null when no row matched) and, when none did, whether the thread has a tombstone.
   */
  appendToExisting(threadId: string, now: Date, tenantId: string | undefined, run: Arg[][]): Numbered {
    const args: Arg[] = tenantId === undefined ? [threadId, run.length, now] : [threadId, run.length, now, tenantId];
    const tenant = tenantId === undefined ? '' : ' AND tenant_id = $4';
    const text = `WITH bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1${tenant} RETURNING last_seq),
           inserted AS (${insertFrom('bumped', messageValues(run, args))})
         SELECT (SELECT MAX(seq) FROM inserted), CASE WHEN NOT EXISTS (SELECT 1 FROM bumped) THEN EXISTS (SELECT 1 FROM agent_tombstone WHERE id = $1) END`;
    return { text, args };
  },

  /** The tombstone of $1 as the statement's snapshot holds it. */
  tombstone: 'SELECT 1 FROM agent_tombstone WHERE id = $1',

  /**
   * The tombstone as last committed, at any level. In an application's transaction at REPEATABLE READ
   * or SERIALIZABLE, a read sees the transaction's snapshot, which may predate the delete; an insert
   * of the tombstone meets it whatever the snapshot, and fails (40001: StoreBusyError) when the snapshot
   * cannot see it. The insert, when nothing was there, is taken back at once.
   */
  tombstoneProbe: {
    insert: 'INSERT INTO agent_tombstone (id, deleted_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING 1',
    undo: 'DELETE FROM agent_tombstone WHERE id = $1',
  },
};
