// The domain types: messages as agent loops hand them to the store and get them back.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];

// Content parts in the shape of the Vercel AI SDK's model messages. Binary data
// travels as base64 or data-URL strings: the store keeps JSON only.
export interface TextPart { type: 'text'; text: string; providerOptions?: JsonObject }
export interface ImagePart { type: 'image'; image: string; mediaType?: string; providerOptions?: JsonObject }
export interface FilePart { type: 'file'; data: string; mediaType: string; filename?: string; providerOptions?: JsonObject }
export interface ReasoningPart { type: 'reasoning'; text: string; providerOptions?: JsonObject }
export interface ToolCallPart { type: 'tool-call'; toolCallId: string; toolName: string; input: JsonValue; providerOptions?: JsonObject }
export interface ToolResultPart { type: 'tool-result'; toolCallId: string; toolName: string; output: JsonValue; providerOptions?: JsonObject }
export type ContentPart = TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart;

/** A message as the caller gives it. */
export interface MessageInput {
  role: MessageRole;
  /** Kept exactly as given. Parts are objects with a string `type`; unknown part types are kept too. */
  content: string | ContentPart[] | JsonObject[];
  /** The caller's own id (at most 191 characters). */
  id?: string;
  metadata?: JsonObject;
  /** Defaults to the time of the write. */
  createdAt?: Date | string;
}

/** A message as the store returns it. */
export interface Message {
  role: MessageRole;
  content: string | ContentPart[] | JsonObject[];
  id?: string;
  metadata?: JsonObject;
  createdAt: Date;
}

/** A committed message: `seq` is its place in the thread's log (increasing, never reused). */
export interface StoredMessage extends Message {
  seq: number;
}

/**
 * A message of the effective history. Messages that came from a compaction or
 * repair (a summary, a balanced projection) were never appended: their `seq` is null.
 */
export interface HistoryMessage extends Message {
  seq: number | null;
}

/** The evidence a repair left: the synthetic message it added, and where. */
export interface RepairRecord {
  /** The repair boundary's place in the thread's log. */
  seq: number;
  repairMessage: Message;
  sourceMessageCount: number;
  createdAt: Date;
}

/** Which page to read: at most `limit` messages (1 to 1,000; default 100) after `cursor`. */
export interface PageOptions {
  limit?: number;
  /** The `nextCursor` of the previous page; absent for the first. */
  cursor?: string;
}

/** A page of messages; `nextCursor` reads the next one, and is null on the last. */
export interface MessagePage<M> {
  messages: M[];
  nextCursor: string | null;
}

/** A page of the effective history. */
export interface HistoryPage extends MessagePage<HistoryMessage> {
  /**
   * Where the history these pages read starts in the thread's log: the seq of
   * the latest compaction or repair, or, without one, of the first message;
   * null when the thread has neither. Appends never change it; a compaction,
   * repair, clear or replaceHistory does. A summarizer hands it back as
   * `expectedStartSeq` (BoundaryOptions).
   */
  startSeq: number | null;
}

/** What appendCompaction and appendRepair check before they write. */
export interface BoundaryOptions {
  /**
   * The `startSeq` of the history pages the summary or repair was made from.
   * When the effective history starts elsewhere at the write (a compaction,
   * repair, clear or replaceHistory came after the read), the write is a
   * StoreConflictError and changes nothing. Absent: not checked.
   */
  expectedStartSeq?: number | null;
}
