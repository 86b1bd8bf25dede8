// The MessageStore contract. Inject it by its token: `@Inject(MessageStore) store: MessageStore`.
import type { PruneOptions, PruneReport } from '../../lifecycle.types.js';
import type { ToolCallRepairOptions } from './tool-call-repair.js';
import type { BoundaryOptions, HistoryMessage, HistoryPage, MessageInput, MessagePage, PageOptions, RepairRecord, StoredMessage } from '../../message.types.js';

/**
 * Per-thread conversation storage. Every method is scoped by `threadId`, a
 * non-empty string of at most 191 characters, and validates its input before
 * touching the database: invalid input throws StoreValidationError and changes
 * nothing. Writes are atomic; concurrent writers to one thread are serialized,
 * so sequence numbers are unique and nothing acknowledged is lost. A thread
 * deleted as a session (TranscriptStore.deleteTranscript) answers writes with
 * StoreNotFoundError instead of coming back.
 */
export interface MessageStore {
  /** Appends one message at the next sequence number, creating the thread if needed. */
  append(threadId: string, message: MessageInput): Promise<StoredMessage>;

  /**
   * Appends several messages atomically (all or none), at consecutive sequence numbers.
   *
   * Exactly once by id: a message whose `id` the thread already holds (in its
   * transcript) is not stored again. `append` then returns the stored message,
   * `appendMany` stores only the new ones and returns the batch as stored; the
   * same id with another role, content, metadata or provider options is a
   * StoreConflictError and nothing is written. A unique key on (thread, id)
   * enforces it, so clients retrying one batch at once store it once. Ids in
   * one batch must be distinct (StoreValidationError).
   */
  appendMany(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]>;

  /**
   * The effective history: after the latest compaction or repair, its
   * replacement messages (seq null) followed by every message appended after
   * the part it replaced; without one, every message in order. `[]` for an
   * unknown thread. Reads only the latest boundary and the messages after it.
   */
  getHistory(threadId: string): Promise<HistoryMessage[]>;

  /**
   * The effective history a page at a time, each page read from one snapshot,
   * with `startSeq`, where that history starts (the same on every page of one
   * read: a change makes the cursor stale). Messages appended after a cursor
   * was handed out appear on later pages. A
   * compaction, repair, clear or replaceHistory after it changes what the history
   * is: the cursor is then a StoreConflictError, and the reader starts again from
   * the first page. A cursor that no page of this thread handed out (another
   * thread's, or one written by hand) is a StoreValidationError: a history
   * cursor is checked against the latest boundary, so it never reads compacted
   * messages after the summary.
   */
  getHistoryPage(threadId: string, page?: PageOptions): Promise<HistoryPage>;

  /** The length of the effective history, counted in the database without loading it. */
  count(threadId: string): Promise<number>;

  /** Removes the thread's messages, events, boundaries and repairs in one transaction. The thread itself stays; sequence numbers are never reused. */
  clear(threadId: string): Promise<void>;

  /** DESTRUCTIVE: atomically deletes the whole log (transcript included) and stores `messages` as the new history. */
  replaceHistory(threadId: string, messages: MessageInput[]): Promise<StoredMessage[]>;

  /**
   * Appends a compaction boundary; deletes nothing. The summarizer read the
   * first `sourceMessageCount` messages of the effective history; afterwards
   * the effective history is `messages` followed by every effective message
   * after that position, including any appended while the summary was written.
   * `retainedMessageCount` is how many of `messages` are kept verbatim. Throws
   * StoreValidationError when sourceMessageCount exceeds the current effective
   * count, or retainedMessageCount exceeds sourceMessageCount or messages.length.
   * With `expectedStartSeq` (the `startSeq` of the pages the summarizer read),
   * a history that another compaction or repair, a clear or a replaceHistory
   * changed since is a StoreConflictError, checked under the thread's lock in
   * the write's transaction; nothing is written.
   */
  appendCompaction(
    threadId: string,
    messages: MessageInput[],
    sourceMessageCount: number,
    retainedMessageCount: number,
    options?: BoundaryOptions,
  ): Promise<void>;

  /**
   * Repairs orphaned tool calls with the same boundary rule: the effective
   * history becomes `balancedMessages` followed by every effective message after
   * position `sourceMessageCount`. `repairMessage` is kept as evidence (getRepairs).
   * `expectedStartSeq` is checked as appendCompaction checks it.
   */
  appendRepair(
    threadId: string,
    repairMessage: MessageInput,
    balancedMessages: MessageInput[],
    sourceMessageCount: number,
    options?: BoundaryOptions,
  ): Promise<void>;

  /**
   * Repairs every tool call of the effective history that has no result (a
   * crash between a call and its result; provider-executed calls have theirs
   * in the assistant message): one repair whose balanced messages place an
   * error tool result right after each orphaned call, as the AI SDK requires.
   * The evidence is a tool message holding those results. Returns the repair's
   * record, or null when nothing is orphaned (a second call does nothing). The
   * repair is written only if nothing was written to the thread since its read
   * (else it reads again): a result that lands meanwhile is not answered twice.
   * A call whose tool is still running looks orphaned: repair on reload, before
   * the agent runs, not while its tools run.
   */
  repairToolCalls(threadId: string, options?: ToolCallRepairOptions): Promise<RepairRecord | null>;

  /** The evidence of every repair, oldest first. */
  getRepairs(threadId: string): Promise<RepairRecord[]>;

  /**
   * Every committed message in append order, whatever compactions and repairs happened, except
   * what pruneTranscript deleted: after a prune it starts after the cut of the boundary that was
   * latest then (the messages that boundary and the earlier ones replaced are gone). `[]` for an
   * unknown thread.
   */
  getTranscript(threadId: string): Promise<StoredMessage[]>;

  /**
   * The transcript a page at a time, in append order. A clear or replaceHistory
   * after the cursor, or a pruneTranscript that deleted the message it names,
   * makes it a StoreConflictError; a cursor of another thread, or naming a seq
   * the thread never handed out, is a StoreValidationError.
   */
  getTranscriptPage(threadId: string, page?: PageOptions): Promise<MessagePage<StoredMessage>>;

  /**
   * Deletes the transcript rows that the latest compaction or repair has made unreachable from the
   * effective history: the messages at or before its cut, and the boundaries before it. With
   * `keepRepairs` (the default) an earlier repair stays, so that getRepairs still returns its
   * evidence, but its replacement messages (a copy of the history it replaced) are dropped; with
   * `keepRepairs: false` it goes too. Events, the latest boundary and everything after its cut are
   * untouched: getHistory, getHistoryPage and count answer as before, and so do history cursors.
   * Afterwards getTranscript starts after the cut, a transcript cursor naming a pruned message is
   * stale (StoreConflictError), and a retried append of a pruned message's id stores it again, at the
   * end. Returns what it deleted: `{ messages: 0, boundaries: 0 }` when there is nothing to prune (no
   * boundary, pruned already, or, unscoped, an unknown thread; a tenant's store answers another
   * tenant's thread, or a missing one, with StoreNotFoundError).
   *
   * The rows it deletes never change again, so it takes no lock on the thread and writes nothing to it
   * (its `updatedAt` stays): appends go on meanwhile. It deletes in bounded batches, a transaction
   * each; one that stops halfway leaves a thread whose history is whole, and the next call finishes it.
   * In the application's transaction (withTransaction) it is one write, that commits or rolls back
   * with it.
   */
  pruneTranscript(threadId: string, options?: PruneOptions): Promise<PruneReport>;

  /**
   * The same store, every call of which runs in `tx`: a transaction of your own
   * PrismaClient on the store's database, as `prisma.$transaction(async (tx) => …)`
   * hands it to its callback. Its writes commit or roll back with yours, and
   * its reads see your transaction's writes. A call that fails changes nothing
   * and leaves `tx` usable (it runs in a savepoint); it is never retried there
   * (a conflict is a StoreBusyError: run your whole transaction again).
   */
  withTransaction(tx: object): MessageStore;
}

/** The injection token of MessageStore, which StoreModule provides: `@Inject(MessageStore) messages: MessageStore`. */
export const MessageStore = Symbol('MessageStore');
