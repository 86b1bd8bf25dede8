// How a message is written to and read from its row, for the Prisma path and
// the fast paths alike: which fields, how dates and JSON travel. Drivers hand
// JSON back as text or parsed, and dates as Date objects, ISO text (a date
// without a zone is UTC, as the store writes them) or epoch milliseconds.
import type { HistoryMessage, JsonObject, Message, MessageRole, StoredMessage } from '../message.types.js';

/** A message's fields in agent_message, after (thread_id, seq). */
export interface MessageFields {
  role: string;
  content: unknown;
  messageId: string | null;
  metadata: unknown;
  createdAt: Date;
}

/** agent_message's columns of MessageFields, in the order `messageColumns` gives values. */
export const MESSAGE_COLUMNS = 'role, content, message_id, metadata, created_at';

export const messageFields = (message: Message): MessageFields => ({
  role: message.role,
  content: message.content,
  messageId: message.id ?? null,
  metadata: message.metadata ?? null,
  createdAt: message.createdAt,
});

/** A message's MESSAGE_COLUMNS as statement arguments: JSON as text, the date as a Date for the driver to write. */
export const messageColumns = (message: Message): (string | Date | null)[] => [
  message.role,
  JSON.stringify(message.content),
  message.id ?? null,
  message.metadata === undefined ? null : JSON.stringify(message.metadata),
  message.createdAt,
];

/** A log row (seq then MessageFields, JSON parsed) as the message it stores. */
export function toStoredMessage(row: { seq: number } & MessageFields): StoredMessage {
  const message: StoredMessage = { seq: row.seq, role: row.role as MessageRole, content: row.content as Message['content'], createdAt: row.createdAt };
  if (row.messageId !== null) message.id = row.messageId;
  if (row.metadata !== null) message.metadata = row.metadata as JsonObject;
  return message;
}

/** A row of [seq, ...MESSAGE_COLUMNS] as a driver returns it: JSON as text, the date in any of its forms. */
export const fromColumns = ([seq, role, content, messageId, metadata, createdAt]: unknown[]): StoredMessage =>
  toStoredMessage({
    seq: Number(seq),
    role: role as string,
    content: JSON.parse(content as string),
    messageId: messageId as string | null,
    metadata: metadata === null ? null : JSON.parse(metadata as string),
    createdAt: driverDate(createdAt),
  });

// Messages inside a boundary's JSON: dates travel as ISO strings.
type SerializedMessage = Omit<Message, 'createdAt'> & { createdAt: string };

export const serializeMessage = (message: Message): SerializedMessage => ({ ...message, createdAt: message.createdAt.toISOString() });

export const deserializeMessage = (message: SerializedMessage): Message => ({ ...message, createdAt: new Date(message.createdAt) });

/** A boundary's stored messages, an array parsed or as the JSON text a driver returns. */
export const boundaryMessages = (stored: unknown): Message[] =>
  ((typeof stored === 'string' ? JSON.parse(stored) : stored) as SerializedMessage[]).map(deserializeMessage);

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
