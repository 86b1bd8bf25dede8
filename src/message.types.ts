// The domain types: messages as agent loops hand them to the store and get them back.
// Stored messages are shaped like the Vercel AI SDK's model messages (ai 6 and 7):
// what the store returns is assignable to its ModelMessage, and its messages
// (response.messages included) are taken as they are. The SDK is not a dependency:
// the shapes below are its own, structurally.

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
/** Like JSON itself, a property whose value is undefined is absent. */
export type JsonObject = { [key: string]: JsonValue | undefined };

/**
 * Values the store keeps besides JSON, as the AI SDK puts them in messages:
 * they come back as the same types (a Buffer as a Uint8Array), byte for byte.
 */
export type StoredValue = JsonValue | URL | Uint8Array | ArrayBuffer | Date | StoredValue[] | { [key: string]: StoredValue | undefined };

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];

/** Provider-specific options, by provider name. */
export type ProviderOptions = Record<string, JsonObject>;
/** Binary data: base64 text, or the bytes. */
export type DataContent = string | Uint8Array | ArrayBuffer;

export interface TextPart {
  type: 'text';
  text: string;
  providerOptions?: ProviderOptions;
}
export interface ImagePart {
  type: 'image';
  image: DataContent | URL;
  mediaType?: string;
  providerOptions?: ProviderOptions;
}
export interface FilePart {
  type: 'file';
  data: DataContent | URL;
  filename?: string;
  mediaType: string;
  providerOptions?: ProviderOptions;
}
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
}
export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: ProviderOptions;
  /** Run by the provider: its result is in the same assistant message. */
  providerExecuted?: boolean;
}
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
  providerOptions?: ProviderOptions;
}
/** A tool result's output, in the forms ai 6 and ai 7 share. */
export type ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json' | 'error-json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions }
  | { type: 'content'; value: ToolResultContentPart[] };
export type ToolResultContentPart =
  | { type: 'text'; text: string; providerOptions?: ProviderOptions }
  | { type: 'file-data'; data: string; mediaType: string; filename?: string; providerOptions?: ProviderOptions }
  | { type: 'file-url'; url: string; mediaType?: string; providerOptions?: ProviderOptions }
  | { type: 'file-id' | 'image-file-id'; fileId: string | Record<string, string>; providerOptions?: ProviderOptions }
  | { type: 'image-data'; data: string; mediaType: string; providerOptions?: ProviderOptions }
  | { type: 'image-url'; url: string; providerOptions?: ProviderOptions }
  | { type: 'custom'; providerOptions?: ProviderOptions };
export interface ToolApprovalRequest {
  type: 'tool-approval-request';
  approvalId: string;
  toolCallId: string;
  signature?: string;
  inputSchemaInput?: unknown;
}
export interface ToolApprovalResponse {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerExecuted?: boolean;
}

export type UserPart = TextPart | ImagePart | FilePart;
export type AssistantPart = TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ToolApprovalRequest;
export type ToolPart = ToolResultPart | ToolApprovalResponse;
export type ContentPart = UserPart | AssistantPart | ToolPart;

/** What every message has besides its role and content. */
export interface MessageBase {
  /** The caller's own id (at most 191 characters); unique in its thread. */
  id?: string;
  metadata?: JsonObject;
  providerOptions?: ProviderOptions;
  createdAt: Date;
}

/** A message as the store returns it: one of the SDK's four model messages. */
export type Message =
  | (MessageBase & { role: 'system'; content: string })
  | (MessageBase & { role: 'user'; content: string | UserPart[] })
  | (MessageBase & { role: 'assistant'; content: string | AssistantPart[] })
  | (MessageBase & { role: 'tool'; content: ToolPart[] });

/** A committed message: `seq` is its place in the thread's log (increasing, never reused). */
export type StoredMessage = Message & { seq: number };

/**
 * A message of the effective history. Messages that came from a compaction or
 * repair (a summary, a balanced projection) were never appended: their `seq` is null.
 */
export type HistoryMessage = Message & { seq: number | null };

/**
 * A content part as the caller gives it: an object with a string `type`.
 * Unknown part types are kept too. (The first form takes the SDK's part
 * interfaces, the second object literals with their other properties.)
 */
export type PartInput = { readonly type: string } | { readonly type: string; readonly [key: string]: unknown };

/**
 * A message as the caller gives it: the SDK's model messages as they are, and
 * anything the store returned (its `seq` is ignored). Content, metadata and
 * provider options are kept exactly as given: JSON, and the values of StoredValue.
 */
export interface MessageInput {
  role: MessageRole;
  content: string | readonly PartInput[];
  id?: string;
  metadata?: { readonly [key: string]: unknown };
  providerOptions?: { readonly [provider: string]: { readonly [key: string]: unknown } };
  /** Defaults to the time of the write. */
  createdAt?: Date | string;
  /** Read output carries it; on input it is ignored. */
  seq?: number | null;
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

/** A value the store keeps besides JSON (see stored-values.ts). */
export type ValueType = 'URL' | 'Uint8Array' | 'ArrayBuffer' | 'Date';
/** Where a non-JSON value was: keys and array indexes from the top of the value. */
export type ValuePath = (string | number)[];
/** Each non-JSON value of a JSON form: its path and its type. */
export type ValueTypes = [path: ValuePath, type: ValueType][];
