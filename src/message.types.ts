// The domain types: messages as agent loops hand them to the store and get them back.
// Stored messages are shaped like the Vercel AI SDK's model messages (ai 6 and 7):
// what the store returns is assignable to its ModelMessage, and its messages
// (response.messages included) are taken as they are. The SDK is not a dependency:
// the shapes below are its own, structurally.

/** A JSON value: what `JSON.parse` can return. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
/** Like JSON itself, a property whose value is undefined is absent. */
export type JsonObject = { [key: string]: JsonValue | undefined };

/**
 * Values the store keeps besides JSON, as the AI SDK puts them in messages:
 * they come back as the same types (a Buffer as a Uint8Array), byte for byte.
 */
export type StoredValue = JsonValue | URL | Uint8Array | ArrayBuffer | Date | StoredValue[] | { [key: string]: StoredValue | undefined };

/** Who a message is from, as the AI SDK's model messages say it. */
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';
/** The four roles, in this order: what a message's `role` is checked against. */
export const MESSAGE_ROLES: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];

/** Provider-specific options, by provider name. */
export type ProviderOptions = Record<string, JsonObject>;
/** Binary data: base64 text, or the bytes. */
export type DataContent = string | Uint8Array | ArrayBuffer;

/** Text in a user or assistant message. */
export interface TextPart {
  /** Always `'text'`. */
  type: 'text';
  /** The text. */
  text: string;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
}
/** An image in a user message. */
export interface ImagePart {
  /** Always `'image'`. */
  type: 'image';
  /** The image: base64 text, its bytes, or a URL. It comes back as the type given (a Buffer as a Uint8Array). */
  image: DataContent | URL;
  /** Its IANA media type (`image/png`), if known. */
  mediaType?: string;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
}
/** A file in a user or assistant message. */
export interface FilePart {
  /** Always `'file'`. */
  type: 'file';
  /** The file: base64 text, its bytes, or a URL. It comes back as the type given (a Buffer as a Uint8Array). */
  data: DataContent | URL;
  /** The file's name, if any. */
  filename?: string;
  /** Its IANA media type (`application/pdf`). */
  mediaType: string;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
}
/** The model's reasoning, in an assistant message. */
export interface ReasoningPart {
  /** Always `'reasoning'`. */
  type: 'reasoning';
  /** The reasoning text. */
  text: string;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
}
/** A call of a tool by the model, in an assistant message. */
export interface ToolCallPart {
  /** Always `'tool-call'`. */
  type: 'tool-call';
  /** The call's id: the tool result with the same id answers it. */
  toolCallId: string;
  /** The name of the tool called. */
  toolName: string;
  /** The arguments the model gave the tool, kept as given. */
  input: unknown;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
  /** Run by the provider: its result is in the same assistant message. */
  providerExecuted?: boolean;
}
/** The result of a tool call: in a tool message, or in the assistant message of a provider-executed call. */
export interface ToolResultPart {
  /** Always `'tool-result'`. */
  type: 'tool-result';
  /** The id of the call it answers. */
  toolCallId: string;
  /** The name of the tool that was called. */
  toolName: string;
  /** What the tool returned, or why it did not run. */
  output: ToolResultOutput;
  /** Provider-specific options for this part. */
  providerOptions?: ProviderOptions;
}
/** A tool result's output, in the forms ai 6 and ai 7 share. */
/** A tool result's output, in the forms ai 6 and ai 7 share. */
export type ToolResultOutput =
  | {
      /** `'text'`, or `'error-text'` when the tool failed. */
      type: 'text' | 'error-text';
      /** The text. */
      value: string;
      /** Provider-specific options for this output. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'json'`, or `'error-json'` when the tool failed. */
      type: 'json' | 'error-json';
      /** The JSON value. */
      value: JsonValue;
      /** Provider-specific options for this output. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'execution-denied'`: the user denied the call, and the tool did not run. */
      type: 'execution-denied';
      /** Why it was denied, if a reason was given. */
      reason?: string;
      /** Provider-specific options for this output. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'content'`: a list of parts (text, files, images). */
      type: 'content';
      /** The parts, in order. */
      value: ToolResultContentPart[];
    };
/** A part of a tool result's `content` output. */
export type ToolResultContentPart =
  | {
      /** `'text'`. */
      type: 'text';
      /** The text. */
      text: string;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'file-data'`: a file given inline. */
      type: 'file-data';
      /** The file's bytes, as base64 text. */
      data: string;
      /** Its IANA media type. */
      mediaType: string;
      /** The file's name, if any. */
      filename?: string;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'file-url'`: a file at a URL. */
      type: 'file-url';
      /** The file's URL. */
      url: string;
      /** Its IANA media type, if known. */
      mediaType?: string;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'file-id'` or `'image-file-id'`: a file (or image) the provider stores. */
      type: 'file-id' | 'image-file-id';
      /** The provider's id of the file, or, with several providers, each one's id by provider name. */
      fileId: string | Record<string, string>;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'image-data'`: an image given inline. */
      type: 'image-data';
      /** The image's bytes, as base64 text. */
      data: string;
      /** Its IANA media type. */
      mediaType: string;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'image-url'`: an image at a URL. */
      type: 'image-url';
      /** The image's URL. */
      url: string;
      /** Provider-specific options for this part. */
      providerOptions?: ProviderOptions;
    }
  | {
      /** `'custom'`: a provider-specific part, held in its provider options. */
      type: 'custom';
      /** Provider-specific options: the part's content. */
      providerOptions?: ProviderOptions;
    };
/** A request for the user's approval of a tool call, in an assistant message. */
export interface ToolApprovalRequest {
  /** Always `'tool-approval-request'`. */
  type: 'tool-approval-request';
  /** The approval's id: the response with the same id answers it. */
  approvalId: string;
  /** The id of the tool call waiting for approval. */
  toolCallId: string;
  /** The SDK's HMAC signature binding the approval to its call, when the SDK was given a secret to sign with. */
  signature?: string;
  /** The tool's input before its schema validated and transformed it, when the two differ. */
  inputSchemaInput?: unknown;
}
/** The user's answer to a ToolApprovalRequest, in a tool message. */
export interface ToolApprovalResponse {
  /** Always `'tool-approval-response'`. */
  type: 'tool-approval-response';
  /** The id of the request it answers. */
  approvalId: string;
  /** Whether the call was approved (false: denied). */
  approved: boolean;
  /** Why it was approved or denied, if a reason was given. */
  reason?: string;
  /** Whether the call is one the provider executes. */
  providerExecuted?: boolean;
}

/** A part of a user message's content. */
export type UserPart = TextPart | ImagePart | FilePart;
/** A part of an assistant message's content. */
export type AssistantPart = TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ToolApprovalRequest;
/** A part of a tool message's content. */
export type ToolPart = ToolResultPart | ToolApprovalResponse;
/** A part of any message's content. */
export type ContentPart = UserPart | AssistantPart | ToolPart;

/** What every message has besides its role and content. */
export interface MessageBase {
  /** The caller's own id (at most 191 characters); unique in its thread. */
  id?: string;
  /** The caller's own data about the message, kept as given; absent when none was given. */
  metadata?: JsonObject;
  /** Provider-specific options for the whole message. */
  providerOptions?: ProviderOptions;
  /** When the message was written: as given on input, else the time of the write (millisecond precision). */
  createdAt: Date;
}

/** A message as the store returns it: one of the SDK's four model messages. */
export type Message =
  | (MessageBase & {
      /** A system message: instructions to the model. */
      role: 'system';
      /** Its text. */
      content: string;
    })
  | (MessageBase & {
      /** A user message. */
      role: 'user';
      /** Its text, or its parts. */
      content: string | UserPart[];
    })
  | (MessageBase & {
      /** A message of the model's. */
      role: 'assistant';
      /** Its text, or its parts (text, reasoning, files, tool calls). */
      content: string | AssistantPart[];
    })
  | (MessageBase & {
      /** Tool results (and approval responses) for the calls of the assistant message before it. */
      role: 'tool';
      /** Its parts. */
      content: ToolPart[];
    });

/** A committed message: `seq` is its place in the thread's log (increasing, never reused). */
export type StoredMessage = Message & {
  /** The message's place in its thread's log: an integer from 1. */
  seq: number;
};

/**
 * A message of the effective history. Messages that came from a compaction or
 * repair (a summary, a balanced projection) were never appended: their `seq` is null.
 */
export type HistoryMessage = Message & {
  /** The message's place in its thread's log; null for a message a compaction or repair put in the history. */
  seq: number | null;
};

/**
 * A content part as the caller gives it: an object with a string `type`.
 * Unknown part types are kept too. (The first form takes the SDK's part
 * interfaces, the second object literals with their other properties.)
 */
export type PartInput =
  | {
      /** The part's type: `'text'`, `'tool-call'`, … or one the store does not know. */
      readonly type: string;
    }
  | {
      /** The part's type: `'text'`, `'tool-call'`, … or one the store does not know. */
      readonly type: string;
      readonly [key: string]: unknown;
    };

/**
 * A message as the caller gives it: the SDK's model messages as they are, and
 * anything the store returned (its `seq` is ignored). Content, metadata and
 * provider options are kept exactly as given: JSON, and the values of StoredValue.
 */
export interface MessageInput {
  /** Who the message is from. */
  role: MessageRole;
  /** Text, or an array of parts: a system message's is text, a tool message's parts. */
  content: string | readonly PartInput[];
  /** The caller's own id (at most 191 characters): a message whose id the thread holds is not stored again. */
  id?: string;
  /** The caller's own data about the message: a plain object of JSON and the values of StoredValue. */
  metadata?: { readonly [key: string]: unknown };
  /** Provider-specific options, an object per provider name. */
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
  /** The evidence: a tool message holding the synthetic results the repair added. */
  repairMessage: Message;
  /** How many messages of the effective history the repair replaced. */
  sourceMessageCount: number;
  /** When the repair was written. */
  createdAt: Date;
}

/** Which page to read: at most `limit` messages (1 to 1,000; default 100) after `cursor`. */
export interface PageOptions {
  /** The most messages (or entries) on the page: 1 to 1,000. Default 100. */
  limit?: number;
  /** The `nextCursor` of the previous page; absent for the first. */
  cursor?: string;
}

/** A page of messages; `nextCursor` reads the next one, and is null on the last. */
export interface MessagePage<M> {
  /** The page's messages, in order. */
  messages: M[];
  /** Pass as `cursor` for the next page; null on the last page. */
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
