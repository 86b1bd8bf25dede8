// A fork in one write transaction on the driver the store's fast paths run on: the plan's reads in
// one statement, the copy in the database, and a check of what was copied, in SQL all three
// databases speak. The entry point (session-forks.ts) decides when it runs.
import type { CheckedFork } from '../../engine/lifecycle-options.js';
import type { JsonObject } from '../../message.types.js';
import type { SessionMeta } from '../../session.types.js';
import { driverDate, fromColumns, MESSAGE_COLUMNS } from '../../engine/row-codec.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { LOG_PAGE, readPaged } from '../../engine/paged-reads.js';
import type { Run } from '../../engine/adapter-statement.js';
import { SESSION_COLUMNS } from '../../engine/portable-sql.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { copiedBoundary, COPY_MESSAGES, cutOf, planOf, sameRows, SourceChanged, type BoundaryRow, type ForkPlan, type LogEntry } from './fork-plan.js';
import { deletedIdRefusal, takenIdRefusal } from './session-ids.js';
import type { Dialect } from '../../engine/dialect.js';

/** What the driver's transaction made of a fork: the new session's header, or (nothing written) the plan of one that needs a repair boundary. */
export type DriverFork = { meta: SessionMeta } | { plan: ForkPlan };

/**
 * The fork in one write transaction on the driver (READ COMMITTED; SQLite's is its one writer's). The plan's reads
 * are one statement, which sees one snapshot as planFork's transaction does: the source's header, last seq, latest
 * boundary (with a repair's evidence) and log after its cut, and whether the fork's id is free (a longer log's rest
 * follows a page at a time; below the last seq rows only go, so the statement also counts them, and a log that
 * read fewer is one that lost rows meanwhile: planned again). Reads in statements of their
 * own would not do here: a replaceHistory committed between the read of the last seq and that of the log would
 * leave the plan and the copy both empty, and the check content. Then the fork's header, its boundary (and
 * evidence), the rows after the cut by INSERT … SELECT; then one statement checks what was copied, that the source
 * still holds the boundary copied, and (but on MySQL, whose check is a locking read right after the header's
 * insert, as its dialect's) that the fork's id was not deleted since it was found free. The header is returned as
 * written: a new session has no parent.
 */
export async function forkOnDriver(
  run: Run,
  dialect: Dialect,
  sourceId: string,
  options: CheckedFork & { id: string },
  tenantId: string | undefined,
): Promise<DriverFork> {
  const forkId = options.id;
  const scoped = tenantId !== undefined;
  const read = await run(
    scoped ? FORK_SQL.scopedPlan : FORK_SQL.plan,
    scoped ? [forkId, forkId, sourceId, tenantId, sourceId, tenantId, sourceId, LOG_PAGE] : [forkId, forkId, sourceId, sourceId, sourceId, LOG_PAGE],
  );
  const head = read.find((row) => Number(row[0]) === 0)?.slice(1);
  if (!head) throw notFound(sourceId);
  const source = sessionOf(head);
  const lastSeq = Number(head[9]);
  const boundary = boundaryOf(head.slice(10, 20));
  const log = read
    .filter((row) => Number(row[0]) === 1)
    .map((row) => logEntry(row.slice(1 + PLAN_COLUMNS.length)))
    .sort((a, b) => a.seq - b.seq);
  // A log longer than the first statement's seqs: the rest a page at a time, as forkCut reads it.
  const firstEnd = (boundary?.cutSeq ?? 0) + LOG_PAGE;
  if (firstEnd < lastSeq)
    log.push(...(await readPaged(async (after, take) => (await run(FORK_SQL.logPage, [sourceId, after, lastSeq, take])).map(logEntry), firstEnd)));
  // Rows a page did not find went after the first statement (a prune, a replaceHistory): the check could not tell.
  if (log.length !== Number(head[23])) throw new SourceChanged(sourceId);
  const plan = planOf(source, cutOf(sourceId, options, lastSeq, boundary, log), options);
  if (plan.repair) return { plan };
  // assertIdFree, on what the first statement read of the fork's id.
  if (Number(head[20]) > 0) throw deletedIdRefusal(forkId, scoped);
  if (head[21] !== null) throw takenIdRefusal(forkId, head[22] === source.tenantId, scoped);
  const { cut } = plan;
  const now = new Date();
  const title = options.title ?? source.title;
  const metadata = options.metadata ?? source.metadata;
  const metadataText = metadata === null ? null : JSON.stringify(metadata);
  const lastForkSeq = Math.max(cut.endSeq, cut.kept > 0 ? cut.boundary!.seq : 0);
  await run(FORK_SQL.insertThread, [forkId, source.tenantId, title, metadataText, lastForkSeq, sourceId, cut.originSeq, now, now]);
  const lockingTombstone = dialect.tombstoneLockingRead;
  if (lockingTombstone && (await run(lockingTombstone, [forkId])).length > 0) throw deletedIdRefusal(forkId, scoped);
  const copied = copiedBoundary(cut);
  if (copied) {
    const { seq, kind, cutSeq, messages, messageCount, sourceCount, retainedCount, createdAt } = copied;
    await run(FORK_SQL.insertBoundary, [forkId, seq, kind, cutSeq, messages, messageCount, sourceCount, retainedCount, createdAt]);
    const evidence = cut.boundary!.repair;
    if (evidence) await run(FORK_SQL.insertRepair, [forkId, seq, evidence.message, evidence.createdAt]);
  }
  const from = cut.boundary?.cutSeq ?? 0;
  if (cut.endSeq > from) await run(COPY_MESSAGES, [forkId, sourceId, from, cut.endSeq]);
  const check = FORK_SQL.check(scoped, !lockingTombstone);
  const args = [sourceId, cut.lastSeq, sourceId, ...(scoped ? [tenantId] : []), forkId, from, cut.endSeq, ...(lockingTombstone ? [] : [forkId])];
  const found = (await run(check, args)).map(([part, seq, eventType]) => ({ part: Number(part), seq: seq === null ? null : Number(seq), eventType }));
  if (found.some((row) => row.part === 2)) throw deletedIdRefusal(forkId, scoped);
  const held = found.find((row) => row.part === 0);
  const rows = found
    .filter((row) => row.part === 1)
    .map((row) => ({ seq: row.seq!, eventType: row.eventType as string | null }))
    .sort((a, b) => a.seq - b.seq);
  if (!sameRows(rows, cut.rows) || !held || held.seq !== (cut.boundary?.seq ?? null)) throw new SourceChanged(sourceId);
  return {
    meta: {
      id: forkId,
      tenantId: source.tenantId,
      title,
      parentId: null,
      forkedFrom: { sessionId: sourceId, seq: cut.originSeq },
      metadata: metadataText === null ? null : (JSON.parse(metadataText) as JsonObject),
      createdAt: now,
      updatedAt: now,
    },
  };
}

/** The latest boundary's columns (seq, kind, cut_seq, messages, message_count, source_count, retained_count, created_at, then the repair's message and created_at) as a BoundaryRow; null when there is none. */
function boundaryOf([
  seq,
  kind,
  cutSeq,
  messages,
  messageCount,
  sourceCount,
  retainedCount,
  createdAt,
  repairMessage,
  repairCreatedAt,
]: unknown[]): BoundaryRow | null {
  if (seq === null) return null;
  return {
    seq: Number(seq),
    kind: kind as string,
    cutSeq: Number(cutSeq),
    messages: messages as string,
    messageCount: Number(messageCount),
    sourceCount: Number(sourceCount),
    retainedCount: retainedCount === null ? null : Number(retainedCount),
    createdAt: driverDate(createdAt),
    repair: kind === 'repair' && repairMessage !== null ? { message: repairMessage as string, createdAt: driverDate(repairCreatedAt) } : null,
  };
}

/** A row of FORK_SQL.logPage: seq, MESSAGE_COLUMNS, event_type. */
const logEntry = (row: unknown[]): LogEntry => {
  const eventType = row[8] as string | null;
  return { seq: Number(row[0]), eventType, message: eventType === null ? fromColumns(row.slice(0, 8)) : null };
};

/** The plan's columns of part 0 (see FORK_SQL.plan). */
const PLAN_COLUMNS = [
  ...SESSION_COLUMNS.split(', '),
  't.last_seq',
  ...['seq', 'kind', 'cut_seq', 'messages', 'message_count', 'source_count', 'retained_count', 'created_at'].map((column) => `b.${column}`),
  'r.message',
  'r.created_at',
  '(SELECT COUNT(*) FROM agent_tombstone WHERE id = ?)',
  'f.id',
  'f.tenant_id',
  // The source's log after the cut up to its last seq, counted in the same snapshot.
  '(SELECT COUNT(*) FROM agent_message x WHERE x.thread_id = t.id AND x.seq > COALESCE(b.cut_seq, 0) AND x.seq <= t.last_seq)',
];

/** The columns of a row of the log, as logEntry reads them. */
const LOG_COLUMNS = ['seq', ...MESSAGE_COLUMNS.split(', '), 'event_type'];

/** The latest boundary of the source (as t) at or below its last seq: its key. */
const LATEST_BOUNDARY = 'b.thread_id = t.id AND b.seq = (SELECT MAX(seq) FROM agent_boundary WHERE thread_id = t.id AND seq <= t.last_seq)';

/** The fork's statements on the driver, with `?` placeholders (the kit numbers them), in SQL all three databases speak. */
const FORK_SQL = {
  /**
   * The plan's reads in one statement, one snapshot, in parts. 0: the source ? (scoped: if it is the tenant ?'s), its header
   * (SESSION_COLUMNS), last seq, latest boundary at or below it (its repair's evidence), and of the fork's id ? (given
   * first, twice): whether it has a tombstone, and the id and tenant of its thread. 1: the source's log after that
   * boundary's cut up to its last seq, and at most ? seqs past the cut (LOG_COLUMNS), the bounds read from a one-row derived
   * table, which MariaDB reads first, as constants, and bounds the log's index range with (a bound of seqs, not a LIMIT: a
   * LIMIT on rows in seq order had PostgreSQL walk the thread's index from its start); scoped, only when the source is the
   * tenant's. No ORDER BY: the caller puts the rows in order.
   */
  plan: planSql(false),
  scopedPlan: planSql(true),
  /** The source ?'s log after seq ? up to seq ? (its last), a page of at most ? rows: seq, MESSAGE_COLUMNS, event_type. */
  logPage: `SELECT seq, ${MESSAGE_COLUMNS}, event_type FROM agent_message WHERE thread_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  insertThread:
    'INSERT INTO agent_thread (id, tenant_id, title, metadata, last_seq, forked_from, fork_seq, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  insertBoundary:
    'INSERT INTO agent_boundary (thread_id, seq, kind, cut_seq, messages, message_count, source_count, retained_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  insertRepair: 'INSERT INTO agent_repair (thread_id, seq, message, created_at) VALUES (?, ?, ?, ?)',
  /**
   * After the copy, in parts: 0, the source ?'s latest boundary at or below seq ? (NULL: none), one row if the source ? is
   * there (scoped: the tenant ?'s); 1, the fork ?'s rows after seq ? up to seq ?, seq and event type; 2 (with `tombstone`),
   * one row if the fork's id ? has a tombstone, as the statement's snapshot holds it (READ COMMITTED: every delete committed before it).
   */
  check: (scoped: boolean, tombstone: boolean) =>
    `SELECT 0, (SELECT MAX(seq) FROM agent_boundary WHERE thread_id = ? AND seq <= ?), NULL FROM agent_thread WHERE id = ?${scoped ? ' AND tenant_id = ?' : ''}
     UNION ALL SELECT 1, seq, event_type FROM agent_message WHERE thread_id = ? AND seq > ? AND seq <= ?` +
    (tombstone ? ' UNION ALL SELECT 2, NULL, NULL FROM agent_tombstone WHERE id = ?' : ''),
};

function planSql(scoped: boolean): string {
  const tenant = scoped ? ' AND t.tenant_id = ?' : '';
  const nulls = (count: number) => Array<string>(count).fill('NULL').join(', ');
  return `SELECT 0, ${PLAN_COLUMNS.join(', ')}, ${nulls(LOG_COLUMNS.length)}
    FROM agent_thread t
    LEFT JOIN agent_subsession e ON e.child_id = t.id
    LEFT JOIN agent_boundary b ON ${LATEST_BOUNDARY}
    LEFT JOIN agent_repair r ON r.thread_id = b.thread_id AND r.seq = b.seq
    LEFT JOIN agent_thread f ON f.id = ?
    WHERE t.id = ?${tenant}
    UNION ALL
    SELECT 1, ${nulls(PLAN_COLUMNS.length)}, p.* FROM (
      SELECT ${LOG_COLUMNS.map((column) => `m.${column}`).join(', ')}
      FROM (SELECT MAX(t.last_seq) AS last_seq, COALESCE(MAX(b.cut_seq), 0) AS cut
            FROM agent_thread t LEFT JOIN agent_boundary b ON ${LATEST_BOUNDARY} WHERE t.id = ?${tenant}) c
      JOIN agent_message m ON m.thread_id = ? AND m.seq > c.cut AND m.seq <= c.last_seq AND m.seq <= c.cut + ?) p`;
}
