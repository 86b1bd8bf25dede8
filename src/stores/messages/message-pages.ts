// Page options and the cursors of history and transcript pages. A cursor is
// opaque to callers: base64url JSON naming its thread, so a cursor is never
// read against another thread.
import type { PageOptions } from '../../message.types.js';
import { StoreValidationError } from '../../store.errors.js';
import { MAX_INTEGER } from '../../values/validation.js';

/** The largest page of messages. */
export const MAX_MESSAGE_PAGE = 1000;
const DEFAULT_PAGE = 100;

/** Where a history page ends: the latest boundary it read, how many of that boundary's messages it returned, the last log seq it returned. */
export interface HistoryPosition {
  boundarySeq: number;
  index: number;
  seq: number;
}

export function pageOptionsOf(options: PageOptions | undefined): { limit: number; cursor: string | undefined } {
  if (options === undefined) return { limit: DEFAULT_PAGE, cursor: undefined };
  if (typeof options !== 'object' || options === null) throw new StoreValidationError('page options must be an object { limit?, cursor? }');
  for (const key of Object.keys(options)) {
    if (key !== 'limit' && key !== 'cursor') throw new StoreValidationError(`page options have an unknown property "${key}"`);
  }
  const limit = options.limit === undefined ? DEFAULT_PAGE : options.limit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_MESSAGE_PAGE)
    throw new StoreValidationError(`limit must be an integer from 1 to ${MAX_MESSAGE_PAGE}`);
  if (options.cursor !== undefined && typeof options.cursor !== 'string') throw new StoreValidationError('cursor must be a string');
  return { limit, cursor: options.cursor };
}

export const encodeTranscriptCursor = (threadId: string, seq: number) => encode(['t', threadId, seq]);

export function decodeTranscriptCursor(cursor: string, threadId: string): number {
  const [seq] = decode(cursor, 't', threadId, 1);
  if (seq > MAX_INTEGER) throw forgedCursor('transcript');
  return seq;
}

export const encodeLogCursor = (threadId: string, seq: number) => encode(['l', threadId, seq]);

/** The seq a log cursor reads after. Seqs are never reused, so a cursor stays a place in the log whatever is deleted. */
export function decodeLogCursor(cursor: string, threadId: string): number {
  const [seq] = decode(cursor, 'l', threadId, 1);
  if (seq > MAX_INTEGER) throw forgedCursor('log');
  return seq;
}

export const encodeHistoryCursor = (threadId: string, at: HistoryPosition) => encode(['h', threadId, at.boundarySeq, at.index, at.seq]);

export function decodeHistoryCursor(cursor: string, threadId: string): HistoryPosition {
  const [boundarySeq, index, seq] = decode(cursor, 'h', threadId, 3);
  return { boundarySeq, index, seq };
}

/** A cursor no page handed out: malformed, or naming a position that no page of its thread could have reached. */
export const forgedCursor = (kind: 'history' | 'transcript' | 'log') => new StoreValidationError(`cursor is not a ${kind} cursor this store handed out`);

const encode = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode(cursor: string, kind: string, threadId: string, numbers: number): number[] {
  let value: unknown[] | undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed)) value = parsed;
  } catch {
    // reported below like any other malformed cursor
  }
  const valid =
    value !== undefined && value.length === numbers + 2 && value[0] === kind && value.slice(2).every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
  if (!valid || value === undefined) throw forgedCursor(kind === 'h' ? 'history' : kind === 'l' ? 'log' : 'transcript');
  if (value[1] !== threadId) throw new StoreValidationError(`cursor belongs to another thread than ${threadId}`);
  return value.slice(2) as number[];
}
