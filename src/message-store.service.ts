// MessageStore over the Prisma schema.
import { Inject, Injectable } from '@nestjs/common';
import { StoreDatabase } from './data/database.js';
import * as repo from './data/message.repository.js';
import type { StoreTx } from './data/store-client.js';
import type { MessageStore } from './message-store.js';
import type { HistoryMessage, Message, MessageInput, RepairRecord, StoredMessage } from './message.types.js';
import { StoreValidationError } from './store.errors.js';
import { countOf, idOf, messageOf, messagesOf } from './validation.js';

@Injectable()
export class PrismaMessageStore implements MessageStore {
  constructor(@Inject(StoreDatabase) private readonly db: StoreDatabase) {}

  async append(threadId: string, message: MessageInput): Promise<StoredMessage> {
    const id = idOf(threadId, 'threadId');
    const [stored] = await this.#append(id, [messageOf(message, 'message')]);
    return stored;
  }

  async appendMany(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    const valid = messagesOf(messages, 'messages');
    return valid.length === 0 ? [] : this.#append(id, valid);
  }

  async getHistory(threadId: string): Promise<HistoryMessage[]> {
    const id = idOf(threadId, 'threadId');
    return this.db.read(async (tx) => {
      const boundary = await repo.latestBoundary(tx, id);
      const after = await repo.messagesAfter(tx, id, boundary?.cutSeq ?? 0);
      return boundary ? [...repo.asHistory(boundary.messages), ...after] : after;
    });
  }

  async count(threadId: string): Promise<number> {
    const id = idOf(threadId, 'threadId');
    return this.db.read(async (tx) => {
      const boundary = await repo.latestBoundaryCounts(tx, id);
      return (boundary?.messageCount ?? 0) + (await repo.countMessagesAfter(tx, id, boundary?.cutSeq ?? 0));
    });
  }

  async clear(threadId: string): Promise<void> {
    const id = idOf(threadId, 'threadId');
    await this.db.write(async (tx) => {
      if (await repo.lockThread(tx, id, new Date())) await repo.deleteLog(tx, id);
    });
  }

  async replaceHistory(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    const valid = messagesOf(messages, 'messages');
    return this.db.write(async (tx) => {
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
    return this.db.read((tx) => repo.repairsOf(tx, id));
  }

  async getTranscript(threadId: string): Promise<StoredMessage[]> {
    const id = idOf(threadId, 'threadId');
    return this.db.query((client) => repo.transcriptOf(client, id));
  }

  #append(threadId: string, messages: Message[]): Promise<StoredMessage[]> {
    return this.db.write(async (tx) => {
      const last = await repo.reserveSeqs(tx, this.db.dialect, threadId, messages.length);
      return repo.insertMessages(tx, threadId, last - messages.length + 1, messages);
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
