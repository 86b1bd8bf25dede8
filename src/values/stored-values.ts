// The values the store keeps besides JSON (URL, bytes, Date), and their JSON form:
// the JSON with each such value replaced by its text, plus a list saying where
// they were and what they were. The list travels next to the JSON (a column, a
// field of a JSONL line or an HTTP body), so no value of the caller's is ever
// mistaken for an encoded one.
import { StoreValidationError } from '../store.errors.js';

import type { ValuePath, ValueType, ValueTypes } from '../message.types.js';

export type { ValuePath, ValueType, ValueTypes } from '../message.types.js';
/** Every ValueType: the non-JSON values the store keeps, as a message's `valueTypes` names them. */
export const VALUE_TYPES = ['URL', 'Uint8Array', 'ArrayBuffer', 'Date'] as const satisfies readonly ValueType[];

/**
 * How deeply arrays and objects may nest: a bound on the recursion of every walk
 * over a value. The tightest is Node's deep equality (isDeepStrictEqual, which
 * compares a retried message with the stored one), which overflows the stack at
 * about 1,250 levels on Node 20 (structuredClone at 2,450, JSON.stringify at
 * 4,150); the store's calls run deeper in the stack than those measures, so 500
 * leaves them room. The columns are text: no database sets a bound of its own.
 */
export const MAX_JSON_DEPTH = 500;

// Values may come from another realm (a vm context; jest's structuredClone, which the
// AI SDK calls on its messages): they are told by their internal slots, not instanceof.
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!.get!;
const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;
// URL's own getter: it reads the URL's private state, so an object posing as a URL fails it.
const urlHref = Object.getOwnPropertyDescriptor(URL.prototype, 'href')!.get!;

/** Whether `test` accepts `value` (the brand checks throw on anything else). */
function branded(test: () => unknown): boolean {
  try {
    test();
    return true;
  } catch {
    return false;
  }
}

/** A plain object: of Object.prototype (this realm's or another's) or of none. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return true;
  return Object.getPrototypeOf(proto) === null && Object.prototype.toString.call(value) === '[object Object]' && Object.hasOwn(proto, 'hasOwnProperty');
}

/**
 * A copy of `value` when it is a URL, told by its private state (an own `href` cannot pose as one); undefined when
 * it is none. A URL of a subclass is a TypeError: the store keeps URLs as URL (checkValue refuses subclasses too).
 */
export function urlCopyOf(value: object): URL | undefined {
  if (!branded(() => urlHref.call(value))) return undefined;
  if (!ofClass(value, 'URL')) throw new TypeError('a subclass of URL');
  return new URL(urlHref.call(value) as string);
}

/** A Date, of this realm or another. */
export const isDate = (value: unknown): value is Date =>
  value instanceof Date || (typeof value === 'object' && value !== null && branded(() => Date.prototype.getTime.call(value)));

/** Whether `value` is an instance of the built-in class `name` itself (this realm's or another's), not of a subclass. */
function ofClass(value: object, name: string): boolean {
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return proto !== null && Object.hasOwn(proto, 'constructor') && proto.constructor?.name === name;
}

/**
 * The type of a non-JSON value the store keeps, or undefined. Subclasses are
 * not kept (they would come back as their base class), except Buffer, which
 * comes back as a Uint8Array.
 */
function valueTypeOf(value: object): ValueType | undefined {
  if (isDate(value)) return ofClass(value, 'Date') ? 'Date' : undefined;
  if (branded(() => urlHref.call(value))) return ofClass(value, 'URL') ? 'URL' : undefined;
  // Other typed arrays would come back as bytes of another length.
  if (ArrayBuffer.isView(value))
    return typedArrayName.call(value) === 'Uint8Array' && (ofClass(value, 'Uint8Array') || Buffer.isBuffer(value)) ? 'Uint8Array' : undefined;
  // A SharedArrayBuffer fails the brand check.
  if (branded(() => arrayBufferLength.call(value))) return ofClass(value, 'ArrayBuffer') ? 'ArrayBuffer' : undefined;
  return undefined;
}

/**
 * Checks that `value` is JSON or holds only the non-JSON values the store keeps,
 * and returns where those are ([] for plain JSON). `plainOnly`: JSON only.
 * Throws StoreValidationError naming the first bad value.
 */
export function checkValue(value: unknown, name: string, plainOnly = false): ValueTypes {
  return checked(value, name, { plainOnly, asText: false });
}

/**
 * Checks that `value` is JSON that a JSON round trip gives back equal, to be kept
 * as its JSON text alone (as the framework adapters keep their entries): then a
 * lone UTF-16 surrogate (escaped in the text) and a "__proto__" key (never
 * assigned, only parsed back) are kept too. Throws StoreValidationError naming the first bad value.
 */
export function checkJsonText(value: unknown, name: string): void {
  checked(value, name, { plainOnly: true, asText: true });
}

/** `plainOnly`: JSON alone. `asText`: the value is kept as its JSON text, never taken apart key by key. */
interface Rules {
  plainOnly: boolean;
  asText: boolean;
}

function checked(value: unknown, name: string, rules: Rules): ValueTypes {
  const found: ValueTypes = [];
  try {
    walk(value, name, [], found, rules);
  } catch (error) {
    // A getter or Proxy trap that throws, a revoked Proxy: the value cannot be read, so it is not stored.
    if (error instanceof StoreValidationError) throw error;
    throw new StoreValidationError(`${name} cannot be read as JSON: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  return found;
}

function walk(value: unknown, name: string, path: ValuePath, found: ValueTypes, rules: Rules): void {
  switch (typeof value) {
    case 'string':
      if (!rules.asText && !isWellFormed(value)) throw new StoreValidationError(`${name} contains a lone UTF-16 surrogate`);
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new StoreValidationError(`${name} must be a finite number, got ${value}`);
      return;
    case 'object': {
      if (value === null) return;
      // `path.length` counts the arrays and objects around this one.
      if (path.length >= MAX_JSON_DEPTH)
        throw new StoreValidationError(`${name} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (or refers to itself)`);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          walk(value[i], `${name}[${i}]`, path, found, rules);
          path.pop();
        }
        return;
      }
      if (!isPlainObject(value)) {
        const type = rules.plainOnly ? undefined : valueTypeOf(value);
        if (type === undefined) {
          const kept = rules.plainOnly ? '' : ' (URL, Uint8Array, Buffer, ArrayBuffer and Date are kept too)';
          throw new StoreValidationError(`${name} must be plain JSON${kept}, got ${value.constructor?.name ?? 'an object'}`);
        }
        if (type === 'Date' && Number.isNaN(Date.prototype.getTime.call(value))) throw new StoreValidationError(`${name} is an invalid Date`);
        found.push([[...path], type]);
        return;
      }
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (!rules.asText && !isWellFormed(key)) throw new StoreValidationError(`${name} has a key with a lone UTF-16 surrogate`);
        // Assigning it would set the prototype of the object it is read into.
        if (!rules.asText && key === '__proto__') throw new StoreValidationError(`${name} has a "__proto__" key`);
        // Like JSON itself, an undefined property is absent.
        if (item === undefined) continue;
        path.push(key);
        walk(item, `${name}.${key}`, path, found, rules);
        path.pop();
      }
      return;
    }
    default:
      throw new StoreValidationError(`${name} must be JSON, got ${typeof value}`);
  }
}

/** Lone surrogates cannot be encoded in UTF-8: databases replace or reject them. */
export const isWellFormed = (value: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);

/** The text a non-JSON value is kept as. */
function encode(value: object, type: ValueType): string {
  switch (type) {
    case 'Date':
      return Date.prototype.toISOString.call(value);
    case 'URL':
      return urlHref.call(value) as string;
    case 'Uint8Array': {
      const bytes = value as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    }
    case 'ArrayBuffer':
      return Buffer.from(value as ArrayBuffer).toString('base64');
  }
}

function decode(text: unknown, type: ValueType, name: string): object {
  if (typeof text !== 'string') throw new StoreValidationError(`${name}: a ${type} must be given as a string`);
  switch (type) {
    case 'Date': {
      const date = new Date(text);
      if (Number.isNaN(date.getTime()) || date.toISOString() !== text)
        throw new StoreValidationError(`${name}: "${text.slice(0, 40)}" is not a Date as toISOString() writes it`);
      return date;
    }
    case 'URL':
      if (!URL.canParse(text)) throw new StoreValidationError(`${name}: not a URL`);
      return new URL(text);
    case 'Uint8Array':
    case 'ArrayBuffer': {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new StoreValidationError(`${name}: a ${type} must be given as base64`);
      const bytes = Buffer.from(text, 'base64');
      const copy = new Uint8Array(bytes.byteLength);
      copy.set(bytes);
      return type === 'Uint8Array' ? copy : copy.buffer;
    }
  }
}

/** `value` with the non-JSON values at `types` replaced by their text: a copy along those paths only, each container copied once. */
export function toJsonForm(value: unknown, types: ValueTypes): unknown {
  const copies = new Map<object, Record<string | number, unknown>>();
  const copyOf = (container: object) => {
    let copy = copies.get(container);
    if (copy === undefined) copies.set(container, (copy = (Array.isArray(container) ? [...container] : { ...container }) as Record<string | number, unknown>));
    return copy;
  };
  let root = value;
  for (const [path, type] of types) {
    if (path.length === 0) {
      root = encode(root as object, type);
      continue;
    }
    // Walk the originals and write into their copies: a copy's items are still the originals.
    let original = value as Record<string | number, unknown>;
    let holder = copyOf(original);
    root = holder;
    for (const key of path.slice(0, -1)) {
      const next = original[key] as Record<string | number, unknown>;
      holder[key] = copyOf(next);
      holder = holder[key] as Record<string | number, unknown>;
      original = next;
    }
    const last = path[path.length - 1];
    holder[last] = encode(original[last] as object, type);
  }
  return root;
}

/**
 * The value a JSON form stands for: its texts at `types` turned back into
 * their values, in place (the JSON form is the caller's fresh parse).
 * `name` names the value in the errors of a hand-written list.
 */
export function fromJsonForm(json: unknown, types: unknown, name = 'value'): unknown {
  if (types === undefined || types === null) return json;
  if (!Array.isArray(types)) throw new StoreValidationError(`${name}'s valueTypes must be an array of [path, type] pairs`);
  let root = json;
  for (const entry of types) {
    if (!Array.isArray(entry) || entry.length !== 2 || !Array.isArray(entry[0]) || !VALUE_TYPES.includes(entry[1] as ValueType)) {
      throw new StoreValidationError(`${name}'s valueTypes must be [path, type] pairs, each type one of ${VALUE_TYPES.join(', ')}`);
    }
    const [path, type] = entry as [unknown[], ValueType];
    if (path.length === 0) {
      root = decode(root, type, name);
      continue;
    }
    let holder: unknown = root;
    for (const key of path.slice(0, -1)) holder = step(holder, key, name);
    const last = path[path.length - 1];
    const text = step(holder, last, name);
    (holder as Record<string | number, unknown>)[last as string | number] = decode(text, type, name);
  }
  return root;
}

/** The item at `key` of an array or object of a JSON form; a path that leads nowhere is refused. */
function step(holder: unknown, key: unknown, name: string): unknown {
  const found =
    typeof holder === 'object' &&
    holder !== null &&
    (Array.isArray(holder)
      ? Number.isInteger(key) && (key as number) >= 0 && (key as number) < holder.length
      : typeof key === 'string' && Object.hasOwn(holder, key) && key !== '__proto__');
  if (!found) throw new StoreValidationError(`${name}'s valueTypes name a path that is not in the value`);
  return (holder as Record<string | number, unknown>)[key as string | number];
}
