// Validated DTOs become the stores' inputs: plain objects (the stores refuse class instances) holding only what was sent.
import type { MessageInput } from '../../message.types.js';
import type { SessionEntryInput } from '../../session.types.js';
import { revivedMessage } from '../../values/message-json.js';
import { EventBody, MessageBody } from './message.dto.js';

export function plain<T extends object>(dto: T): T {
  return Object.fromEntries(Object.entries(dto).filter(([, value]) => value !== undefined)) as T;
}

/** A message body as the store's input: its valueTypes turned back into URL, bytes and Dates (the store validates the rest). */
export const messageInput = ({ role, content, id, metadata, providerOptions, createdAt, valueTypes }: MessageBody): MessageInput =>
  revivedMessage(plain({ role, content, id, metadata, providerOptions, createdAt, valueTypes }), 'message') as MessageInput;

export const messageInputs = (messages: MessageBody[]): MessageInput[] => messages.map(messageInput);

export const entryInput = (entry: MessageBody | EventBody): SessionEntryInput =>
  entry instanceof MessageBody ? messageInput(entry) : plain({ type: entry.type, data: entry.data });
