// MessageStore over the Prisma schema.
import type { StoreDatabase } from './data/database.js';
import * as repo from './data/message.repository.js';
import type { StoreTx } from './data/store-client.js';
import { assertOwned, lockOwned, notFound, readOwned } from './data/tenancy.js';
import type { MessageStore } from './message-store.js';
import { decodeHistoryCursor, decodeTranscriptCursor, encodeHistoryCursor, encodeTranscriptCursor, pageOptionsOf } from './message-pages.js';
import type { HistoryMessage, Message, MessageInput, MessagePage, PageOptions, RepairRecord, StoredMessage } from './message.types.js';
import { StoreConflictError, StoreValidationError } from './store.errors.js';
import { countOf, idOf, messageOf, messagesOf } from './validation.js';

export class PrismaMessageStore implements MessageStore {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  async append(threadId: string, message: MessageInput): Promise<StoredMessage> {
    const id = idOf(threadId, 'threadId');
    const [stored] = await this.#append(id, [messageOf(message, 'message')]);
    return stored;
  }

  async appendMany(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    const valid = messagesOf(messages, 'messages');
    // Scoped, even an empty batch answers for a session that is not the tenant's.
    if (valid.length === 0) return readOwned(this.db, id, this.tenantId, async () => []);
    return this.#append(id, valid);
  }

  async getHistory(threadId: string): Promise<HistoryMessage[]> {
    const id = idOf(threadId, 'threadId');
    const { reads } = this.db;
    if (reads && this.tenantId === undefined) return reads.history(id);
    return this.db.read(async (tx) => {
      await assertOwned(tx, id, this.tenantId);
      const boundary = await repo.latestBoundary(tx, id);
      const after = await repo.messagesAfter(tx, id, boundary?.cutSeq ?? 0);
      return boundary ? [...repo.asHistory(boundary.messages), ...after] : after;
    });
  }

  async getHistoryPage(threadId: string, page?: PageOptions): Promise<MessagePage<HistoryMessage>> {
    const id = idOf(threadId, 'threadId');
    const { limit, cursor } = pageOptionsOf(page);
    const from = cursor === undefined ? undefined : decodeHistoryCursor(cursor, id);
    return this.db.read(async (tx) => {
      await assertOwned(tx, id, this.tenantId);
      const boundary = await repo.latestBoundary(tx, id);
      const boundarySeq = boundary?.seq ?? 0;
      // The cursor's boundary is still the latest, and the last message it returned is still there (clear and replaceHistory delete it).
      const moved = from && (from.boundarySeq !== boundarySeq || (from.seq !== (boundary?.cutSeq ?? 0) && !(await repo.messageExists(tx, id, from.seq))));
      if (moved) throw staleCursor(id);
      // One more than a page tells whether another page follows.
      const index = from?.index ?? 0;
      const head = repo.asHistory((boundary?.messages ?? []).slice(index, index + limit + 1));
      const afterSeq = from?.seq ?? boundary?.cutSeq ?? 0;
      const tail = head.length > limit ? [] : await repo.messagesAfter(tx, id, afterSeq, limit + 1 - head.length);
      const read = [...head, ...tail];
      const messages = read.slice(0, limit);
      if (read.length <= limit) return { messages, nextCursor: null };
      const lastSeq = messages.findLast((message) => message.seq !== null)?.seq ?? afterSeq;
      const next = { boundarySeq, index: index + Math.min(head.length, limit), seq: lastSeq };
      return { messages, nextCursor: encodeHistoryCursor(id, next) };
    });
  }

  async count(threadId: string): Promise<number> {
    const id = idOf(threadId, 'threadId');
    const { reads } = this.db;
    if (reads && this.tenantId === undefined) return reads.count(id);
    return this.db.read(async (tx) => {
      await assertOwned(tx, id, this.tenantId);
      const boundary = await repo.latestBoundaryCounts(tx, id);
      return (boundary?.messageCount ?? 0) + (await repo.countMessagesAfter(tx, id, boundary?.cutSeq ?? 0));
    });
  }

  async clear(threadId: string): Promise<void> {
    const id = idOf(threadId, 'threadId');
    await this.db.write(async (tx) => {
      if (await repo.lockThread(tx, id, new Date(), this.tenantId)) await repo.deleteLog(tx, id);
      else if (this.tenantId !== undefined) throw notFound(id);
    });
  }

  async replaceHistory(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    const valid = messagesOf(messages, 'messages');
    return this.db.write(async (tx) => {
      await lockOwned(tx, id, this.tenantId);
      const last = await repo.reserveSeqs(tx, this.db.dialect, id, valid.length);
      await repo.deleteLog(tx, id);
      return repo.insertMessages(tx, id, last - valid.length + 1, valid);
    });
  }

  async appendCompaction(threadId: string, messages: MessageInput[], sourceMessageCount: number, retainedMessageCount: number): Promise<void> {
    const id = idOf(threadId, 'threadId');
    const replacement = messagesOf(messages, 'messages');
    const source = countOf(sourceMessageCount, 'sourceMessageCount');
    const retained = countOf(retainedMessageCount, 'retainedMessageCount');
    if (retained > source) throw new StoreValidationError(`retainedMessageCount (${retained}) exceeds sourceMessageCount (${source})`);
    if (retained > replacement.length) {
      throw new StoreValidationError(`retainedMessageCount (${retained}) exceeds the ${replacement.length} messages given`);
    }
    await this.db.write((tx) => this.#appendBoundary(tx, id, 'compaction', replacement, source, retained));
  }

  async appendRepair(threadId: string, repairMessage: MessageInput, balancedMessages: MessageInput[], sourceMessageCount: number): Promise<void> {
    const id = idOf(threadId, 'threadId');
    const evidence = messageOf(repairMessage, 'repairMessage');
    const balanced = messagesOf(balancedMessages, 'balancedMessages');
    const source = countOf(sourceMessageCount, 'sourceMessageCount');
    await this.db.write(async (tx) => {
      const seq = await this.#appendBoundary(tx, id, 'repair', balanced, source, null);
      await repo.insertRepair(tx, id, seq, evidence);
    });
  }

  async getRepairs(threadId: string): Promise<RepairRecord[]> {
    const id = idOf(threadId, 'threadId');
    // Repairs and their boundaries are two queries: one snapshot keeps them together.
    return this.db.read(async (tx) => {
      await assertOwned(tx, id, this.tenantId);
      return repo.repairsOf(tx, id);
    });
  }

  async getTranscript(threadId: string): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    return readOwned(this.db, id, this.tenantId, (tx) => repo.transcriptOf(tx, id));
  }

  async getTranscriptPage(threadId: string, page?: PageOptions): Promise<MessagePage<StoredMessage>> {
    const id = idOf(threadId, 'threadId');
    const { limit, cursor } = pageOptionsOf(page);
    const afterSeq = cursor === undefined ? 0 : decodeTranscriptCursor(cursor, id);
    const read = await this.db.read(async (tx) => {
      await assertOwned(tx, id, this.tenantId);
      if (afterSeq > 0 && !(await repo.messageExists(tx, id, afterSeq))) throw staleCursor(id);
      return repo.messagesAfter(tx, id, afterSeq, limit + 1);
    });
    const messages = read.slice(0, limit);
    return { messages, nextCursor: read.length > limit ? encodeTranscriptCursor(id, messages[limit - 1].seq) : null };
  }

  async #append(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    const last = await this.db.appendToExisting(threadId, messages, this.tenantId);
    if (last !== null) return messages.map((message, i) => ({ ...message, seq: last - messages.length + 1 + i }));
    // The thread's first append, or one that cannot be: create the thread, or say why not.
    return this.db.write(async (tx) => {
      await lockOwned(tx, threadId, this.tenantId);
      const seq = await repo.reserveSeqs(tx, this.db.dialect, threadId, messages.length);
      return repo.insertMessages(tx, threadId, seq - messages.length + 1, messages);
    });
  }

  /**
   * The boundary rule shared by compaction and repair: the new effective
   * history is `replacement` followed by the current effective history after
   * position `source`. Returns the boundary's seq.
   */
  async #appendBoundary(
    tx: StoreTx,
    threadId: string,
    kind: 'compaction' | 'repair',
    replacement: Message[],
    source: number,
    retained: number | null,
  ): Promise<number> {
    await lockOwned(tx, threadId, this.tenantId);
    const seq = await repo.reserveSeqs(tx, this.db.dialect, threadId, 1);
    const previous = await repo.latestBoundary(tx, threadId);
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
    await repo.insertBoundary(tx, threadId, { seq, kind, ...boundary, sourceCount: source, retainedCount: retained, createdAt: new Date() });
    return seq;
  }
}

const staleCursor = (id: string) =>
  new StoreConflictError(`the log of ${id} was compacted, repaired, cleared or replaced after this cursor was handed out: read it again from the first page`);
