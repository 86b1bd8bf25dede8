// Store results as the API sends them: messages in their JSON form (message-json.ts),
// so URL, bytes and Dates in content survive JSON as text listed in `valueTypes`.
import type { Message } from '../../message.types.js';
import { serializeMessage } from '../../values/message-json.js';
import type { SessionEntry } from '../../session.types.js';

export const wireMessage = <M extends Message>(message: M) => serializeMessage(message);

export const wireMessages = <M extends Message>(messages: M[]) => messages.map(wireMessage);

/** A page, a transcript or a repair: its messages in their JSON form. */
export const wirePage = <P extends { messages: Message[] }>(page: P) => ({ ...page, messages: wireMessages(page.messages) });

export const wireEntry = (entry: SessionEntry) => ('role' in entry ? wireMessage(entry) : entry);

export const wireRepair = <R extends { repairMessage: Message }>(repair: R) => ({ ...repair, repairMessage: wireMessage(repair.repairMessage) });
