// How a message is written to and read from its row, for the Prisma path and
// the fast paths alike: which fields, how dates and values travel. JSON is kept
// as text (the columns are text, so key order, numbers and NUL characters come
// back as written); non-JSON values travel in their JSON form (stored-values.ts)
// with the list of where they were. Drivers hand dates back as Date objects, ISO
// text (a date without a zone is UTC, as the store writes them) or epoch milliseconds.
import type { HistoryMessage, JsonObject, Message, StoredMessage } from '../message.types.js';
import { deserializeMessage, serializeMessage, type SerializedMessage } from '../values/message-json.js';
import { messageTexts } from '../values/validation.js';
import { fromJsonForm } from '../values/stored-values.js';

/** A message's fields in agent_message, after (thread_id, seq): JSON as text. */
export interface MessageFields {
  role: string;
  content: string;
  messageId: string | null;
  metadata: string | null;
  providerOptions: string | null;
  /** Where the non-JSON values of content, metadata and providerOptions are (JSON of ValueTypes); null when none. */
  valueTypes: string | null;
  createdAt: Date;
}

/** agent_message's columns of MessageFields, in the order `messageColumns` gives values. */
export const MESSAGE_COLUMNS = 'role, content, message_id, metadata, provider_options, value_types, created_at';

/** The message's fields; its texts were made as it was validated (see messageTexts). */
export function messageFields(message: Message): MessageFields {
  return { role: message.role, messageId: message.id ?? null, ...messageTexts(message), createdAt: message.createdAt };
}

/** The message as a read will return it (a Buffer as a Uint8Array, no undefined properties, none of the caller's objects): what its row holds. */
export const asStored = (message: Message, seq: number): StoredMessage => toStoredMessage({ seq, ...messageFields(message) });

/** A message's MESSAGE_COLUMNS as statement arguments: JSON as text, the date as a Date for the driver to write. */
export function messageColumns(message: Message): (string | Date | null)[] {
  const fields = messageFields(message);
  return [fields.role, fields.content, fields.messageId, fields.metadata, fields.providerOptions, fields.valueTypes, fields.createdAt];
}

/** A log row (seq then MessageFields, JSON as text) as the message it stores. */
export function toStoredMessage(row: { seq: number } & MessageFields): StoredMessage {
  const values = {
    content: JSON.parse(row.content),
    metadata: row.metadata === null ? undefined : JSON.parse(row.metadata),
    providerOptions: row.providerOptions === null ? undefined : JSON.parse(row.providerOptions),
  };
  if (row.valueTypes !== null) fromJsonForm(values, JSON.parse(row.valueTypes));
  const message = { seq: row.seq, role: row.role, content: values.content, createdAt: row.createdAt } as StoredMessage;
  if (row.messageId !== null) message.id = row.messageId;
  if (values.metadata !== undefined) message.metadata = values.metadata as JsonObject;
  if (values.providerOptions !== undefined) message.providerOptions = values.providerOptions;
  return message;
}

/** A row of [seq, ...MESSAGE_COLUMNS] as a driver returns it: JSON as text, the date in any of its forms. */
export const fromColumns = ([seq, role, content, messageId, metadata, providerOptions, valueTypes, createdAt]: unknown[]): StoredMessage =>
  toStoredMessage({
    seq: Number(seq),
    role: role as string,
    content: content as string,
    messageId: messageId as string | null,
    metadata: metadata as string | null,
    providerOptions: providerOptions as string | null,
    valueTypes: valueTypes as string | null,
    createdAt: driverDate(createdAt),
  });

/** Messages as the JSON text a boundary keeps. */
export const boundaryText = (messages: Message[]): string => JSON.stringify(messages.map(serializeMessage));

/** A boundary's stored messages, from the JSON text a column holds. */
export const boundaryMessages = (stored: unknown): Message[] => (JSON.parse(stored as string) as SerializedMessage[]).map(deserializeMessage);

/** Replacement messages were never appended: their seq is null in a history. */
export const asHistory = (messages: Message[]): HistoryMessage[] => messages.map((message) => ({ ...message, seq: null }));

/** A date as a driver returns it: a Date, epoch milliseconds, or ISO text (without a zone: UTC, as the store writes it). */
export function driverDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const text = String(value);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

/**
 * The effective history from rows of [part, seq, ...MESSAGE_COLUMNS] in order:
 * a first row of part 0 holds the latest boundary's messages (in the content column), then the log after its cut.
 */
export function historyOf(rows: unknown[][]): HistoryMessage[] {
  const boundary = rows.length > 0 && Number(rows[0][0]) === 0 ? rows[0] : undefined;
  const log = (boundary ? rows.slice(1) : rows).map((row) => fromColumns(row.slice(1)));
  return boundary ? [...asHistory(boundaryMessages(boundary[3])), ...log] : log;
}
