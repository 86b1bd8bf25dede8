// The ChatStore contract: UI-message chats, as the AI SDK's chat recipe saves and loads them.
// Inject it by its token: `@Inject(ChatStore) chats: ChatStore`.

/** A UI message's role, as the AI SDK's UIMessage has it. */
export type ChatRole = 'system' | 'user' | 'assistant';

/** A part of a UI message: an object with a string `type` (the AI SDK's UIMessagePart is one). */
export interface ChatPart {
  /** The part's type (`'text'`, `'tool-search'`, …). */
  type: string;
  [key: string]: unknown;
}

/**
 * A UI message, typed structurally so that the package does not depend on the
 * AI SDK: its `UIMessage` is assignable to this one, and `loadChat<UIMessage>`
 * gives them back under the SDK's type.
 */
export interface ChatMessage {
  /** The message's id: non-empty, at most 191 characters, distinct in its chat. */
  id: string;
  /** Who the message is from. */
  role: ChatRole;
  /** The application's own data about the message: JSON only, as the whole message must be. */
  metadata?: unknown;
  /** The message's parts, in order. */
  parts: ChatPart[];
}

/** The session event type of a version of a message: its data is the message. */
export const CHAT_MESSAGE_EVENT = 'ui-message';
/** The session event type of a chat's order, when it is not the order its messages were first recorded in: its data is `{ ids }`. */
export const CHAT_ORDER_EVENT = 'ui-message-order';

/**
 * Chats of UI messages, each a session whose log keeps every version of every
 * message. A chat is a session like any other: SessionStore lists, gets,
 * exports and imports it, TranscriptStore.deleteTranscript deletes it, and its
 * versions are the session's events of type CHAT_MESSAGE_EVENT (its orders,
 * CHAT_ORDER_EVENT). Unscoped, the first save that records something creates
 * the session; scoped (TenantStores), the chat must be a session of the tenant's.
 * `chatId` is a non-empty string of at most 191 characters; invalid input
 * throws StoreValidationError and writes nothing.
 */
export interface ChatStore {
  /**
   * The messages as the last saveChat left them, deep-equal to what it was
   * given, in its order; `[]` for an unknown chat. Typed as the caller's UI
   * message type (`loadChat<UIMessage>(id)`) without being checked against it:
   * pass the result to the SDK's validateUIMessages with your tools and schemas.
   */
  loadChat<M extends ChatMessage = ChatMessage>(chatId: string): Promise<M[]>;

  /**
   * Makes `messages`, the whole list (as the SDK's onFinish gives it), the
   * chat, writing only what changed, in one transaction under the chat's lock.
   * A message whose id the chat has never held, or held with other content
   * (parts, metadata: a continued assistant message, a tool approval; key order
   * aside), is recorded as a new version; earlier versions stay in the log.
   * Messages left out of the list (a regeneration) no longer load, and neither
   * does an order other than the list's. Nothing changed, nothing is written.
   * Concurrent saves of one chat are serialized: the chat ends as one of the
   * lists, whole. Each message must be a plain JSON object with a non-empty
   * string `id` (at most 191 characters, distinct in the list), a `role` of
   * 'system', 'user' or 'assistant' and `parts`, an array of objects with a
   * string `type`. Resolves to nothing, so that the recipe's
   * `onFinish: ({ messages }) => chats.saveChat(id, messages)` type-checks.
   */
  saveChat(chatId: string, messages: readonly ChatMessage[]): Promise<void>;

  /** The same store, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): ChatStore;
}

/** The injection token of ChatStore, which StoreModule provides: `@Inject(ChatStore) chats: ChatStore`. */
export const ChatStore = Symbol('ChatStore');
