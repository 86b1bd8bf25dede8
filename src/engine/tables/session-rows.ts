// Session headers, events and deletion. Like message-rows.ts, these run
// inside a StoreDatabase transaction and read by index.
import type { ValueTypes } from '../../values/stored-values.js';
import type { JsonObject, JsonValue } from '../../message.types.js';
import type { JsonlLogEntry } from '../../jsonl.types.js';
import type { SessionEntry, SessionMeta, StoredSessionEvent } from '../../session.types.js';
import { insertRaw } from '../raw-inserts.js';
import { MESSAGE_SELECT } from './message-rows.js';
import { toStoredMessage } from '../row-codec.js';
import { sessionOf, type SessionListQuery } from './session-list.js';
import { listSessionsSql } from '../portable-sql.js';
import type { StoreTx } from '../dialect.js';

const META_SELECT = {
  id: true,
  tenantId: true,
  title: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
  parentEdge: { select: { parentId: true } },
  forkedFrom: true,
  forkSeq: true,
} as const;

type MetaRow = {
  id: string;
  tenantId: string | null;
  title: string | null;
  metadata: string | null;
  createdAt: Date;
  updatedAt: Date;
  parentEdge: { parentId: string } | null;
  forkedFrom: string | null;
  forkSeq: number | null;
};

const toMeta = (row: MetaRow): SessionMeta => ({
  id: row.id,
  tenantId: row.tenantId,
  title: row.title,
  parentId: row.parentEdge?.parentId ?? null,
  forkedFrom: row.forkedFrom === null ? null : { sessionId: row.forkedFrom, seq: row.forkSeq! },
  metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as JsonObject),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** JSON as its column keeps it; undefined (not given) and null (cleared) pass through. */
function jsonText<T extends JsonObject | null | undefined>(value: T): string | Exclude<T, JsonObject> {
  return value === null || value === undefined ? (value as Exclude<T, JsonObject>) : JSON.stringify(value);
}

/** The session's header; null when it does not exist, or (with `tenantId`) is another tenant's. */
export async function metaOf(tx: StoreTx, id: string, tenantId?: string): Promise<SessionMeta | null> {
  const row = await tx.prisma.agentThread.findUnique({ where: { id, tenantId }, select: META_SELECT });
  return row && toMeta(row);
}

export async function isDeleted(tx: StoreTx, id: string): Promise<boolean> {
  return (await tx.prisma.agentTombstone.count({ where: { id } })) > 0;
}

export async function insertSession(
  tx: StoreTx,
  session: { id: string; tenantId: string | null; title: string | null; metadata: JsonObject | null },
  now: Date,
): Promise<void> {
  await tx.prisma.agentThread.create({
    data: { id: session.id, tenantId: session.tenantId, title: session.title, metadata: jsonText(session.metadata), createdAt: now, updatedAt: now },
  });
}

/** Sets the fields given; null clears one. */
export async function updateHeader(tx: StoreTx, id: string, changes: { title?: string | null; metadata?: JsonObject | null }): Promise<void> {
  await tx.prisma.agentThread.update({ where: { id }, data: { title: changes.title, metadata: jsonText(changes.metadata) } });
}

const EVENT_ROW = ['thread_id', 'seq', 'event_type', 'message_id', 'content', 'value_types', 'created_at'];

/**
 * Inserts events at the sequence numbers they carry: one statement, or several for a long batch (see insertRaw).
 * Events as SessionStore, ChatStore and an import write them: with the key given (an import's, a fork's,
 * or the one a binding gives its event), or none.
 */
export async function insertEvents(
  tx: StoreTx,
  threadId: string,
  events: { seq: number; type: string; data: JsonValue; valueTypes?: ValueTypes; createdAt: Date; key?: string }[],
): Promise<void> {
  if (events.length === 0) return;
  await insertRaw(tx, 'agent_message', EVENT_ROW, events, (event) => [
    threadId,
    event.seq,
    event.type,
    event.key ?? null,
    JSON.stringify(event.data),
    event.valueTypes && event.valueTypes.length > 0 ? JSON.stringify(event.valueTypes) : null,
    event.createdAt,
  ]);
}

/** Every message and event of the session's log, in append order. */
export async function entriesOf(tx: StoreTx, threadId: string): Promise<SessionEntry[]> {
  const rows = await tx.prisma.agentMessage.findMany({
    where: { threadId },
    orderBy: { seq: 'asc' },
    select: { ...MESSAGE_SELECT, eventType: true },
  });
  return rows.map((row) =>
    row.eventType === null
      ? toStoredMessage({ ...row, role: row.role! })
      : ({ seq: row.seq, type: row.eventType, data: JSON.parse(row.content) as JsonValue, createdAt: row.createdAt } satisfies StoredSessionEvent),
  );
}

/** The log's messages and events after `afterSeq` (at most `take`), in order, as the JSONL log writes them. */
export async function logRowsAfter(
  tx: StoreTx,
  threadId: string,
  afterSeq: number,
  take?: number,
): Promise<Extract<JsonlLogEntry, { type: 'message' | 'event' }>[]> {
  const rows = await tx.prisma.agentMessage.findMany({
    where: { threadId, seq: { gt: afterSeq } },
    orderBy: { seq: 'asc' },
    take,
    select: { ...MESSAGE_SELECT, eventType: true },
  });
  return rows.map((row) => {
    if (row.eventType === null) {
      const { seq, ...message } = toStoredMessage({ ...row, role: row.role! });
      return { type: 'message', seq, message };
    }
    const valueTypes = row.valueTypes === null ? undefined : (JSON.parse(row.valueTypes) as ValueTypes);
    return {
      type: 'event',
      seq: row.seq,
      event: { type: row.eventType, data: JSON.parse(row.content) as JsonValue },
      createdAt: row.createdAt,
      ...(valueTypes && { valueTypes }),
      ...(row.messageId !== null && { key: row.messageId }),
    };
  });
}

/**
 * Deletes sessions and everything they own (messages, boundaries, repairs and
 * their edges, by the database's cascades), and leaves tombstones so that no
 * later write brings them back.
 */
export async function deleteSessions(tx: StoreTx, ids: string[], now: Date): Promise<void> {
  const rows = await tx.prisma.agentThread.findMany({ where: { id: { in: ids } }, select: { id: true, tenantId: true } });
  await tx.prisma.agentTombstone.createMany({ data: rows.map(({ id, tenantId }) => ({ id, tenantId, deletedAt: now })) });
  await tx.prisma.agentThread.deleteMany({ where: { id: { in: ids } } });
}

/**
 * The headers of a page of sessions, newest first, and of one more when another page follows:
 * the fast paths' statement, so that a search matches alike on every path.
 */
export async function listSessions(tx: StoreTx, query: SessionListQuery): Promise<SessionMeta[]> {
  const { text, args } = listSessionsSql(query, (i) => tx.dialect.placeholder(i));
  const rows = await tx.prisma.$queryRawUnsafe<Record<string, unknown>[]>(text, ...args);
  return rows.map((row) => sessionOf(Object.values(row)));
}

/** Sets the header fields an import brings, on a session it created. */
export async function setHeader(
  tx: StoreTx,
  id: string,
  header: {
    tenantId?: string | null;
    title?: string | null;
    metadata?: JsonObject | null;
    createdAt?: Date;
    forkedFrom?: string | null;
    forkSeq?: number | null;
  },
): Promise<void> {
  await tx.prisma.agentThread.update({ where: { id }, data: { ...header, metadata: jsonText(header.metadata) } });
}
