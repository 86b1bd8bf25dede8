// The TranscriptStore contract. Inject it by its token: `@Inject(TranscriptStore) transcripts: TranscriptStore`.
import type { MessageInput, StoredMessage } from '../../message.types.js';
import type { StoredTranscript, Transcript } from '../../session.types.js';

/**
 * Whole transcripts per session, and the subsession graph between sessions.
 * A session is a thread: its messages are those of MessageStore. Every write
 * is atomic; bad input is a StoreValidationError and changes nothing.
 */
export interface TranscriptStore {
  /**
   * Stores `transcript` as the session's whole transcript, replacing any
   * earlier one atomically: its messages, its metadata (absent: none) and its
   * subsessions (absent: none; each must be free to attach, see addSubsession).
   * Creates the session if needed.
   */
  saveTranscript(sessionId: string, transcript: Transcript): Promise<StoredTranscript>;

  /** The session's transcript (every committed message), subsessions and metadata; null when the session does not exist. */
  getTranscript(sessionId: string): Promise<StoredTranscript | null>;

  /**
   * Deletes this one session, no cascade: its edges to and from other sessions
   * go with it and its children become roots. False when it did not exist.
   */
  removeTranscript(sessionId: string): Promise<boolean>;

  /** Appends one message, creating the session if needed. */
  appendMessage(sessionId: string, message: MessageInput): Promise<StoredMessage>;

  /** Appends several messages atomically, creating the session if needed. */
  appendMessages(sessionId: string, messages: MessageInput[]): Promise<StoredMessage[]>;

  /**
   * Registers the edge parent -> child, creating either session if needed. A
   * tree is one tenant's: a session created here takes the other's tenant, and
   * two sessions of different tenants are a StoreConflictError.
   * Atomic and idempotent under any concurrency: registering an edge twice
   * leaves one. A second parent for the child, or an edge that would make a
   * cycle (self included), is a StoreConflictError and changes nothing.
   */
  addSubsession(parentId: string, childId: string): Promise<void>;

  /** The children's ids in registration order; empty when none. */
  getSubsessions(sessionId: string): Promise<string[]>;

  /**
   * Deletes the session and its whole subtree in one transaction, with a
   * bounded number of statements whatever the tree's size: all of it is gone
   * or none of it. Later writes to any of them are StoreNotFoundError.
   * Returns how many sessions were deleted (0 when it did not exist).
   */
  deleteTranscript(sessionId: string): Promise<number>;

  /** The same store, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): TranscriptStore;
}

/** The injection token of TranscriptStore, which StoreModule provides: `@Inject(TranscriptStore) transcripts: TranscriptStore`. */
export const TranscriptStore = Symbol('TranscriptStore');
