// Session headers, events and deletion. Like message.repository.ts, these run
// inside a StoreDatabase transaction and read by index.
import type { JsonObject, JsonValue } from '../message.types.js';
import type { SessionEntry, SessionListOptions, SessionMeta, SessionPage, StoredSessionEvent } from '../session.types.js';
import { StoreValidationError } from '../store.errors.js';
import { dateOf, idOf } from '../validation.js';
import { toStoredMessage } from './message.repository.js';
import type { StoreTx } from './store-client.js';

const META_SELECT = {
  id: true,
  tenantId: true,
  title: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
  parentEdge: { select: { parentId: true } },
} as const;

type MetaRow = {
  id: string;
  tenantId: string | null;
  title: string | null;
  metadata: unknown;
  createdAt: Date;
  updatedAt: Date;
  parentEdge: { parentId: string } | null;
};

const toMeta = (row: MetaRow): SessionMeta => ({
  id: row.id,
  tenantId: row.tenantId,
  title: row.title,
  parentId: row.parentEdge?.parentId ?? null,
  metadata: (row.metadata ?? null) as JsonObject | null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The session's header; null when it does not exist, or (with `tenantId`) is another tenant's. */
export async function metaOf(tx: StoreTx, id: string, tenantId?: string): Promise<SessionMeta | null> {
  const row = await tx.agentThread.findUnique({ where: { id, tenantId }, select: META_SELECT });
  return row && toMeta(row);
}

export async function isDeleted(tx: StoreTx, id: string): Promise<boolean> {
  return (await tx.agentTombstone.count({ where: { id } })) > 0;
}

export async function insertSession(
  tx: StoreTx,
  session: { id: string; tenantId: string | null; title: string | null; metadata: JsonObject | null },
  now: Date,
): Promise<void> {
  await tx.agentThread.create({
    data: { id: session.id, tenantId: session.tenantId, title: session.title, metadata: (session.metadata ?? undefined) as never, createdAt: now, updatedAt: now },
  });
}

/** Sets the fields given; null clears one. */
export async function updateHeader(tx: StoreTx, id: string, changes: { title?: string | null; metadata?: JsonObject | null }): Promise<void> {
  await tx.agentThread.update({ where: { id }, data: { title: changes.title, metadata: changes.metadata as never } });
}

export async function insertEvents(tx: StoreTx, threadId: string, events: { seq: number; type: string; data: JsonValue; createdAt: Date }[]): Promise<void> {
  if (events.length === 0) return;
  await tx.agentMessage.createMany({
    data: events.map((event) => ({ threadId, seq: event.seq, eventType: event.type, content: event.data as never, createdAt: event.createdAt })),
  });
}

/** Every message and event of the session's log, in append order. */
export async function entriesOf(tx: StoreTx, threadId: string): Promise<SessionEntry[]> {
  const rows = await tx.agentMessage.findMany({
    where: { threadId },
    orderBy: { seq: 'asc' },
    select: { seq: true, role: true, eventType: true, content: true, messageId: true, metadata: true, createdAt: true },
  });
  return rows.map((row) =>
    row.eventType === null
      ? toStoredMessage(row)
      : ({ seq: row.seq, type: row.eventType, data: row.content as JsonValue, createdAt: row.createdAt } satisfies StoredSessionEvent),
  );
}

/**
 * Deletes sessions and everything they own (messages, boundaries, repairs and
 * their edges, by the database's cascades), and leaves tombstones so that no
 * later write brings them back.
 */
export async function deleteSessions(tx: StoreTx, ids: string[], now: Date): Promise<void> {
  await tx.agentTombstone.createMany({ data: ids.map((id) => ({ id, deletedAt: now })) });
  await tx.agentThread.deleteMany({ where: { id: { in: ids } } });
}

export async function listSessions(tx: StoreTx, options: Required<Pick<SessionListOptions, 'limit'>> & SessionListOptions): Promise<SessionPage> {
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const rows = await tx.agentThread.findMany({
    where: {
      ...(options.tenantId !== undefined && { tenantId: options.tenantId }),
      ...(options.parentId !== undefined && { parentEdge: { parentId: options.parentId } }),
      ...((options.createdAfter || options.createdBefore) && { createdAt: { gt: options.createdAfter, lt: options.createdBefore } }),
      // Newest first: the next page holds what sorts after the cursor's (createdAt, id).
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
    select: META_SELECT,
  });
  const page = rows.slice(0, options.limit).map(toMeta);
  const last = page.at(-1);
  return { sessions: page, nextCursor: rows.length > options.limit && last ? encodeCursor(last) : null };
}

const encodeCursor = (meta: SessionMeta) => Buffer.from(JSON.stringify([meta.createdAt.getTime(), meta.id])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    // A forged time could be no Date at all; a forged id anything: both are held to what the store writes.
    if (Number.isSafeInteger(time) && typeof id === 'string') return { createdAt: dateOf(new Date(time as number), 'cursor'), id: idOf(id, 'cursor') };
  } catch {
    // reported below like any other malformed cursor
  }
  throw new StoreValidationError('cursor is not one this store handed out');
}
