// MessageStore: validates its input, then runs one data operation per call.
import type { StoreDatabase } from '../../engine/database.js';
import { MessageLog } from './message-log.js';
import { pruneThread } from './transcript-pruning.js';
import { pruneOptionsOf } from '../../engine/lifecycle-options.js';
import type { PruneOptions, PruneReport } from '../../lifecycle.types.js';
import type { MessageStore } from './message-store.js';
import { decodeHistoryCursor, decodeTranscriptCursor, encodeHistoryCursor, encodeTranscriptCursor, pageOptionsOf } from './message-pages.js';
import type { BoundaryOptions, HistoryMessage, HistoryPage, MessageInput, MessagePage, PageOptions, RepairRecord, StoredMessage } from '../../message.types.js';
import { StoreConflictError, StoreValidationError } from '../../store.errors.js';
import { balanceToolCalls, toolCallRepairMessage, type ToolCallRepairOptions } from './tool-call-repair.js';
import { countOf, distinctIds, idOf, MAX_INTEGER, messageOf, messagesOf, textOf } from '../../values/validation.js';
import { sessionIdOf } from '../../values/bindings.js';

export class PrismaMessageStore implements MessageStore {
  readonly #log: MessageLog;

  constructor(
    private readonly db: StoreDatabase,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {
    this.#log = new MessageLog(db, tenantId);
  }

  withTransaction(tx: object): MessageStore {
    return new PrismaMessageStore(this.db.joining(tx), this.tenantId);
  }

  async append(threadId: string, message: MessageInput): Promise<StoredMessage> {
    const id = sessionIdOf(threadId, 'threadId');
    const [stored] = await this.#log.append(id, [messageOf(message, 'message')]);
    return stored;
  }

  async appendMany(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = sessionIdOf(threadId, 'threadId');
    const valid = distinctIds(messagesOf(messages, 'messages'), 'messages');
    if (valid.length > 0) return this.#log.append(id, valid);
    // Scoped, even an empty batch answers for a session that is not the tenant's.
    await this.#log.assertOwned(id);
    return [];
  }

  async getHistory(threadId: string): Promise<HistoryMessage[]> {
    return this.#log.history(idOf(threadId, 'threadId'));
  }

  async getHistoryPage(threadId: string, page?: PageOptions): Promise<HistoryPage> {
    const id = idOf(threadId, 'threadId');
    const { limit, cursor } = pageOptionsOf(page);
    const from = cursor === undefined ? undefined : decodeHistoryCursor(cursor, id);
    const { messages, next, startSeq } = await this.#log.historyPage(id, limit, from);
    return { messages, nextCursor: next && encodeHistoryCursor(id, next), startSeq };
  }

  async count(threadId: string): Promise<number> {
    return this.#log.count(idOf(threadId, 'threadId'));
  }

  async pruneTranscript(threadId: string, options?: PruneOptions): Promise<PruneReport> {
    const id = idOf(threadId, 'threadId');
    return pruneThread(this.db, id, pruneOptionsOf(options), this.tenantId);
  }

  async clear(threadId: string): Promise<void> {
    await this.#log.clear(sessionIdOf(threadId, 'threadId'));
  }

  async replaceHistory(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]> {
    const id = sessionIdOf(threadId, 'threadId');
    return this.#log.replace(id, distinctIds(messagesOf(messages, 'messages'), 'messages'));
  }

  async appendCompaction(
    threadId: string,
    messages: MessageInput[],
    sourceMessageCount: number,
    retainedMessageCount: number,
    options?: BoundaryOptions,
  ): Promise<void> {
    const id = sessionIdOf(threadId, 'threadId');
    const replacement = distinctIds(messagesOf(messages, 'messages'), 'messages');
    const source = countOf(sourceMessageCount, 'sourceMessageCount');
    const retained = countOf(retainedMessageCount, 'retainedMessageCount');
    const expectedStart = expectedStartOf(options);
    if (retained > source) throw new StoreValidationError(`retainedMessageCount (${retained}) exceeds sourceMessageCount (${source})`);
    if (retained > replacement.length) {
      throw new StoreValidationError(`retainedMessageCount (${retained}) exceeds the ${replacement.length} messages given`);
    }
    await this.#log.appendBoundary(id, { kind: 'compaction', replacement, source, retained, expectedStart });
  }

  async appendRepair(
    threadId: string,
    repairMessage: MessageInput,
    balancedMessages: MessageInput[],
    sourceMessageCount: number,
    options?: BoundaryOptions,
  ): Promise<void> {
    const id = sessionIdOf(threadId, 'threadId');
    const evidence = messageOf(repairMessage, 'repairMessage');
    const balanced = distinctIds(messagesOf(balancedMessages, 'balancedMessages'), 'balancedMessages');
    const source = countOf(sourceMessageCount, 'sourceMessageCount');
    const expectedStart = expectedStartOf(options);
    await this.#log.appendBoundary(id, { kind: 'repair', replacement: balanced, source, retained: null, evidence, expectedStart });
  }

  async repairToolCalls(threadId: string, options?: ToolCallRepairOptions): Promise<RepairRecord | null> {
    const id = sessionIdOf(threadId, 'threadId');
    const repairOptions = repairOptionsOf(options);
    for (let attempt = 1; ; attempt++) {
      const { messages, startSeq, lastSeq } = await this.#log.historyWithStart(id);
      const repair = balanceToolCalls(messages, repairOptions);
      if (repair === null) return null;
      const now = new Date();
      const evidence = messageOf(toolCallRepairMessage(repair), 'repairMessage', now);
      const balanced = messagesOf(repair.messages, 'balancedMessages', now);
      try {
        const seq = await this.#log.appendBoundary(id, {
          kind: 'repair',
          replacement: balanced,
          source: repair.sourceMessageCount,
          retained: null,
          evidence,
          expectedStart: startSeq,
          expectedLastSeq: lastSeq,
        });
        return { seq, repairMessage: evidence, sourceMessageCount: repair.sourceMessageCount, createdAt: evidence.createdAt };
      } catch (error) {
        // Something was written between the read and the write (a tool's real result, say): repair what the history is now.
        if (!(error instanceof StoreConflictError) || attempt === 3) throw error;
      }
    }
  }

  async getRepairs(threadId: string): Promise<RepairRecord[]> {
    return this.#log.repairs(idOf(threadId, 'threadId'));
  }

  async getTranscript(threadId: string): Promise<StoredMessage[]> {
    return this.#log.transcript(idOf(threadId, 'threadId'));
  }

  async getTranscriptPage(threadId: string, page?: PageOptions): Promise<MessagePage<StoredMessage>> {
    const id = idOf(threadId, 'threadId');
    const { limit, cursor } = pageOptionsOf(page);
    const read = await this.#log.transcriptAfter(id, cursor === undefined ? 0 : decodeTranscriptCursor(cursor, id), limit);
    const messages = read.slice(0, limit);
    return { messages, nextCursor: read.length > limit ? encodeTranscriptCursor(id, messages[limit - 1].seq) : null };
  }
}

function repairOptionsOf(options: ToolCallRepairOptions | undefined): ToolCallRepairOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new StoreValidationError('options must be an object { errorText? }');
  for (const key of Object.keys(options)) {
    if (key !== 'errorText') throw new StoreValidationError(`options have an unknown property "${key}"`);
  }
  if (options.errorText !== undefined) textOf(options.errorText, 'options.errorText');
  return options;
}

/** BoundaryOptions' `expectedStartSeq`: undefined when not given (nothing is checked), null for an empty history. */
function expectedStartOf(options: BoundaryOptions | undefined): number | null | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new StoreValidationError('options must be an object { expectedStartSeq? }');
  }
  for (const key of Object.keys(options)) {
    if (key !== 'expectedStartSeq') throw new StoreValidationError(`options have an unknown property "${key}"`);
  }
  const seq: unknown = options.expectedStartSeq;
  if (seq === undefined || seq === null) return seq;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || (seq as number) > MAX_INTEGER) {
    throw new StoreValidationError(`expectedStartSeq must be null or an integer from 1 to ${MAX_INTEGER}, got ${String(seq)}`);
  }
  return seq as number;
}
