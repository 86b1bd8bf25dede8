// MessageStore's data operations: one per store operation. Whether an
// operation takes its kit's fast path or the full transactional path through
// Prisma is decided here, not by the store.
import { forgedCursor, type HistoryPosition } from './message-pages.js';
import type { HistoryMessage, Message, RepairRecord, StoredMessage } from '../../message.types.js';
import { StoreConflictError, StoreValidationError, type StoreError } from '../../store.errors.js';
import type { StoreDatabase } from '../../engine/database.js';
import * as repo from '../../engine/tables/message-rows.js';
import { asHistory, asStored, fromColumns, MESSAGE_COLUMNS } from '../../engine/row-codec.js';
import { inStatements } from '../../engine/store-statements.js';
import type { StoreTx } from '../../engine/dialect.js';
import { assertOwned, lockOwned, notFound, readOwned } from '../../engine/tables/tenancy.js';

export type BoundaryKind = 'compaction' | 'repair';

/** A compaction or repair to append. */
export interface BoundaryWrite {
  kind: BoundaryKind;
  /** The new start of the effective history: the summary, or the balanced projection. */
  replacement: Message[];
  /** How many messages of the effective history `replacement` replaces. */
  source: number;
  /** Compactions: how many of `replacement` are kept verbatim. */
  retained: number | null;
  /** Repairs: the repair message, kept as evidence. */
  evidence?: Message;
  /** When given, the effective history must still start there (see historyPage's startSeq). */
  expectedStart?: number | null;
  /** When given, nothing may have been appended since the log's last seq was this (0: none). */
  expectedLastSeq?: number;
}

export class MessageLog {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's sessions exist (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  /**
   * Appends `messages` (at least one, their ids distinct) at consecutive
   * sequence numbers, creating the thread when unscoped. A message whose id the
   * thread holds is not stored again: the batch comes back as stored, the held
   * ones as they were; the same id with other content is a StoreConflictError.
   * The ids are read first and the new messages appended on the fast path; a
   * writer that stored one of them in between makes that append fail whole on
   * the unique key (thread, message id), and the batch is then appended again
   * under the thread's lock, where the ids are read and the new messages
   * inserted in one transaction: that cannot lose to another writer.
   */
  async append(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    const ids = messages.flatMap((message) => (message.id === undefined ? [] : [message.id]));
    if (ids.length === 0) return this.#appendNew(threadId, messages);
    const held = await this.#heldMessages(threadId, ids);
    const fresh = this.#freshOf(threadId, messages, held);
    try {
      return this.#asBatch(messages, held, fresh.length === 0 ? [] : await this.#appendNew(threadId, fresh));
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      return this.#appendUnderLock(threadId, messages, ids);
    }
  }

  /** The batch's messages that `held` lacks; a StoreConflictError when a held id carries other content. */
  #freshOf(threadId: string, messages: Message[], held: Map<string, StoredMessage>): Message[] {
    for (const message of messages) {
      const stored = message.id === undefined ? undefined : held.get(message.id);
      if (stored && !repo.sameMessage(stored, message)) throw repo.otherContent(threadId, stored);
    }
    return messages.filter((message) => message.id === undefined || !held.has(message.id));
  }

  /** The batch as stored: each held message as it was, the others as `appended` (in order). */
  #asBatch(messages: Message[], held: Map<string, StoredMessage>, appended: StoredMessage[]): StoredMessage[] {
    const fresh = [...appended];
    return messages.map((message) => (message.id !== undefined && held.get(message.id)) || fresh.shift()!);
  }

  /**
   * The append in one transaction under the thread's lock (a lock that writes nothing; a new thread is
   * created locked): the ids are read after every append that held the lock before, so none is missed.
   */
  #appendUnderLock(threadId: string, messages: Message[], ids: string[]): Promise<StoredMessage[]> {
    return this.db.write(async (tx) => {
      await tx.dialect.lockThreads(tx.prisma, [threadId]);
      if (!(await repo.threadExists(tx, threadId, this.tenantId))) {
        if (this.tenantId !== undefined) throw notFound(threadId);
        await repo.reserveSeqs(tx, threadId, 0);
      }
      const held = new Map<string, StoredMessage>();
      for (const message of await repo.messagesWithIds(tx, threadId, ids)) held.set(message.id!, message);
      const fresh = this.#freshOf(threadId, messages, held);
      if (fresh.length === 0) return this.#asBatch(messages, held, []);
      const last = await repo.reserveSeqs(tx, threadId, fresh.length);
      return this.#asBatch(messages, held, await repo.insertMessages(tx, threadId, last - fresh.length + 1, fresh));
    }, messages.length);
  }

  async #appendNew(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    const fast = await this.db.fastPaths();
    const last = fast ? await fast.append(threadId, messages, new Date(), this.tenantId) : await this.#appendInTransaction(threadId, messages);
    // Only a scoped append finds no thread: the session is not the tenant's.
    if (last === null) throw notFound(threadId);
    return messages.map((message, i) => asStored(message, last - messages.length + 1 + i));
  }

  /** The thread's messages with these ids, by id, in one snapshot; none when the thread is not the tenant's. */
  #heldMessages(threadId: string, ids: string[]): Promise<Map<string, StoredMessage>> {
    return this.db.read(async (tx) => {
      const held = new Map<string, StoredMessage>();
      for (const message of await repo.messagesWithIds(tx, threadId, ids, this.tenantId)) held.set(message.id!, message);
      return held;
    });
  }

  /** Scoped: StoreNotFoundError unless the thread is the tenant's. */
  async assertOwned(threadId: string): Promise<void> {
    await readOwned(this.db, threadId, this.tenantId, async () => undefined);
  }

  async history(threadId: string): Promise<HistoryMessage[]> {
    const fast = await this.db.fastPaths();
    if (fast) return this.#owned(threadId, await fast.history(threadId, this.tenantId));
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundary(tx, threadId);
      const after = await repo.messagesAfter(tx, threadId, boundary?.cutSeq ?? 0);
      return boundary ? [...asHistory(boundary.messages), ...after] : after;
    });
  }

  /** The whole effective history, where it starts (see historyPage's startSeq) and the log's last seq (0: none), in one snapshot. */
  historyWithStart(threadId: string): Promise<{ messages: HistoryMessage[]; startSeq: number | null; lastSeq: number }> {
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundary(tx, threadId);
      const after = await repo.messagesAfter(tx, threadId, boundary?.cutSeq ?? 0);
      const messages = boundary ? [...asHistory(boundary.messages), ...after] : after;
      return { messages, startSeq: await startOf(tx, threadId, boundary), lastSeq: (await repo.lastSeqOf(tx, threadId)) ?? 0 };
    });
  }

  /**
   * A page of the effective history from `from` (the start when undefined),
   * where the next page starts (null: none), and where that history starts in
   * the log (`startSeq`, see startOf).
   */
  historyPage(
    threadId: string,
    limit: number,
    from: HistoryPosition | undefined,
  ): Promise<{ messages: HistoryMessage[]; next: HistoryPosition | null; startSeq: number | null }> {
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundary(tx, threadId);
      const boundarySeq = boundary?.seq ?? 0;
      const cutSeq = boundary?.cutSeq ?? 0;
      const summary = boundary?.messages ?? [];
      if (from) await checkHistoryCursor(tx, threadId, from, { seq: boundarySeq, cutSeq, messageCount: summary.length });
      // One more than a page tells whether another page follows.
      const index = from?.index ?? 0;
      const head = asHistory(summary.slice(index, index + limit + 1));
      const afterSeq = from?.seq ?? cutSeq;
      const tail = head.length > limit ? [] : await repo.messagesAfter(tx, threadId, afterSeq, limit + 1 - head.length);
      const read = [...head, ...tail];
      const messages = read.slice(0, limit);
      // Without a boundary, the first page has just read the first message.
      const startSeq = boundary === null && from === undefined ? (read[0]?.seq ?? null) : await startOf(tx, threadId, boundary);
      if (read.length <= limit) return { messages, next: null, startSeq };
      const lastSeq = messages.findLast((message) => message.seq !== null)?.seq ?? afterSeq;
      return { messages, next: { boundarySeq, index: index + Math.min(head.length, limit), seq: lastSeq }, startSeq };
    });
  }

  async count(threadId: string): Promise<number> {
    const fast = await this.db.fastPaths();
    if (fast) return this.#owned(threadId, await fast.count(threadId, this.tenantId));
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundaryCounts(tx, threadId);
      return (boundary?.messageCount ?? 0) + (await repo.countMessagesAfter(tx, threadId, boundary?.cutSeq ?? 0));
    });
  }

  async clear(threadId: string): Promise<void> {
    await this.db.write(async (tx) => {
      if (await repo.lockThread(tx, threadId, new Date(), this.tenantId)) await repo.deleteLog(tx, threadId);
      else if (this.tenantId !== undefined) throw notFound(threadId);
    });
  }

  replace(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    return this.db.write(async (tx) => {
      await lockOwned(tx, threadId, this.tenantId);
      const last = await repo.reserveSeqs(tx, threadId, messages.length);
      await repo.deleteLog(tx, threadId);
      return repo.insertMessages(tx, threadId, last - messages.length + 1, messages);
    }, messages.length);
  }

  /**
   * The boundary rule shared by compaction and repair: the new effective
   * history is `replacement` followed by the current effective history after
   * position `source`. A repair keeps `evidence`, its repair message. The
   * expected start is compared under the thread's lock, in the transaction
   * that writes the boundary, so no boundary can come between check and write.
   */
  /** Returns the boundary's seq. */
  appendBoundary(threadId: string, { kind, replacement, source, retained, evidence, expectedStart, expectedLastSeq }: BoundaryWrite): Promise<number> {
    return this.db.write(async (tx) => {
      await lockOwned(tx, threadId, this.tenantId);
      const seq = await repo.reserveSeqs(tx, threadId, 1);
      if (expectedLastSeq !== undefined && seq - 1 !== expectedLastSeq) {
        throw new StoreConflictError(`${threadId} was written after its history was read for the ${kind}: nothing was written, read it again`);
      }
      const previous = await repo.latestBoundary(tx, threadId);
      if (expectedStart !== undefined) {
        const start = await startOf(tx, threadId, previous);
        if (start !== expectedStart) throw changedSinceRead(threadId, kind, start, expectedStart);
      }
      await insertBoundaryAt(tx, threadId, seq, previous, { kind, replacement, source, retained, evidence });
      return seq;
    });
  }

  repairs(threadId: string): Promise<RepairRecord[]> {
    // Repairs and their boundaries are two queries: one snapshot keeps them together.
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      return repo.repairsOf(tx, threadId);
    });
  }

  transcript(threadId: string): Promise<StoredMessage[]> {
    return readOwned(this.db, threadId, this.tenantId, (tx) => repo.transcriptOf(tx, threadId));
  }

  /**
   * Up to `limit` + 1 messages after `afterSeq` (0: from the start); a cursor's message that is gone makes it stale.
   * From a replica that has this store's writes, if there is one (and from the primary when the replica lacks the cursor's message).
   */
  transcriptAfter(threadId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const tenantId = this.tenantId;
    return this.db.onReplica((db) =>
      inStatements(db, false, async (run) => {
        if (tenantId !== undefined && (await run('SELECT 1 FROM agent_thread WHERE id = ? AND tenant_id = ?', [threadId, tenantId])).length === 0) {
          throw notFound(threadId);
        }
        if (afterSeq > 0 && (await run('SELECT 1 FROM agent_message WHERE thread_id = ? AND seq = ?', [threadId, afterSeq])).length === 0) {
          const [last] = await run('SELECT last_seq FROM agent_thread WHERE id = ?', [threadId]);
          throw last !== undefined && afterSeq > Number(last[0]) ? forgedCursor('transcript') : staleCursor(threadId);
        }
        const page = `SELECT seq, ${MESSAGE_COLUMNS} FROM agent_message WHERE thread_id = ? AND seq > ? AND event_type IS NULL ORDER BY seq LIMIT ?`;
        return (await run(page, [threadId, afterSeq, limit + 1])).map(fromColumns);
      }),
    );
  }

  /** The full path, without fast paths: creates the thread (unscoped), or says why it cannot. */
  #appendInTransaction(threadId: string, messages: Message[]): Promise<number> {
    return this.db.write(async (tx: StoreTx) => {
      await lockOwned(tx, threadId, this.tenantId);
      const last = await repo.reserveSeqs(tx, threadId, messages.length);
      await repo.insertMessages(tx, threadId, last - messages.length + 1, messages);
      return last;
    }, messages.length);
  }

  #owned<T>(threadId: string, read: T | null): T {
    if (read === null) throw notFound(threadId);
    return read;
  }
}

/**
 * Inserts a boundary at `seq` (handed out under the thread's lock) by the boundary rule: the effective
 * history becomes `replacement` followed by the current one after position `source`; `previous` is the
 * latest boundary now.
 */
export async function insertBoundaryAt(
  tx: StoreTx,
  threadId: string,
  seq: number,
  previous: repo.Boundary | null,
  { kind, replacement, source, retained, evidence }: Pick<BoundaryWrite, 'kind' | 'replacement' | 'source' | 'retained' | 'evidence'>,
): Promise<void> {
  const previousMessages = previous?.messages ?? [];
  const previousCut = previous?.cutSeq ?? 0;
  const effective = previousMessages.length + (await repo.countMessagesAfter(tx, threadId, previousCut));
  if (source > effective) {
    throw new StoreValidationError(`sourceMessageCount (${source}) exceeds the ${effective} messages of the effective history`);
  }
  // The source may end inside the previous boundary's replacement: keep its tail.
  const boundary =
    source <= previousMessages.length
      ? { cutSeq: previousCut, messages: [...replacement, ...previousMessages.slice(source)] }
      : { cutSeq: await repo.nthMessageSeqAfter(tx, threadId, previousCut, source - previousMessages.length), messages: replacement };
  await assertIdsOnce(tx, threadId, boundary);
  await repo.insertBoundary(tx, threadId, { seq, kind, ...boundary, sourceCount: source, retainedCount: retained, createdAt: new Date() });
  if (evidence) await repo.insertRepair(tx, threadId, seq, evidence);
}

/**
 * Where the effective history starts in the log: the latest boundary's seq,
 * or, without one, the first message's (null: none). Appends leave it alone.
 * A compaction or repair takes a new seq; clear and replaceHistory delete the
 * first message, and seqs are never reused: each of them moves it.
 */
async function startOf(tx: StoreTx, threadId: string, latest: { seq: number } | null): Promise<number | null> {
  return latest ? latest.seq : repo.firstMessageSeq(tx, threadId);
}

/**
 * The new effective history holds each message id once, so that what it reads
 * back is valid input again (replaceHistory, appendMany): the boundary's
 * messages repeat no id among themselves, nor an id of a message after its cut.
 */
async function assertIdsOnce(tx: StoreTx, threadId: string, boundary: { cutSeq: number; messages: Message[] }): Promise<void> {
  const ids = boundary.messages.flatMap((message) => (message.id === undefined ? [] : [message.id]));
  if (ids.length === 0) return;
  const seen = new Set<string>();
  const repeated =
    ids.find((id) => seen.size === seen.add(id).size) ?? (await repo.messagesWithIds(tx, threadId, ids)).find((held) => held.seq > boundary.cutSeq)?.id;
  if (repeated !== undefined) {
    throw new StoreValidationError(
      `message id ${JSON.stringify(repeated)} would stand twice in the effective history of ${threadId}: a message after the cut, or the boundary's own messages, hold it already`,
    );
  }
}

const changedSinceRead = (id: string, kind: BoundaryKind, start: number | null, expected: number | null) =>
  new StoreConflictError(
    `the history of ${id} changed after it was read: its startSeq is ${start} now, not ${expected} (a compaction, repair, clear or replaceHistory came between). ` +
      `Nothing was written: read it again and make the ${kind} from what it holds now`,
  );

/**
 * A history cursor, checked in the snapshot of the page it reads. Stale (a
 * conflict): its boundary is no longer the latest, or the last message it read
 * is gone (clear and replaceHistory delete it). Under the latest boundary, a
 * page hands out an index of at most the boundary's message count, with the
 * cut as its seq until that index reaches the count, and a message after the
 * cut once it has. Any other position is forged (a validation error): a seq
 * before the cut would read compacted messages after the summary, and one past
 * it while the summary is unread would skip messages.
 */
async function checkHistoryCursor(
  tx: StoreTx,
  threadId: string,
  from: HistoryPosition,
  latest: { seq: number; cutSeq: number; messageCount: number },
): Promise<void> {
  if (from.boundarySeq !== latest.seq) throw await staleOrForged(tx, threadId, Math.max(from.boundarySeq, from.seq), 'history');
  const inSummary = from.index < latest.messageCount;
  if (from.index > latest.messageCount || from.seq < latest.cutSeq || (inSummary && from.seq !== latest.cutSeq)) throw forgedCursor('history');
  if (from.seq !== latest.cutSeq && !(await repo.messageExists(tx, threadId, from.seq))) throw await staleOrForged(tx, threadId, from.seq, 'history');
}

/** A cursor naming what is gone is stale, unless it names a seq its thread never handed out. */
async function staleOrForged(tx: StoreTx, threadId: string, seq: number, kind: 'history' | 'transcript'): Promise<StoreError> {
  const last = await repo.lastSeqOf(tx, threadId);
  return last !== null && seq > last ? forgedCursor(kind) : staleCursor(threadId);
}

const staleCursor = (id: string) =>
  new StoreConflictError(`the log of ${id} was compacted, repaired, cleared or replaced after this cursor was handed out: read it again from the first page`);
