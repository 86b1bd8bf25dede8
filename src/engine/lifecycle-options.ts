// Checks of the lifecycle calls' options (fork, prune, purge, erase), before anything is read or deleted.
import type { EraseTenantOptions, ForkOptions, ForkPoint, PruneAllOptions, PruneOptions, PurgeOptions } from '../lifecycle.types.js';
import { StoreValidationError } from '../store.errors.js';
import { countOf, dateOf, idOf, jsonObjectOf, messageOf, textOf } from '../values/validation.js';
import { sessionIdOf } from '../values/bindings.js';

/** The default and largest batch of purge and eraseTenant. */
export const DEFAULT_BATCH = 100;
export const MAX_BATCH = 1_000;

function objectOf(value: unknown, name: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreValidationError(`${name} must be an object { ${keys.join(', ')} }`);
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw new StoreValidationError(`${name} has an unknown property "${key}"`);
  }
  return value as Record<string, unknown>;
}

function batchOf(value: unknown, name: string): number {
  if (value === undefined) return DEFAULT_BATCH;
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_BATCH)
    throw new StoreValidationError(`${name} must be an integer from 1 to ${MAX_BATCH}`);
  return value as number;
}

function flagOf(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new StoreValidationError(`${name} must be a boolean`);
  return value;
}

export type CheckedFork = Omit<ForkOptions, 'unansweredToolCalls'> & { unansweredToolCalls: 'refuse' | 'repair' };

export function forkOptionsOf(value: unknown = {}): CheckedFork {
  const options = objectOf(value, 'fork options', ['id', 'title', 'metadata', 'at', 'replaceLastUserMessage', 'unansweredToolCalls']);
  const { id, title, metadata, at, replaceLastUserMessage, unansweredToolCalls = 'refuse' } = options;
  if (unansweredToolCalls !== 'refuse' && unansweredToolCalls !== 'repair')
    throw new StoreValidationError("options.unansweredToolCalls must be 'refuse' or 'repair'");
  if (at !== undefined && replaceLastUserMessage !== undefined)
    throw new StoreValidationError('options.at and options.replaceLastUserMessage cannot be given together');
  return {
    ...(id !== undefined && { id: sessionIdOf(id, 'options.id') }),
    ...(title !== undefined && { title: textOf(title, 'options.title') }),
    ...(metadata !== undefined && { metadata: jsonObjectOf(metadata, 'options.metadata') }),
    ...(at !== undefined && { at: forkPointOf(at) }),
    ...(replaceLastUserMessage !== undefined && { replaceLastUserMessage: userMessageOf(replaceLastUserMessage) }),
    unansweredToolCalls,
  };
}

function forkPointOf(value: unknown): ForkPoint {
  const point = objectOf(value, 'options.at', ['seq', 'position']);
  const given = Object.keys(point);
  if (given.length !== 1) throw new StoreValidationError('options.at must be { seq } or { position }');
  return 'seq' in point ? { seq: countOf(point.seq, 'options.at.seq') } : { position: countOf(point.position, 'options.at.position') };
}

function userMessageOf(value: unknown) {
  const message = messageOf(value, 'options.replaceLastUserMessage');
  if (message.role !== 'user') throw new StoreValidationError("options.replaceLastUserMessage must be a message of role 'user'");
  return message;
}

export function pruneOptionsOf(value: unknown = {}): Required<PruneOptions> {
  const options = objectOf(value, 'prune options', ['keepRepairs']);
  return { keepRepairs: flagOf(options.keepRepairs, 'options.keepRepairs', true) };
}

export function pruneAllOptionsOf(value: unknown): Required<Omit<PruneAllOptions, 'tenantId'>> & Pick<PruneAllOptions, 'tenantId'> {
  const options = objectOf(value, 'prune options', ['compactedBefore', 'tenantId', 'keepRepairs']);
  if (options.compactedBefore === undefined) throw new StoreValidationError('options.compactedBefore is required');
  return {
    compactedBefore: dateOf(options.compactedBefore, 'options.compactedBefore'),
    ...(options.tenantId !== undefined && { tenantId: idOf(options.tenantId, 'options.tenantId') }),
    keepRepairs: flagOf(options.keepRepairs, 'options.keepRepairs', true),
  };
}

export type CheckedPurge = Required<Pick<PurgeOptions, 'updatedBefore' | 'batchSize'>> & Pick<PurgeOptions, 'tenantId' | 'onBatch'>;

export function purgeOptionsOf(value: unknown): CheckedPurge {
  const options = objectOf(value, 'purge options', ['updatedBefore', 'tenantId', 'batchSize', 'onBatch']);
  if (options.updatedBefore === undefined) throw new StoreValidationError('options.updatedBefore is required');
  if (options.onBatch !== undefined && typeof options.onBatch !== 'function') throw new StoreValidationError('options.onBatch must be a function');
  return {
    updatedBefore: dateOf(options.updatedBefore, 'options.updatedBefore'),
    ...(options.tenantId !== undefined && { tenantId: idOf(options.tenantId, 'options.tenantId') }),
    batchSize: batchOf(options.batchSize, 'options.batchSize'),
    ...(options.onBatch !== undefined && { onBatch: options.onBatch as PurgeOptions['onBatch'] }),
  };
}

export function eraseOptionsOf(value: unknown = {}): Required<EraseTenantOptions> {
  const options = objectOf(value, 'erase options', ['batchSize']);
  return { batchSize: batchOf(options.batchSize, 'options.batchSize') };
}
