// The arguments of Session.applyHistoryTransaction, checked and copied once,
// before anything is written: the SDK's own rules (MemorySession, MIT), so that
// its tests hold here too, and its sentences, which never quote the data.
import type { SessionHistoryTransactionArgs } from '@openai/agents-core';
import { isAgentItem } from './item-log.js';
import type { HistoryOperation, Item } from './item-log.js';
import { StoreValidationError } from '../../contract/index.js';

/** The operation id and a copy of its operation, read from `args` once. */
export function snapshotTransaction(args: SessionHistoryTransactionArgs): { operationId: string; operation: HistoryOperation } {
  let operationId: unknown;
  let transaction: unknown;
  try {
    if (!args || typeof args !== 'object') throw new Error('Missing transaction arguments.');
    operationId = Reflect.get(args, 'operationId');
    transaction = Reflect.get(args, 'transaction');
  } catch {
    throw new StoreValidationError('Session history transaction arguments are invalid.');
  }
  if (typeof operationId !== 'string' || !operationId.trim())
    throw new StoreValidationError('Session history transaction operationId must be a non-empty string.');
  if (!transaction || typeof transaction !== 'object') throw new StoreValidationError('Session history transaction must be an object.');
  return { operationId, operation: snapshotOperation(transaction) };
}

const UNSUPPORTED = 'Session history transaction items contain invalid or unsupported data.';

function snapshotOperation(transaction: object): HistoryOperation {
  let snapshot: unknown;
  try {
    snapshot = snapshotValue(transaction);
    // A Proxy passes the walk above; structuredClone refuses it.
    structuredClone(transaction);
  } catch {
    throw new StoreValidationError(UNSUPPORTED);
  }
  const record = snapshot as Record<string, unknown>;
  const has = (key: string) => Object.hasOwn(record, key);
  if (record.type === 'append_items') {
    if (Object.keys(record).length !== 2 || !has('items') || !Array.isArray(record.items))
      throw new StoreValidationError('Session history append transaction fields are invalid.');
    return { type: 'append_items', items: itemsOf(record.items) };
  }
  if (record.type !== 'replace_suffix') throw new StoreValidationError('Unsupported session history transaction type.');
  if (Object.keys(record).length !== 3 || !Array.isArray(record.expectedSuffix) || !Array.isArray(record.replacement)) {
    throw new StoreValidationError('Session history suffix transaction fields are invalid.');
  }
  return { type: 'replace_suffix', expectedSuffix: itemsOf(record.expectedSuffix), replacement: itemsOf(record.replacement) };
}

/** Each an item: an object with a `type` or a `role`, as every AgentInputItem has. */
function itemsOf(values: unknown[]): Item[] {
  if (!values.every(isAgentItem)) throw new StoreValidationError(UNSUPPORTED);
  return values as Item[];
}

/**
 * A copy of JSON-like `value`: plain objects (any ordinary prototype), dense arrays, strings,
 * finite and other numbers, booleans, null, and Uint8Array bytes; anything else throws (a Date,
 * a BigInt, a cycle, a getter, a non-enumerable or symbol key).
 */
function snapshotValue(value: unknown, ancestors = new WeakSet<object>()): unknown {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value !== 'object') throw new Error('unsupported value');
  if (value instanceof Uint8Array) {
    const keys = Reflect.ownKeys(value);
    if (keys.length !== value.length || keys.some((key) => typeof key !== 'string' || !isIndex(key, value.length))) throw new Error('unsupported bytes');
    return new Uint8Array(value);
  }
  if (ancestors.has(value)) throw new Error('cycle');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const length = Object.getOwnPropertyDescriptor(value, 'length')?.value as unknown;
      const keys = Reflect.ownKeys(value);
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || keys.length !== length + 1) throw new Error('unsupported array');
      if (keys.some((key) => typeof key !== 'string' || (key !== 'length' && !isIndex(key, length)))) throw new Error('unsupported array');
      return Array.from({ length }, (_, index) => {
        const descriptor = Object.getOwnPropertyDescriptor(value, String(index));
        if (!descriptor?.enumerable || !('value' in descriptor)) throw new Error('unsupported array item');
        return snapshotValue(descriptor.value, ancestors);
      });
    }
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) throw new Error('unsupported object');
    const copy: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = typeof key === 'string' ? Object.getOwnPropertyDescriptor(value, key) : undefined;
      if (!descriptor?.enumerable || !('value' in descriptor)) throw new Error('unsupported property');
      Object.defineProperty(copy, key, { configurable: true, enumerable: true, writable: true, value: snapshotValue(descriptor.value, ancestors) });
    }
    return copy;
  } finally {
    ancestors.delete(value);
  }
}

const isIndex = (key: string, length: number) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < length;
