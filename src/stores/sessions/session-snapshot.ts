// A session whole, for its export, read in one snapshot: its header (and parent), its log (messages
// and events), its boundaries with their repairs, and its children; on the driver where the kit has
// fast paths, the same statements through Prisma's raw queries elsewhere.
import type { JsonValue } from '../../message.types.js';
import type { ValueTypes } from '../../values/stored-values.js';
import type { StoreDatabase } from '../../engine/database.js';
import type { Row } from '../../engine/adapter-statement.js';
import { inStatements } from '../../engine/store-statements.js';
import { readPaged } from '../../engine/paged-reads.js';
import { boundaryMessages, driverDate, fromColumns, MESSAGE_COLUMNS } from '../../engine/row-codec.js';
import { SESSION_COLUMNS } from '../../engine/portable-sql.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { deserializeMessage, type SerializedMessage } from '../../values/message-json.js';
import { givingWay } from '../../engine/give-way.js';
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
/** A page of the log in append order, after seq ? and at most ? rows: [seq, event_type, ...MESSAGE_COLUMNS]. */
const LOG_PAGE_AFTER = `SELECT seq, event_type, ${MESSAGE_COLUMNS} FROM agent_message WHERE thread_id = ? AND seq > ? ORDER BY seq LIMIT ?`;
/** The boundaries in log order, each with its repair's message (NULL for a compaction). */
const BOUNDARIES =
  'SELECT b.seq, b.kind, b.cut_seq, b.messages, b.source_count, b.retained_count, b.created_at, r.message AS repair_message ' +
  'FROM agent_boundary b LEFT JOIN agent_repair r ON r.thread_id = b.thread_id AND r.seq = b.seq WHERE b.thread_id = ? ORDER BY b.seq';
/** The children in registration order. */
const CHILDREN = 'SELECT child_id FROM agent_subsession WHERE parent_id = ? ORDER BY id';

/**
 * A session whole, for its export, from a replica that has this store's writes, if there is one: in one read
 * transaction, the header first (nothing more when it is missing or, scoped, not the tenant's), the log a page
 * at a time, the process given its turns between statements (SQLite's run synchronously).
 */
export function readSnapshot(db: StoreDatabase, id: string, tenantId: string | undefined): Promise<SessionSnapshot> {
  return db.onReplica(async (on) => {
    const snapshot = await inStatements(on, false, async (statement) => {
      const run = givingWay(statement);
      const [header] = await run(tenantId === undefined ? HEADER : SCOPED_HEADER, tenantId === undefined ? [id] : [id, tenantId]);
      if (header === undefined) return { missing: true } as const;
      const entries = await readPaged(async (after, take) => (await run(LOG_PAGE_AFTER, [id, after, take])).map(logEntryOf), 0);
      const boundaries = (await run(BOUNDARIES, [id])).map(boundaryOf);
      const children = (await run(CHILDREN, [id])).map(([childId]) => childId as string);
      return { meta: sessionOf(header), entries, boundaries, children };
    });
    if ('missing' in snapshot) throw notFound(id);
    return snapshot;
  });
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
