// ChatStore: validates its input, then runs one data operation per call.
import type { ChatMessage, ChatRole, ChatStore } from './chat-store.js';
import type { StoreDatabase } from '../../engine/database.js';
import { ChatLog } from './chat-log.js';
import { StoreValidationError } from '../../store.errors.js';
import { assertJson, distinctIds, idOf } from '../../values/validation.js';
import { sessionIdOf } from '../../values/bindings.js';

const CHAT_ROLES: readonly unknown[] = ['system', 'user', 'assistant'] satisfies ChatRole[];

export class PrismaChatStore implements ChatStore {
  readonly #log: ChatLog;

  constructor(
    private readonly db: StoreDatabase,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {
    this.#log = new ChatLog(db, tenantId);
  }

  withTransaction(tx: object): ChatStore {
    return new PrismaChatStore(this.db.joining(tx), this.tenantId);
  }

  async loadChat<M extends ChatMessage = ChatMessage>(chatId: string): Promise<M[]> {
    return (await this.#log.load(idOf(chatId, 'chatId'))) as M[];
  }

  async saveChat(chatId: string, messages: readonly ChatMessage[]): Promise<void> {
    const id = sessionIdOf(chatId, 'chatId');
    return this.#log.save(id, chatMessagesOf(messages));
  }
}

function chatMessagesOf(value: unknown): ChatMessage[] {
  if (!Array.isArray(value)) throw new StoreValidationError('messages must be an array of UI messages');
  return distinctIds(
    Array.from(value, (message, i) => chatMessageOf(message, `messages[${i}]`)),
    'messages',
  );
}

/** A UI message as ChatStore keeps it (also checked on a JSONL import of a chat). */
export function chatMessageOf(value: unknown, name: string): ChatMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoreValidationError(`${name} must be a UI message { id, role, parts, metadata? }`);
  const { id, role, parts } = value as Record<string, unknown>;
  if (id === '') {
    // What the SDK's onFinish gives when the response message was given no id on the server.
    throw new StoreValidationError(
      `${name}.id is empty: let the server give response messages ids, toUIMessageStreamResponse({ originalMessages, generateMessageId, onFinish })`,
    );
  }
  idOf(id, `${name}.id`);
  if (!CHAT_ROLES.includes(role)) throw new StoreValidationError(`${name}.role must be one of ${CHAT_ROLES.join(', ')}`);
  if (!Array.isArray(parts)) throw new StoreValidationError(`${name}.parts must be an array of parts`);
  parts.forEach((part: unknown, i) => {
    if (typeof part !== 'object' || part === null || typeof (part as { type?: unknown }).type !== 'string') {
      throw new StoreValidationError(`${name}.parts[${i}] must be an object with a string "type"`);
    }
  });
  assertJson(value, name);
  return value as ChatMessage;
}
