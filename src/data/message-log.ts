// MessageStore's data operations: one per store operation. Whether an
// operation takes its kit's fast path or the full transactional path through
// Prisma is decided here, not by the store.
import type { HistoryPosition } from '../message-pages.js';
import type { HistoryMessage, Message, RepairRecord, StoredMessage } from '../message.types.js';
import { StoreConflictError, StoreValidationError } from '../store.errors.js';
import type { StoreDatabase } from './database.js';
import * as repo from './message.repository.js';
import { asHistory } from './row-codec.js';
import type { StoreTx } from './store-client.js';
import { assertOwned, lockOwned, notFound, readOwned } from './tenancy.js';

export type BoundaryKind = 'compaction' | 'repair';

export class MessageLog {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's sessions exist (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  /** Appends `messages` (at least one) at consecutive sequence numbers, creating the thread when unscoped. */
  async append(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    const last = this.db.fast ? await this.db.fast.append(threadId, messages, new Date(), this.tenantId) : await this.#appendInTransaction(threadId, messages);
    // Only a scoped append finds no thread: the session is not the tenant's.
    if (last === null) throw notFound(threadId);
    return messages.map((message, i) => ({ ...message, seq: last - messages.length + 1 + i }));
  }

  /** Scoped: StoreNotFoundError unless the thread is the tenant's. */
  async assertOwned(threadId: string): Promise<void> {
    await readOwned(this.db, threadId, this.tenantId, async () => undefined);
  }

  async history(threadId: string): Promise<HistoryMessage[]> {
    if (this.db.fast) return this.#owned(threadId, await this.db.fast.history(threadId, this.tenantId));
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundary(tx, threadId);
      const after = await repo.messagesAfter(tx, threadId, boundary?.cutSeq ?? 0);
      return boundary ? [...asHistory(boundary.messages), ...after] : after;
    });
  }

  /** A page of the effective history from `from` (the start when undefined), and where the next page starts (null: none). */
  historyPage(threadId: string, limit: number, from: HistoryPosition | undefined): Promise<{ messages: HistoryMessage[]; next: HistoryPosition | null }> {
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      const boundary = await repo.latestBoundary(tx, threadId);
      const boundarySeq = boundary?.seq ?? 0;
      // The cursor's boundary is still the latest, and the last message it returned is still there (clear and replaceHistory delete it).
      const moved =
        from && (from.boundarySeq !== boundarySeq || (from.seq !== (boundary?.cutSeq ?? 0) && !(await repo.messageExists(tx, threadId, from.seq))));
      if (moved) throw staleCursor(threadId);
      // One more than a page tells whether another page follows.
      const index = from?.index ?? 0;
      const head = asHistory((boundary?.messages ?? []).slice(index, index + limit + 1));
      const afterSeq = from?.seq ?? boundary?.cutSeq ?? 0;
      const tail = head.length > limit ? [] : await repo.messagesAfter(tx, threadId, afterSeq, limit + 1 - head.length);
      const read = [...head, ...tail];
      const messages = read.slice(0, limit);
      if (read.length <= limit) return { messages, next: null };
      const lastSeq = messages.findLast((message) => message.seq !== null)?.seq ?? afterSeq;
      return { messages, next: { boundarySeq, index: index + Math.min(head.length, limit), seq: lastSeq } };
    });
  }

  async count(threadId: string): Promise<number> {
    if (this.db.fast) return this.#owned(threadId, await this.db.fast.count(threadId, this.tenantId));
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
   * position `source`. A repair keeps `evidence`, its repair message.
   */
  async appendBoundary(threadId: string, kind: BoundaryKind, replacement: Message[], source: number, retained: number | null, evidence?: Message): Promise<void> {
    await this.db.write(async (tx) => {
      await lockOwned(tx, threadId, this.tenantId);
      const seq = await repo.reserveSeqs(tx, threadId, 1);
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
      if (evidence) await repo.insertRepair(tx, threadId, seq, evidence);
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

  /** Up to `limit` + 1 messages after `afterSeq` (0: from the start); a cursor's message that is gone makes it stale. */
  transcriptAfter(threadId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    return this.db.read(async (tx) => {
      await assertOwned(tx, threadId, this.tenantId);
      if (afterSeq > 0 && !(await repo.messageExists(tx, threadId, afterSeq))) throw staleCursor(threadId);
      return repo.messagesAfter(tx, threadId, afterSeq, limit + 1);
    });
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

const staleCursor = (id: string) =>
  new StoreConflictError(`the log of ${id} was compacted, repaired, cleared or replaced after this cursor was handed out: read it again from the first page`);
