// A message as JSON, wherever it leaves the process as JSON text: a boundary's
// messages and a repair's evidence in the database, a JSONL line, an HTTP body.
// The date is ISO text; non-JSON values (URL, bytes, Date) are in their JSON form
// and listed in `valueTypes` (see stored-values.ts):
//   {"role":"user","content":[{"type":"image","image":"iVBORw0…"}],"createdAt":"…","valueTypes":[[["content",0,"image"],"Uint8Array"]]}
import type { JsonObject, Message } from '../message.types.js';
import { fromJsonForm, toJsonForm, type ValueTypes } from './stored-values.js';
import { messageOf, messageValueTypes } from './validation.js';

export type SerializedMessage = Omit<Message, 'createdAt' | 'content'> & { content: unknown; createdAt: string; valueTypes?: ValueTypes };

/** The JSON form of a message's content, metadata and provider options, and where their non-JSON values were. */
export function jsonForms(message: Message): { content: unknown; metadata: unknown; providerOptions: unknown; types: ValueTypes } {
  const types = messageValueTypes(message);
  const { content, metadata, providerOptions } = message;
  if (types.length === 0) return { content, metadata, providerOptions, types };
  return { ...(toJsonForm({ content, metadata, providerOptions }, types) as { content: unknown; metadata: unknown; providerOptions: unknown }), types };
}

/** The message's JSON (other fields, such as a stored message's seq, come along). */
export function serializeMessage<M extends Message>(message: M): SerializedMessage & Omit<M, keyof Message> {
  const { content, metadata, providerOptions, types } = jsonForms(message);
  const serialized = { ...message, content, createdAt: message.createdAt.toISOString() } as SerializedMessage & Omit<M, keyof Message>;
  if (metadata !== undefined) serialized.metadata = metadata as JsonObject;
  if (providerOptions !== undefined) serialized.providerOptions = providerOptions as Message['providerOptions'];
  if (types.length > 0) serialized.valueTypes = types;
  return serialized;
}

/** A message the store serialized itself (trusted: not validated again). */
export function deserializeMessage(serialized: SerializedMessage): Message {
  const { valueTypes, ...message } = serialized;
  if (valueTypes !== undefined) fromJsonForm(message, valueTypes);
  return { ...message, createdAt: new Date(serialized.createdAt) } as Message;
}

/**
 * A message given as JSON (a JSONL line's, an HTTP body's) as the value it
 * stands for: its `valueTypes` turned back into URL, bytes and Dates. The
 * parse is the caller's own: it is changed in place.
 */
export function revivedMessage(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || !('valueTypes' in value)) return value;
  const { valueTypes, ...message } = value as Record<string, unknown>;
  const fields = { content: message.content, metadata: message.metadata, providerOptions: message.providerOptions };
  fromJsonForm(fields, valueTypes, name);
  for (const field of ['content', 'metadata', 'providerOptions'] as const) if (fields[field] !== undefined) message[field] = fields[field];
  return message;
}

/** A message given as JSON, revived and validated (StoreValidationError when it is not a message). */
export const messageFromJson = (value: unknown, name: string, now?: Date): Message => messageOf(revivedMessage(value, name), name, now);
