// The JSONL session format: a header line, then one entry per line.
//   {"type":"session","version":1,"id":…,"tenantId":…,"title":…,"metadata":…,"createdAt":…,"forkedFrom"?:{"sessionId":…,"seq":…}}
//   {"type":"message","seq":1,"message":{"role":…,"content":…,"id"?,"metadata"?,"providerOptions"?,"createdAt":…,"valueTypes"?}}
//   {"type":"event","seq":2,"event":{"type":…,"data":…},"createdAt":…,"valueTypes"?,"key"?}
//   {"type":"compaction","seq":3,"cutSeq":1,"messages":[…],"sourceMessageCount":…,"retainedMessageCount":…,"createdAt":…}
//   {"type":"repair","seq":4,"cutSeq":1,"messages":[…],"sourceMessageCount":…,"repairMessage":{…},"createdAt":…}
//   {"type":"subsession","childId":…}
// Log entries come in seq order; subsession lines last, in registration order.
// Messages are in their JSON form (message-json.ts): URL, bytes and Dates as
// text, listed in the message's `valueTypes`; so are the values of a framework
// binding's events, listed in the event line's `valueTypes` (see defineBinding). A fork's header
// keeps where it came from (`forkedFrom`), so its lineage survives a move. An
// event a framework binding keyed (its idempotency key) keeps its `key`.
import type { JsonValue, Message, ValueTypes } from '../../message.types.js';
import type { ForkOrigin } from '../../lifecycle.types.js';
import type { JsonlHeader, JsonlLogEntry, JsonlSession } from '../../jsonl.types.js';
import { StoreValidationError } from '../../store.errors.js';
import { checkJsonText, fromJsonForm } from '../../values/stored-values.js';
import { messageFromJson, serializeMessage } from '../../values/message-json.js';
import { CHAT_MESSAGE_EVENT, CHAT_ORDER_EVENT } from '../chats/index.js';
import { bindingOfKind, checkHolds, declaredKind, keyFor, sessionIdOf, type BindingKind } from '../../values/bindings.js';
import { encodedValue } from '../../values/json-rows.js';
import { chatMessageOf } from '../chats/index.js';
import { giveWay } from '../../engine/give-way.js';
import { assertJson, countOf, dateOf as validDateOf, distinctIds, idOf, jsonObjectOf, textOf } from '../../values/validation.js';

export const headerLine = (header: JsonlHeader) => line({ type: 'session', version: 1, ...header });
export const logLine = (entry: JsonlLogEntry) => line(logJson(entry));

/** A log entry as a JSONL line holds it: messages in their JSON form. */
export function logJson(entry: JsonlLogEntry): object {
  switch (entry.type) {
    case 'message':
      return { ...entry, message: serializeMessage(entry.message) };
    case 'compaction':
      return { ...entry, messages: entry.messages.map(serializeMessage) };
    case 'repair':
      return { ...entry, messages: entry.messages.map(serializeMessage), repairMessage: serializeMessage(entry.repairMessage) };
    default:
      return entry;
  }
}

const messagesFromJson = (value: unknown, name: string): Message[] => {
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be an array of messages`);
  return value.map((message, i) => messageFromJson(message, `${name}[${i}]`));
};
export const subsessionLine = (childId: string) => line({ type: 'subsession', childId });

function line(value: object): string {
  return `${JSON.stringify(value)}\n`;
}

/**
 * Parses a whole JSONL session. A last line without its newline that does not
 * parse was cut short by a crash: it is reported in `warnings` and skipped.
 * Any other bad line fails the import with its line number.
 */
export async function parseJsonl(text: string): Promise<JsonlSession> {
  // A byte-order mark is not part of the header: bytes lose it in decoding, a string must too.
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const complete = text.endsWith('\n');
  if (complete) lines.pop();
  const warnings: string[] = [];
  const values: { value: unknown; number: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A large file is many lines: the rest of the process gets its turns meanwhile.
    await giveWay();
    const number = i + 1;
    if (lines[i].trim() === '') continue;
    try {
      values.push({ value: JSON.parse(lines[i]), number });
    } catch {
      if (!complete && i === lines.length - 1) warnings.push(`line ${number} has no newline and is not complete JSON (a write cut short): skipped`);
      else throw new StoreValidationError(`line ${number} is not valid JSON`);
    }
  }
  if (values.length === 0) throw new StoreValidationError('line 1: the file has no session header');
  const [first, ...rest] = values;
  const header = at(first.number, () => headerOf(first.value));
  const log: JsonlLogEntry[] = [];
  const subsessions: string[] = [];
  // The seq of the line that stored each message id: a thread holds an id once.
  const ids = new Map<string, number>();
  // The ids of the chat's UI messages so far: an order names only those.
  const chatIds = new Set<string>();
  for (const { value, number } of rest) {
    await giveWay();
    at(number, () => {
      const entry = record(value);
      if (entry.type === 'subsession') {
        subsessions.push(sessionIdOf(entry.childId, 'childId'));
        return;
      }
      if (subsessions.length > 0) throw new StoreValidationError('log entries must come before the subsession lines');
      const parsed = logEntryOf(entry);
      const previous = log.at(-1)?.seq ?? 0;
      if (parsed.seq <= previous) throw new StoreValidationError(`seq ${parsed.seq} does not follow ${previous}`);
      if ('cutSeq' in parsed && parsed.cutSeq !== 0 && !log.some((earlier) => earlier.type === 'message' && earlier.seq === parsed.cutSeq)) {
        throw new StoreValidationError(`cutSeq ${parsed.cutSeq} is not the seq of an earlier message`);
      }
      if (parsed.type === 'compaction' && (parsed.retainedMessageCount > parsed.sourceMessageCount || parsed.retainedMessageCount > parsed.messages.length)) {
        throw new StoreValidationError('retainedMessageCount exceeds sourceMessageCount or the messages given');
      }
      if (parsed.type === 'message' && parsed.message.id !== undefined) {
        const earlier = ids.get(parsed.message.id);
        if (earlier !== undefined)
          throw new StoreValidationError(`message id ${JSON.stringify(parsed.message.id)} is the id of seq ${earlier} too: a session holds a message id once`);
        ids.set(parsed.message.id, parsed.seq);
      }
      // A binding's event holds its key in the same column (an operation id, an entry's uuid).
      const key = parsed.type === 'event' ? (parsed.key ?? null) : null;
      if (key !== null) {
        const earlier = ids.get(key);
        if (earlier !== undefined)
          throw new StoreValidationError(
            `the ${parsed.type === 'event' ? parsed.event.type : ''} event's key is that of seq ${earlier} too: a session holds it once`,
          );
        ids.set(key, parsed.seq);
      }
      if (parsed.type === 'event' && parsed.event.type === CHAT_MESSAGE_EVENT) chatIds.add((parsed.event.data as { id: string }).id);
      if (parsed.type === 'event' && parsed.event.type === CHAT_ORDER_EVENT) {
        const unknown = chatOrderOf(parsed.event.data).find((id) => !chatIds.has(id));
        if (unknown !== undefined)
          throw new StoreValidationError(`the chat order names ${JSON.stringify(unknown)}, which no earlier ${CHAT_MESSAGE_EVENT} event holds`);
      }
      log.push(parsed);
    });
  }
  return { header, log, subsessions, warnings };
}

function at<T>(lineNumber: number, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof StoreValidationError) throw new StoreValidationError(`line ${lineNumber}: ${error.message}`, { cause: error });
    throw error;
  }
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreValidationError('each line must be a JSON object');
  return value as Record<string, unknown>;
}

function headerOf(value: unknown): JsonlHeader {
  const header = record(value);
  if (header.type !== 'session') throw new StoreValidationError('the first line must be the session header ({"type":"session",…})');
  if (header.version !== 1) throw new StoreValidationError(`unsupported version ${String(header.version)}`);
  return {
    id: idOf(header.id, 'id'),
    tenantId: header.tenantId == null ? null : idOf(header.tenantId, 'tenantId'),
    title: header.title == null ? null : textOf(header.title, 'title'),
    metadata: header.metadata == null ? null : jsonObjectOf(header.metadata, 'metadata'),
    createdAt: validDateOf(header.createdAt, 'createdAt'),
    forkedFrom: header.forkedFrom == null ? null : forkOriginOf(header.forkedFrom),
  };
}

function forkOriginOf(value: unknown): ForkOrigin {
  const keys = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value).sort() : [];
  if (keys.length !== 2 || keys[0] !== 'seq' || keys[1] !== 'sessionId') throw new StoreValidationError('forkedFrom must be { sessionId, seq }');
  const origin = value as Record<string, unknown>;
  return { sessionId: idOf(origin.sessionId, 'forkedFrom.sessionId'), seq: countOf(origin.seq, 'forkedFrom.seq') };
}

function logEntryOf(entry: Record<string, unknown>): JsonlLogEntry {
  const seq = seqOf(entry.seq);
  switch (entry.type) {
    case 'message':
      return { type: 'message', seq, message: messageFromJson(entry.message, 'message') };
    case 'event': {
      const event = record(entry.event);
      const type = idOf(event.type, 'event.type');
      const { data, valueTypes, value, declared } = eventValueOf(type, event.data ?? null, entry.valueTypes);
      // A chat's events are ChatStore's: loadChat reads them back as they are.
      if (type === CHAT_MESSAGE_EVENT) chatMessageOf(data, 'event.data');
      if (type === CHAT_ORDER_EVENT) chatOrderOf(data);
      const given = entry.key === undefined || entry.key === null ? undefined : idOf(entry.key, 'key');
      // A binding finds its events by the key it gives them: another would be an event it cannot find.
      // The store's and the app's events have none: a key is a binding's (a file's key on another kind is one forged for it).
      if (!declared && given !== undefined) throw new StoreValidationError(`an event of type ${JSON.stringify(type)} has no key: only a binding's events do`);
      const key = declared ? keyFor(type, declared, value, given, "the line's key") : given;
      return {
        type: 'event',
        seq,
        event: { type, data },
        createdAt: validDateOf(entry.createdAt, 'createdAt'),
        ...(valueTypes && { valueTypes }),
        ...(key !== undefined && key !== null && { key }),
      };
    }
    case 'compaction':
      return {
        type: 'compaction',
        seq,
        cutSeq: countOf(entry.cutSeq, 'cutSeq'),
        messages: messagesFromJson(entry.messages, 'messages'),
        sourceMessageCount: countOf(entry.sourceMessageCount, 'sourceMessageCount'),
        retainedMessageCount: countOf(entry.retainedMessageCount, 'retainedMessageCount'),
        createdAt: validDateOf(entry.createdAt, 'createdAt'),
      };
    case 'repair':
      return {
        type: 'repair',
        seq,
        cutSeq: countOf(entry.cutSeq, 'cutSeq'),
        messages: messagesFromJson(entry.messages, 'messages'),
        sourceMessageCount: countOf(entry.sourceMessageCount, 'sourceMessageCount'),
        repairMessage: messageFromJson(entry.repairMessage, 'repairMessage'),
        createdAt: validDateOf(entry.createdAt, 'createdAt'),
      };
    default:
      throw new StoreValidationError(`unknown entry type ${JSON.stringify(entry.type)}`);
  }
}

/**
 * An event's data as the store keeps it (and its value as the binding wrote it), checked against
 * what its kind holds: JSON for the store's own kinds and the app's; for a binding's, its JSON
 * text alone, or any value the store keeps (bytes, dates and URLs at the line's `valueTypes`).
 */
function eventValueOf(type: string, data: unknown, givenTypes: unknown): { data: JsonValue; valueTypes?: ValueTypes; value: unknown; declared?: BindingKind } {
  const binding = bindingOfKind(type);
  const declared = declaredKind(type);
  if (binding !== undefined && declared === undefined)
    throw new StoreValidationError(
      `event type "${type}" is in the ${binding} binding's namespace, and not a kind it declares (a binding's kinds import where its module is loaded)`,
    );
  if (declared === undefined || declared.jsonText) {
    if (givenTypes !== undefined) throw new StoreValidationError(`an event of type ${JSON.stringify(type)} holds JSON only: it has no valueTypes`);
    // A JSON-text kind is whatever a JSON round trip keeps (a lone surrogate, a "__proto__" key), as its binding stores it.
    if (declared) checkJsonText(data, 'event.data');
    else assertJson(data, 'event.data');
    if (declared) checkHolds(type, declared, data, 'event.data');
    return { data: data as JsonValue, value: data, declared };
  }
  // Encoded again by the store: what a line's valueTypes make of its data is kept only as the store would have written it.
  const value = fromJsonForm(structuredClone(data), givenTypes, 'event');
  checkHolds(type, declared, value, 'event.data');
  const encoded = encodedValue(value, 'event.data');
  return {
    data: JSON.parse(encoded.content) as JsonValue,
    value,
    declared,
    ...(encoded.valueTypes !== null && { valueTypes: JSON.parse(encoded.valueTypes) as ValueTypes }),
  };
}

/** A chat's order event's ids. */
function chatOrderOf(data: unknown): string[] {
  const ids = (data as { ids?: unknown } | null)?.ids;
  if (!Array.isArray(ids) || Object.keys(data as object).length !== 1)
    throw new StoreValidationError(`a ${CHAT_ORDER_EVENT} event's data must be { ids: [...] }`);
  return distinctIds(
    Array.from(ids, (id, i) => ({ id: idOf(id, `ids[${i}]`) })),
    'ids',
  ).map(({ id }) => id);
}

/**
 * The largest seq a file may give. The columns end at 2,147,483,647: an
 * imported session keeps room for a billion more entries, so a file cannot
 * leave it unable to take another append.
 */
export const MAX_IMPORTED_SEQ = 1_000_000_000;

function seqOf(value: unknown): number {
  const seq = countOf(value, 'seq');
  if (seq === 0 || seq > MAX_IMPORTED_SEQ) throw new StoreValidationError(`seq must be an integer from 1 to ${MAX_IMPORTED_SEQ}, got ${seq}`);
  return seq;
}
