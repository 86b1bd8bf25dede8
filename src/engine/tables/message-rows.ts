// Reads and writes of messages and boundaries. Callers run these inside a
// StoreDatabase transaction; every query is an index range scan on (thread_id, seq).
import { isDeepStrictEqual } from 'node:util';
import type { Message, RepairRecord, StoredMessage } from '../../message.types.js';
import { StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../store.errors.js';
import { MAX_INTEGER } from '../../values/validation.js';
import { MAX_INSERT_ROWS } from '../insert-runs.js';
import { deserializeMessage, serializeMessage } from '../../values/message-json.js';
import { asStored, boundaryMessages, boundaryText, MESSAGE_COLUMNS, messageColumns, messageFields, toStoredMessage } from '../row-codec.js';
import { insertRaw } from '../raw-inserts.js';
import type { StoreTx } from '../dialect.js';

/** The columns of a message row (see MessageFields). */
export const MESSAGE_SELECT = {
  seq: true,
  role: true,
  content: true,
  messageId: true,
  metadata: true,
  providerOptions: true,
  valueTypes: true,
  createdAt: true,
} as const;

/** Selects messages, never a session's events. */
const MESSAGES_ONLY = { eventType: null };

export interface Boundary {
  seq: number;
  cutSeq: number;
  messages: Message[];
}

/**
 * Locks the thread (creating it if needed) and hands out `count` sequence
 * numbers; returns the last one. The tombstone check comes after the lock, so
 * a delete that committed meanwhile is seen: a deleted thread is not found.
 */
export async function reserveSeqs(tx: StoreTx, threadId: string, count: number): Promise<number> {
  const last = await tx.dialect.reserveSeqs(tx.prisma, threadId, count, new Date(), tx.inHost);
  await assertNotDeleted(tx, threadId);
  assertSeqInRange(threadId, last);
  return last;
}

/** PostgreSQL and MySQL refuse a seq past their INTEGER column themselves; SQLite's integers are wider. */
export function assertSeqInRange(threadId: string, last: number): void {
  if (last > MAX_INTEGER) throw new StoreValidationError(`thread ${threadId} has used up its sequence numbers (at most ${MAX_INTEGER})`);
}

export async function assertNotDeleted(tx: StoreTx, threadId: string): Promise<void> {
  if (await tx.dialect.isDeleted(tx.prisma, threadId, tx.inHost)) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
}

export async function insertMessages(tx: StoreTx, threadId: string, firstSeq: number, messages: Message[]): Promise<StoredMessage[]> {
  await insertRows(
    tx,
    threadId,
    messages.map((message, i) => ({ seq: firstSeq + i, message })),
  );
  return messages.map((message, i) => asStored(message, firstSeq + i));
}

/** Inserts messages at the sequence numbers they carry. */
export async function insertStoredMessages(tx: StoreTx, threadId: string, messages: StoredMessage[]): Promise<void> {
  await insertRows(
    tx,
    threadId,
    messages.map((message) => ({ seq: message.seq, message })),
  );
}

const MESSAGE_ROW = ['thread_id', 'seq', ...MESSAGE_COLUMNS.split(', ')];

/** One statement, or several for a long batch (see insertRaw). */
async function insertRows(tx: StoreTx, threadId: string, messages: { seq: number; message: Message }[]): Promise<void> {
  if (messages.length === 0) return;
  await insertRaw(tx, 'agent_message', MESSAGE_ROW, messages, ({ seq, message }) => [threadId, seq, ...messageColumns(message)]);
}

export async function latestBoundary(tx: StoreTx, threadId: string): Promise<Boundary | null> {
  const row = await tx.prisma.agentBoundary.findFirst({
    where: { threadId },
    orderBy: { seq: 'desc' },
    select: { seq: true, cutSeq: true, messages: true },
  });
  return row && { seq: row.seq, cutSeq: row.cutSeq, messages: boundaryMessages(row.messages) };
}

/** The latest boundary's counts only: no JSON is read. */
export async function latestBoundaryCounts(tx: StoreTx, threadId: string): Promise<{ cutSeq: number; messageCount: number } | null> {
  return tx.prisma.agentBoundary.findFirst({ where: { threadId }, orderBy: { seq: 'desc' }, select: { cutSeq: true, messageCount: true } });
}

/** Whether the message at `seq` is still stored: clear and replaceHistory delete the whole log. */
export async function messageExists(tx: StoreTx, threadId: string, seq: number): Promise<boolean> {
  return (await tx.prisma.agentMessage.findUnique({ where: { threadId_seq: { threadId, seq } }, select: { seq: true } })) !== null;
}

/** The messages after `afterSeq` in order: all of them, or the first `limit`. */
export async function messagesAfter(tx: StoreTx, threadId: string, afterSeq: number, limit?: number): Promise<StoredMessage[]> {
  const rows = await tx.prisma.agentMessage.findMany({
    where: { threadId, seq: { gt: afterSeq }, ...MESSAGES_ONLY },
    orderBy: { seq: 'asc' },
    take: limit,
    select: MESSAGE_SELECT,
  });
  return rows.map((row) => toStoredMessage({ ...row, role: row.role! }));
}

/**
 * Whether a held message is the one given again: the same role, content, metadata
 * and provider options (its time aside), key order aside (a row written before
 * the text columns, or a client whose JSON reorders keys, is the same message).
 */
export function sameMessage(stored: Message, given: Message): boolean {
  // Compared in their JSON form: URLs and bytes as their text (a URL object has no properties to compare).
  const [a, b] = [stored, given].map((message) => {
    const fields = messageFields(message);
    const types = fields.valueTypes === null ? [] : (JSON.parse(fields.valueTypes) as unknown[]).map((type) => JSON.stringify(type)).sort();
    return [fields.role, ...[fields.content, fields.metadata, fields.providerOptions].map((text) => text && JSON.parse(text)), types];
  });
  return isDeepStrictEqual(a, b);
}

export const otherContent = (threadId: string, stored: StoredMessage) =>
  new StoreConflictError(
    `thread ${threadId} already holds message id ${JSON.stringify(stored.id)} (seq ${stored.seq}) with other content: ` +
      'a message id is stored once; append the new content under a new id. Nothing was written',
  );

/** The thread's messages that have one of `ids` (with `tenantId`: only if the thread is that tenant's), in batches the database binds. */
export async function messagesWithIds(tx: StoreTx, threadId: string, ids: string[], tenantId?: string): Promise<StoredMessage[]> {
  const found: StoredMessage[] = [];
  for (let i = 0; i < ids.length; i += MAX_INSERT_ROWS) {
    const rows = await tx.prisma.agentMessage.findMany({
      where: { threadId, messageId: { in: ids.slice(i, i + MAX_INSERT_ROWS) }, ...MESSAGES_ONLY, ...(tenantId !== undefined && { thread: { tenantId } }) },
      select: MESSAGE_SELECT,
    });
    found.push(...rows.map((row) => toStoredMessage({ ...row, role: row.role! })));
  }
  return found;
}

export function countMessagesAfter(tx: StoreTx, threadId: string, cutSeq: number): Promise<number> {
  return tx.prisma.agentMessage.count({ where: { threadId, seq: { gt: cutSeq }, ...MESSAGES_ONLY } });
}

/** The seq of the n-th (1-based) message after `cutSeq`. */
export async function nthMessageSeqAfter(tx: StoreTx, threadId: string, cutSeq: number, n: number): Promise<number> {
  const row = await tx.prisma.agentMessage.findFirst({
    where: { threadId, seq: { gt: cutSeq }, ...MESSAGES_ONLY },
    orderBy: { seq: 'asc' },
    skip: n - 1,
    select: { seq: true },
  });
  if (!row) throw new Error(`thread ${threadId} has fewer than ${n} messages after seq ${cutSeq}`);
  return row.seq;
}

export interface NewBoundary {
  seq: number;
  kind: 'compaction' | 'repair';
  cutSeq: number;
  messages: Message[];
  sourceCount: number;
  retainedCount: number | null;
  createdAt: Date;
}

export async function insertBoundary(tx: StoreTx, threadId: string, boundary: NewBoundary): Promise<void> {
  await tx.prisma.agentBoundary.create({
    data: {
      threadId,
      seq: boundary.seq,
      kind: boundary.kind,
      cutSeq: boundary.cutSeq,
      messages: boundaryText(boundary.messages),
      messageCount: boundary.messages.length,
      sourceCount: boundary.sourceCount,
      retainedCount: boundary.retainedCount,
      createdAt: boundary.createdAt,
    },
  });
}

/** The thread's boundaries in log order (after `afterSeq`, at most `take`), each repair with its evidence. */
export async function boundariesOf(tx: StoreTx, threadId: string, afterSeq = 0, take?: number): Promise<(NewBoundary & { repairMessage: Message | null })[]> {
  const rows = await tx.prisma.agentBoundary.findMany({
    where: { threadId, seq: { gt: afterSeq } },
    orderBy: { seq: 'asc' },
    take,
    select: {
      seq: true,
      kind: true,
      cutSeq: true,
      messages: true,
      sourceCount: true,
      retainedCount: true,
      createdAt: true,
      repair: { select: { message: true } },
    },
  });
  return rows.map((row) => ({
    seq: row.seq,
    kind: row.kind as NewBoundary['kind'],
    cutSeq: row.cutSeq,
    messages: boundaryMessages(row.messages),
    sourceCount: row.sourceCount,
    retainedCount: row.retainedCount,
    createdAt: row.createdAt,
    repairMessage: row.repair ? deserializeMessage(JSON.parse(row.repair.message)) : null,
  }));
}

export async function insertRepair(tx: StoreTx, threadId: string, seq: number, repairMessage: Message): Promise<void> {
  await tx.prisma.agentRepair.create({ data: { threadId, seq, message: JSON.stringify(serializeMessage(repairMessage)), createdAt: repairMessage.createdAt } });
}

export async function repairsOf(tx: StoreTx, threadId: string): Promise<RepairRecord[]> {
  const rows = await tx.prisma.agentRepair.findMany({
    where: { threadId },
    orderBy: { seq: 'asc' },
    select: { seq: true, message: true, createdAt: true, boundary: { select: { sourceCount: true } } },
  });
  return rows.map((row) => ({
    seq: row.seq,
    repairMessage: deserializeMessage(JSON.parse(row.message)),
    sourceMessageCount: row.boundary.sourceCount,
    createdAt: row.createdAt,
  }));
}

export async function transcriptOf(tx: StoreTx, threadId: string): Promise<StoredMessage[]> {
  return messagesAfter(tx, threadId, 0);
}

/** Removes the thread's whole log: messages, events, boundaries and (by cascade) repairs. The thread stays. */
export async function deleteLog(tx: StoreTx, threadId: string): Promise<void> {
  await tx.prisma.agentMessage.deleteMany({ where: { threadId } });
  await tx.prisma.agentBoundary.deleteMany({ where: { threadId } });
}

/**
 * Locks an existing thread for the rest of the transaction; false when it does
 * not exist, or (with `tenantId`) belongs to another tenant.
 */
export async function lockThread(tx: StoreTx, threadId: string, now: Date, tenantId?: string): Promise<boolean> {
  const { count } = await tx.prisma.agentThread.updateMany({ where: { id: threadId, tenantId }, data: { updatedAt: now } });
  return count > 0;
}

/** Whether the thread exists (with `tenantId`: as that tenant's), read in the caller's snapshot. */
export async function threadExists(tx: StoreTx, threadId: string, tenantId?: string): Promise<boolean> {
  return (await tx.prisma.agentThread.findFirst({ where: { id: threadId, tenantId }, select: { id: true } })) !== null;
}

/** The last sequence number the thread handed out; null when the thread does not exist. */
export async function lastSeqOf(tx: StoreTx, threadId: string): Promise<number | null> {
  const row = await tx.prisma.agentThread.findUnique({ where: { id: threadId }, select: { lastSeq: true } });
  return row?.lastSeq ?? null;
}

/** The seq of the thread's first message (events aside); null when it has none. */
export async function firstMessageSeq(tx: StoreTx, threadId: string): Promise<number | null> {
  const row = await tx.prisma.agentMessage.findFirst({ where: { threadId, ...MESSAGES_ONLY }, orderBy: { seq: 'asc' }, select: { seq: true } });
  return row?.seq ?? null;
}
