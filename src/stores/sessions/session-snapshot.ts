// A session whole, for its export, as one read plan in one snapshot: its header (and parent), its
// log (messages and events), its boundaries with their repairs, and its children; four statements on
// the driver where the kit has fast paths, the same four through Prisma's raw queries elsewhere.
// The rows are turned into entries after the snapshot has ended, the process given its turns meanwhile.
import type { JsonValue } from '../../message.types.js';
import type { ValueTypes } from '../../values/stored-values.js';
import type { StoreDatabase } from '../../engine/database.js';
import type { ReadPlan, Row } from '../../engine/adapter-statement.js';
import { readPlanned } from '../../engine/store-statements.js';
import { boundaryMessages, driverDate, fromColumns, MESSAGE_COLUMNS } from '../../engine/row-codec.js';
import { SESSION_COLUMNS } from '../../engine/portable-sql.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { deserializeMessage, type SerializedMessage } from '../../values/message-json.js';
import { giveWay } from '../../engine/give-way.js';
import type { JsonlLogEntry } from '../../jsonl.types.js';
import type { SessionMeta } from '../../session.types.js';
import type { boundariesOf } from '../../engine/tables/message-rows.js';

export type StoredBoundary = Awaited<ReturnType<typeof boundariesOf>>[number];

export type MessageOrEventEntry = Extract<JsonlLogEntry, { type: 'message' | 'event' }>;

/** A session as exportJsonl writes it, read from one snapshot. */
export interface SessionSnapshot {
  meta: SessionMeta;
  /** Messages and events, as the JSONL log writes them (events with the value types of a binding's values). */
  entries: MessageOrEventEntry[];
  boundaries: StoredBoundary[];
  children: string[];
}

/** The header and its parent; scoped, only the tenant's session. */
const HEADER = `SELECT ${SESSION_COLUMNS} FROM agent_thread t LEFT JOIN agent_subsession e ON e.child_id = t.id WHERE t.id = ?`;
const SCOPED_HEADER = `${HEADER} AND t.tenant_id = ?`;
/** The whole log in append order: [seq, event_type, ...MESSAGE_COLUMNS]. */
const LOG = `SELECT seq, event_type, ${MESSAGE_COLUMNS} FROM agent_message WHERE thread_id = ? ORDER BY seq`;
/** The boundaries in log order, each with its repair's message (NULL for a compaction). */
const BOUNDARIES =
  'SELECT b.seq, b.kind, b.cut_seq, b.messages, b.source_count, b.retained_count, b.created_at, r.message AS repair_message ' +
  'FROM agent_boundary b LEFT JOIN agent_repair r ON r.thread_id = b.thread_id AND r.seq = b.seq WHERE b.thread_id = ? ORDER BY b.seq';
/** The children in registration order. */
const CHILDREN = 'SELECT child_id FROM agent_subsession WHERE parent_id = ? ORDER BY id';

interface SnapshotRows {
  header: Row;
  log: Row[];
  boundaries: Row[];
  children: Row[];
}

/** The export's reads: null, after one statement, when the session does not exist (or, scoped, is not the tenant's). */
function* snapshotPlan(id: string, tenantId: string | undefined): ReadPlan<SnapshotRows | null> {
  const [header] = yield tenantId === undefined ? { text: HEADER, args: [id] } : { text: SCOPED_HEADER, args: [id, tenantId] };
  if (header === undefined) return null;
  const log = yield { text: LOG, args: [id] };
  const boundaries = yield { text: BOUNDARIES, args: [id] };
  const children = yield { text: CHILDREN, args: [id] };
  return { header, log, boundaries, children };
}

/** A session whole, for its export, from a replica that has this store's writes, if there is one. */
export function readSnapshot(db: StoreDatabase, id: string, tenantId: string | undefined): Promise<SessionSnapshot> {
  return db.onReplica(async (on) => {
    const rows = await readPlanned(on, () => snapshotPlan(id, tenantId));
    if (!rows) throw notFound(id);
    return snapshotOf(rows);
  });
}

async function snapshotOf(rows: SnapshotRows): Promise<SessionSnapshot> {
  const entries: MessageOrEventEntry[] = [];
  for (const row of rows.log) {
    // A long log is many rows to convert: the rest of the process gets its turns meanwhile.
    const turn = giveWay();
    if (turn) await turn;
    entries.push(logEntryOf(row));
  }
  const boundaries: StoredBoundary[] = [];
  for (const row of rows.boundaries) {
    const turn = giveWay();
    if (turn) await turn;
    boundaries.push(boundaryOf(row));
  }
  return { meta: sessionOf(rows.header), entries, boundaries, children: rows.children.map(([childId]) => childId as string) };
}

/** A log row, [seq, event_type, ...MESSAGE_COLUMNS], as the JSONL log writes it (see logRowsAfter). */
function logEntryOf(row: Row): MessageOrEventEntry {
  const [seqColumn, eventType, , content, messageId, , , valueTypesText, createdAt] = row;
  const seq = Number(seqColumn);
  if (eventType === null) {
    const { seq: _seq, ...message } = fromColumns([seq, ...row.slice(2)]);
    return { type: 'message', seq, message };
  }
  const valueTypes = valueTypesText === null ? undefined : (JSON.parse(valueTypesText as string) as ValueTypes);
  return {
    type: 'event',
    seq,
    event: { type: eventType as string, data: JSON.parse(content as string) as JsonValue },
    createdAt: driverDate(createdAt),
    ...(valueTypes && { valueTypes }),
    ...(messageId !== null && { key: messageId as string }),
  };
}

/** A boundary row as boundariesOf gives it. */
function boundaryOf([seq, kind, cutSeq, messages, sourceCount, retainedCount, createdAt, repairMessage]: Row): StoredBoundary {
  return {
    seq: Number(seq),
    kind: kind as StoredBoundary['kind'],
    cutSeq: Number(cutSeq),
    messages: boundaryMessages(messages),
    sourceCount: Number(sourceCount),
    retainedCount: retainedCount === null ? null : Number(retainedCount),
    createdAt: driverDate(createdAt),
    repairMessage: repairMessage === null ? null : deserializeMessage(JSON.parse(repairMessage as string) as SerializedMessage),
  };
}
