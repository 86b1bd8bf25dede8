// ChatStore's data operations. A chat is the fold of its session's chat
// events; a save writes the difference from that fold, read and written under
// the session's lock in one transaction.
import { isDeepStrictEqual } from 'node:util';
import { CHAT_MESSAGE_EVENT, CHAT_ORDER_EVENT, type ChatMessage } from './chat-store.js';
import type { JsonValue } from '../../message.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import { reserveSeqs, threadExists } from '../../engine/tables/message-rows.js';
import { insertEvents } from '../../engine/tables/session-rows.js';
import type { StoreTx } from '../../engine/dialect.js';
import { notFound, readOwned } from '../../engine/tables/tenancy.js';

/** A chat as its events leave it: the latest version of each message by id, and the ids that load, in order. */
interface ChatState {
  versions: Map<string, ChatMessage>;
  order: Set<string>;
}

export class ChatLog {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's sessions exist (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  async load(chatId: string): Promise<ChatMessage[]> {
    const { versions, order } = await readOwned(this.db, chatId, this.tenantId, (tx) => stateOf(tx, chatId));
    return [...order].map((id) => versions.get(id)!);
  }

  /** Makes `messages` (validated, their ids distinct) the chat; see ChatStore.saveChat. */
  save(chatId: string, messages: ChatMessage[]): Promise<void> {
    // As the events will hold them: compared without undefined properties and with -0 as 0.
    const given = messages.map((message) => JSON.parse(JSON.stringify(message)) as ChatMessage);
    return this.db.write(async (tx) => {
      // A lock that writes nothing, so that a save that changes nothing leaves the session as it was.
      await tx.dialect.lockThreads(tx.prisma, [chatId]);
      if (!(await threadExists(tx, chatId, this.tenantId))) {
        if (this.tenantId !== undefined) throw notFound(chatId);
        if (given.length === 0) return;
        // Creates the session and locks it: one that a concurrent save created meanwhile is read below, with its events.
        await reserveSeqs(tx, chatId, 0);
      }
      const { versions, order } = await stateOf(tx, chatId);
      const changed = given.filter((message) => {
        const held = versions.get(message.id);
        return held === undefined || !isDeepStrictEqual(held, message);
      });
      // What the fold gives with the new versions alone: a message recorded anew goes last unless it loads already.
      const folded = new Set(order);
      for (const message of changed) folded.add(message.id);
      const reordered = folded.size !== given.length || ![...folded].every((id, i) => id === given[i].id);
      const count = changed.length + (reordered ? 1 : 0);
      if (count === 0) return;
      const last = await reserveSeqs(tx, chatId, count);
      const createdAt = new Date();
      const events = changed.map((message, i) => ({ seq: last - count + 1 + i, type: CHAT_MESSAGE_EVENT, data: message as unknown as JsonValue, createdAt }));
      if (reordered) events.push({ seq: last, type: CHAT_ORDER_EVENT, data: { ids: given.map((message) => message.id) }, createdAt });
      await insertEvents(tx, chatId, events);
    }, given.length + 1);
  }
}

/** Folds the chat's events in log order: a version replaces its id's (a new id goes last), an order replaces the order. */
async function stateOf(tx: StoreTx, threadId: string): Promise<ChatState> {
  const rows = await tx.prisma.agentMessage.findMany({
    where: { threadId, eventType: { in: [CHAT_MESSAGE_EVENT, CHAT_ORDER_EVENT] } },
    orderBy: { seq: 'asc' },
    select: { eventType: true, content: true },
  });
  const versions = new Map<string, ChatMessage>();
  let order = new Set<string>();
  for (const row of rows) {
    if (row.eventType === CHAT_ORDER_EVENT) {
      order = new Set((JSON.parse(row.content) as { ids: string[] }).ids);
      continue;
    }
    const message = JSON.parse(row.content) as ChatMessage;
    versions.set(message.id, message);
    order.add(message.id);
  }
  return { versions, order };
}
