// Input checks. Every store method runs them before it touches the database,
// so bad input never reaches it and never changes anything.
import { types } from 'node:util';
import { MESSAGE_ROLES, type JsonObject, type Message, type MessageRole } from '../message.types.js';
import { StoreValidationError } from '../store.errors.js';
import { checkValue, isDate, isPlainObject, isWellFormed, MAX_JSON_DEPTH, toJsonForm, urlCopyOf, type ValueTypes } from './stored-values.js';

/** MySQL indexes at most 191 utf8mb4 characters of a string key. */
export const MAX_ID_LENGTH = 191;
export { MAX_JSON_DEPTH } from './stored-values.js';

// `seq` is read output's: ignored on input.
const MESSAGE_KEYS = new Set(['role', 'content', 'id', 'metadata', 'providerOptions', 'createdAt', 'seq']);

/** Where each validated message's non-JSON values are, from its validation (see messageValueTypes). */
const VALUE_TYPES_OF = new WeakMap<Message, ValueTypes>();

/** A message's content, metadata and provider options as the JSON text its row keeps, and where their non-JSON values are. */
export interface MessageTexts {
  content: string;
  metadata: string | null;
  providerOptions: string | null;
  /** JSON of ValueTypes; null when all is JSON. */
  valueTypes: string | null;
}

/** Each validated message's texts, made as it was validated: what the caller changes afterwards is not stored. */
const TEXTS_OF = new WeakMap<Message, MessageTexts>();

/**
 * `value` as an id (of a thread, session, tenant, message): a non-empty string of at most 191 characters,
 * without NUL characters, lone UTF-16 surrogates or a trailing space. Anything else is a
 * StoreValidationError whose message names it `name`.
 */
export function idOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new StoreValidationError(`${name} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  if (value.includes('\u0000')) throw new StoreValidationError(`${name} must not contain NUL characters`);
  if (!isWellFormed(value)) throw new StoreValidationError(`${name} contains a lone UTF-16 surrogate`);
  // MySQL's collations pad with spaces: "x" and "x " would be one key there.
  if (value.endsWith(' ')) throw new StoreValidationError(`${name} must not end with a space`);
  return value;
}

/** MySQL's DATETIME holds the years 1000 to 9999. */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(10000, 0, 1) - 1;

/** MySQL's TEXT holds 65,535 bytes. */
export function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new StoreValidationError(`${name} must be a string`);
  assertJson(value, name);
  // Unlike JSON text, which escapes it, a text column of PostgreSQL cannot hold U+0000.
  if (value.includes('\u0000')) throw new StoreValidationError(`${name} must not contain NUL characters`);
  if (Buffer.byteLength(value, 'utf8') > 65_535) throw new StoreValidationError(`${name} is longer than 65,535 bytes`);
  return value;
}

/** Sequence numbers and counts are stored in 32-bit INTEGER columns on every database. */
export const MAX_INTEGER = 2_147_483_647;

/** A key text of any length (a framework adapter digests it): a string without NUL or a lone UTF-16 surrogate. */
export function keyTextOf(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new StoreValidationError(`${name} must be a string`);
  if (value.includes('\u0000') || !isWellFormed(value)) throw new StoreValidationError(`${name} must not contain NUL characters or lone UTF-16 surrogates`);
  return value;
}

/** A copy of `value`, read once (a getter, a Proxy); what cannot be copied is a StoreValidationError that quotes nothing of it. */
export function dataCopyOf(value: unknown, name: string): unknown {
  try {
    return copied(value, new Map(), 0);
  } catch (error) {
    if (error instanceof StoreValidationError) throw new StoreValidationError(`${name} ${error.message}`);
    throw new StoreValidationError(`${name} cannot be copied as data (a function, a symbol, a Proxy or a class the store does not keep)`);
  }
}

/**
 * structuredClone, but for a URL, which it would copy as {} on Node 20 (its state is private): arrays and plain
 * objects are walked (each key its own, `__proto__` too), each URL copied as a URL, each byte view as its bytes;
 * the rest, and an array with a hole (the store refuses one), is structuredClone's.
 */
function copied(value: unknown, seen: Map<object, unknown>, depth: number): unknown {
  if (typeof value !== 'object' || value === null)
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : structuredClone(value);
  // As structuredClone does: a Proxy is not data.
  if (types.isProxy(value)) throw new TypeError('a Proxy');
  if (seen.has(value)) return seen.get(value);
  if (depth > MAX_JSON_DEPTH) throw new StoreValidationError(`nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) {
    const length = value.length;
    for (let i = 0; i < length; i++) if (!Object.hasOwn(value, i)) return structuredClone(value);
    const copy: unknown[] = new Array(length);
    seen.set(value, copy);
    for (let i = 0; i < length; i++) copy[i] = copied(value[i], seen, depth + 1);
    return copy;
  }
  if (isPlainObject(value)) {
    const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
    seen.set(value, copy);
    for (const key of Object.keys(value))
      Object.defineProperty(copy, key, { value: copied(value[key], seen, depth + 1), enumerable: true, writable: true, configurable: true });
    return copy;
  }
  const url = urlCopyOf(value);
  if (url) return url;
  // Its own bytes, not the whole buffer under a view (a small Buffer's is an 8 KiB pool).
  if (value instanceof Uint8Array && (value.constructor === Uint8Array || Buffer.isBuffer(value))) return new Uint8Array(value);
  return structuredClone(value);
}

/** `value` as a count or sequence number: an integer from 0 to 2,147,483,647; anything else is a StoreValidationError naming it `name`. */
export function countOf(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_INTEGER) {
    throw new StoreValidationError(`${name} must be an integer from 0 to ${MAX_INTEGER}, got ${String(value)}`);
  }
  return value as number;
}

export function messagesOf(value: unknown, name: string, now = new Date()): Message[] {
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be an array of messages`);
  // Array.from, not map: a hole in a sparse array is a missing message, not one skipped.
  return Array.from(value, (message, i) => messageOf(message, `${name}[${i}]`, now));
}

/** Messages stored as rows of one thread: their ids must be distinct (a unique key holds them). */
export function distinctIds<T extends { id?: string }>(messages: T[], name: string): T[] {
  const first = new Map<string, number>();
  messages.forEach((message, i) => {
    if (message.id === undefined) return;
    const earlier = first.get(message.id);
    if (earlier !== undefined)
      throw new StoreValidationError(`${name}[${i}].id repeats ${name}[${earlier}].id (${JSON.stringify(message.id)}): a thread holds a message id once`);
    first.set(message.id, i);
  });
  return messages;
}

export function messageOf(value: unknown, name: string, now = new Date()): Message {
  if (!isPlainObject(value)) throw new StoreValidationError(`${name} must be a message object`);
  for (const key of Object.keys(value)) {
    if (!MESSAGE_KEYS.has(key)) {
      throw new StoreValidationError(`${name} has an unknown property "${key}"; put extra data in metadata`);
    }
  }
  const { role, content, id, metadata, providerOptions, createdAt } = value;
  if (!MESSAGE_ROLES.includes(role as MessageRole)) {
    throw new StoreValidationError(`${name}.role must be one of ${MESSAGE_ROLES.join(', ')}`);
  }
  const types: ValueTypes = [];
  // A copy of the caller's date: the message keeps none of the caller's objects it could change.
  const message = {
    role,
    content: contentOf(content, role as MessageRole, `${name}.content`, types),
    createdAt: new Date(dateOf(createdAt, `${name}.createdAt`, now)),
  } as Message;
  if (id !== undefined) message.id = idOf(id, `${name}.id`);
  if (metadata !== undefined) message.metadata = objectOf(metadata, `${name}.metadata`, 'metadata', types) as JsonObject;
  if (providerOptions !== undefined) message.providerOptions = providerOptionsOf(providerOptions, `${name}.providerOptions`, types);
  VALUE_TYPES_OF.set(message, types);
  TEXTS_OF.set(message, textsOf(message, types, name));
  return message;
}

/** The message's texts (see MessageTexts): made at its validation, or now. */
export function messageTexts(message: Message): MessageTexts {
  let texts = TEXTS_OF.get(message);
  if (texts === undefined) TEXTS_OF.set(message, (texts = textsOf(message, messageValueTypes(message), 'message')));
  return texts;
}

function textsOf(message: Message, types: ValueTypes, name: string): MessageTexts {
  const { content, metadata, providerOptions } = message;
  const json = (types.length === 0 ? { content, metadata, providerOptions } : toJsonForm({ content, metadata, providerOptions }, types)) as Record<
    string,
    unknown
  >;
  try {
    return {
      content: JSON.stringify(json.content),
      metadata: json.metadata === undefined ? null : JSON.stringify(json.metadata),
      providerOptions: json.providerOptions === undefined ? null : JSON.stringify(json.providerOptions),
      valueTypes: types.length === 0 ? null : JSON.stringify(types),
    };
  } catch (error) {
    throw new StoreValidationError(`${name} cannot be written as JSON: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
}

/**
 * Where a message's non-JSON values are, each path led by its field
 * ("content", "metadata" or "providerOptions"); [] when it is all JSON.
 * Remembered from the message's validation, or found again.
 */
export function messageValueTypes(message: Message): ValueTypes {
  let types = VALUE_TYPES_OF.get(message);
  if (types === undefined) {
    types = [];
    for (const field of ['content', 'metadata', 'providerOptions'] as const) {
      if (message[field] !== undefined) types.push(...prefixed(field, checkValue(message[field], field)));
    }
    VALUE_TYPES_OF.set(message, types);
  }
  return types;
}

const prefixed = (field: string, types: ValueTypes): ValueTypes => types.map(([path, type]) => [[field, ...path], type]);

function contentOf(value: unknown, role: MessageRole, name: string, types: ValueTypes): Message['content'] {
  // The AI SDK's shapes: a system message's content is text, a tool message's parts.
  if (typeof value === 'string') {
    if (role === 'tool') throw new StoreValidationError(`${name} of a tool message must be an array of parts (tool results)`);
    assertJson(value, name);
    return value;
  }
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be a string or an array of parts`);
  if (role === 'system') throw new StoreValidationError(`${name} of a system message must be a string`);
  value.forEach((part, i) => {
    if (!isPlainObject(part) || typeof part.type !== 'string') {
      throw new StoreValidationError(`${name}[${i}] must be an object with a string "type"`);
    }
  });
  types.push(...prefixed('content', checkValue(value, name)));
  return value as Message['content'];
}

/** Provider options: an object of objects, one per provider. */
function providerOptionsOf(value: unknown, name: string, types: ValueTypes): Message['providerOptions'] {
  if (isPlainObject(value)) {
    for (const [provider, options] of Object.entries(value)) {
      if (options !== undefined && !isPlainObject(options)) throw new StoreValidationError(`${name}.${provider} must be an object of that provider's options`);
    }
  }
  return objectOf(value, name, 'providerOptions', types) as Message['providerOptions'];
}

function objectOf(value: unknown, name: string, field: string, types: ValueTypes): object {
  if (!isPlainObject(value)) throw new StoreValidationError(`${name} must be an object`);
  types.push(...prefixed(field, checkValue(value, name)));
  return value;
}

export function jsonObjectOf(value: unknown, name: string): JsonObject {
  if (!isPlainObject(value)) throw new StoreValidationError(`${name} must be a plain JSON object`);
  assertJson(value, name);
  return value as JsonObject;
}

export function dateOf(value: unknown, name: string, fallback?: Date): Date {
  if (value === undefined && fallback) return fallback;
  const time = isDate(value) ? Date.prototype.getTime.call(value) : typeof value === 'string' ? instantOf(value) : undefined;
  if (time === undefined || Number.isNaN(time)) {
    throw new StoreValidationError(`${name} must be a Date or an ISO-8601 date-time with Z or an offset (2024-05-01T12:00:00Z), got ${describe(value)}`);
  }
  if (time < EARLIEST || time > LATEST) throw new StoreValidationError(`${name} must be within the years 1000 to 9999`);
  return value instanceof Date ? value : new Date(time);
}

// Date() alone takes "1" and "12/31/2024", rolls 2024-02-31 over to March and
// reads a date-time without a zone in the server's time zone: only the
// ISO-8601 extended form with its zone is taken, each field within its range.
const ISO_INSTANT =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:\.(?<fraction>\d{1,9}))?)?(?:Z|(?<sign>[+-])(?<offsetHours>\d{2}):(?<offsetMinutes>\d{2}))$/;

/** Milliseconds since the epoch of an ISO-8601 instant, or NaN. Digits past the millisecond are dropped: the databases keep milliseconds. */
export function instantOf(text: string): number {
  const fields = ISO_INSTANT.exec(text)?.groups;
  if (!fields) return NaN;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [
    'year',
    'month',
    'day',
    'hour',
    'minute',
    'second',
    'offsetHours',
    'offsetMinutes',
  ].map((name) => Number(fields[name] ?? 0));
  const lastDay = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  const inRange =
    month >= 1 && month <= 12 && day >= 1 && day <= lastDay && hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59;
  // Date.UTC reads the years 0 to 99 as 1900 to 1999; the store takes none before 1000.
  if (!inRange || year < 1000) return inRange ? -Infinity : NaN;
  const millisecond = Number((fields.fraction ?? '').slice(0, 3).padEnd(3, '0'));
  const offset = (fields.sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return Date.UTC(year, month - 1, day, hour, minute, second, millisecond) - offset * 60_000;
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** A short, safe rendering of a bad value for an error message. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (isDate(value)) return 'an invalid Date';
  return value === null ? 'null' : typeof value;
}

/** Throws unless `value` is plain JSON (no non-JSON values, see stored-values.ts). */
export function assertJson(value: unknown, name: string): void {
  checkValue(value, name, true);
}
