// Input checks. Every store method runs them before it touches the database,
// so bad input never reaches it and never changes anything.
import { MESSAGE_ROLES, type JsonObject, type Message, type MessageRole } from './message.types.js';
import { StoreValidationError } from './store.errors.js';

/** MySQL indexes at most 191 utf8mb4 characters of a string key. */
export const MAX_ID_LENGTH = 191;
/**
 * How deeply arrays and objects may nest in content and metadata. MariaDB's JSON
 * check refuses more than 31 levels, and a compaction stores its messages two
 * levels down (an array of message objects), so 28 fits every database.
 */
export const MAX_JSON_DEPTH = 28;

const MESSAGE_KEYS = new Set(['role', 'content', 'id', 'metadata', 'createdAt']);

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

/** Lone surrogates cannot be encoded in UTF-8: databases replace or reject them. */
const isWellFormed = (value: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);

/** MySQL's DATETIME holds the years 1000 to 9999. */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(10000, 0, 1) - 1;

/** MySQL's TEXT holds 65,535 bytes. */
export function textOf(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new StoreValidationError(`${name} must be a string`);
  assertJson(value, name);
  if (Buffer.byteLength(value, 'utf8') > 65_535) throw new StoreValidationError(`${name} is longer than 65,535 bytes`);
  return value;
}

/** Sequence numbers and counts are stored in 32-bit INTEGER columns on every database. */
export const MAX_INTEGER = 2_147_483_647;

export function countOf(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_INTEGER) {
    throw new StoreValidationError(`${name} must be an integer from 0 to ${MAX_INTEGER}, got ${String(value)}`);
  }
  return value as number;
}

export function messagesOf(value: unknown, name: string, now = new Date()): Message[] {
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be an array of messages`);
  return value.map((message, i) => messageOf(message, `${name}[${i}]`, now));
}

export function messageOf(value: unknown, name: string, now = new Date()): Message {
  if (!isPlainObject(value)) throw new StoreValidationError(`${name} must be a message object`);
  for (const key of Object.keys(value)) {
    if (!MESSAGE_KEYS.has(key)) {
      throw new StoreValidationError(`${name} has an unknown property "${key}"; put extra data in metadata`);
    }
  }
  const { role, content, id, metadata, createdAt } = value;
  if (!MESSAGE_ROLES.includes(role as MessageRole)) {
    throw new StoreValidationError(`${name}.role must be one of ${MESSAGE_ROLES.join(', ')}`);
  }
  const message: Message = { role: role as MessageRole, content: contentOf(content, `${name}.content`), createdAt: dateOf(createdAt, `${name}.createdAt`, now) };
  if (id !== undefined) message.id = idOf(id, `${name}.id`);
  if (metadata !== undefined) message.metadata = jsonObjectOf(metadata, `${name}.metadata`);
  return message;
}

function contentOf(value: unknown, name: string): Message['content'] {
  if (typeof value === 'string') {
    assertJson(value, name);
    return value;
  }
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be a string or an array of parts`);
  value.forEach((part, i) => {
    if (!isPlainObject(part) || typeof part.type !== 'string') {
      throw new StoreValidationError(`${name}[${i}] must be an object with a string "type"`);
    }
  });
  assertJson(value, name);
  return value as Message['content'];
}

export function jsonObjectOf(value: unknown, name: string): JsonObject {
  if (!isPlainObject(value)) throw new StoreValidationError(`${name} must be a plain JSON object`);
  assertJson(value, name);
  return value as JsonObject;
}

export function dateOf(value: unknown, name: string, fallback?: Date): Date {
  if (value === undefined && fallback) return fallback;
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new StoreValidationError(`${name} must be a Date or an ISO-8601 string`);
  if (date.getTime() < EARLIEST || date.getTime() > LATEST) throw new StoreValidationError(`${name} must be within the years 1000 to 9999`);
  return date;
}

/** Throws unless `value` survives a JSON round trip unchanged on every supported database. */
export function assertJson(value: unknown, name: string, depth = 0): void {
  switch (typeof value) {
    case 'string':
      // PostgreSQL's jsonb cannot hold U+0000.
      if (value.includes('\u0000')) throw new StoreValidationError(`${name} contains a NUL character, which databases cannot store in JSON`);
      if (!isWellFormed(value)) throw new StoreValidationError(`${name} contains a lone UTF-16 surrogate`);
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new StoreValidationError(`${name} must be a finite number`);
      return;
    case 'object':
      if (value === null) return;
      // `depth` counts the arrays and objects around this one.
      if (depth >= MAX_JSON_DEPTH) throw new StoreValidationError(`${name} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) assertJson(value[i], `${name}[${i}]`, depth + 1);
        return;
      }
      if (!isPlainObject(value)) {
        throw new StoreValidationError(`${name} must be plain JSON (got ${value.constructor?.name ?? 'an object'}); encode binary data as base64`);
      }
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000') || !isWellFormed(key)) throw new StoreValidationError(`${name} has a key with a NUL character or a lone surrogate`);
        // Prisma leaves a "__proto__" key out of the JSON it writes: refused, rather than lost.
        if (key === '__proto__') throw new StoreValidationError(`${name} has a "__proto__" key, which the database client cannot store`);
        // Like JSON itself, an undefined property is absent.
        if (item !== undefined) assertJson(item, `${name}.${key}`, depth + 1);
      }
      return;
    default:
      throw new StoreValidationError(`${name} must be JSON (got ${typeof value})`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
