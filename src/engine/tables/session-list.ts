// A page of sessions: the query both paths run, and the cursor that links pages.
import type { JsonObject } from '../../message.types.js';
import type { SessionMeta, SessionPage } from '../../session.types.js';
import { StoreValidationError } from '../../store.errors.js';
import { dateOf, idOf } from '../../values/validation.js';
import { driverDate } from '../row-codec.js';

/** Validated list options, the cursor decoded. */
export interface SessionListQuery {
  limit: number;
  tenantId?: string;
  parentId?: string;
  forkedFrom?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only sessions whose id or title holds this text, in any case (see SessionListOptions.search). */
  search?: string;
  /** The last session of the previous page: this page holds what sorts after it. */
  after?: { createdAt: Date; id: string };
}

/** The page of `limit` from rows of one more than that, newest first. */
export function pageOf(rows: SessionMeta[], limit: number): SessionPage {
  const sessions = rows.slice(0, limit);
  const last = sessions.at(-1);
  return { sessions, nextCursor: rows.length > limit && last ? encodeListCursor(last) : null };
}

const encodeListCursor = (meta: SessionMeta) => Buffer.from(JSON.stringify([meta.createdAt.getTime(), meta.id])).toString('base64url');

export function decodeListCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    // A forged time could be no Date at all; a forged id anything: both are held to what the store writes.
    if (Number.isSafeInteger(time) && typeof id === 'string') return { createdAt: dateOf(new Date(time as number), 'cursor'), id: idOf(id, 'cursor') };
  } catch {
    // reported below like any other malformed cursor
  }
  throw new StoreValidationError('cursor is not one this store handed out');
}

/** A header row of SESSION_COLUMNS as a driver returns it: metadata as JSON text. */
export const sessionOf = ([id, tenantId, title, metadata, createdAt, updatedAt, parentId, forkedFrom, forkSeq]: unknown[]): SessionMeta => ({
  id: id as string,
  tenantId: tenantId as string | null,
  title: title as string | null,
  parentId: parentId as string | null,
  forkedFrom: forkedFrom === null ? null : { sessionId: forkedFrom as string, seq: Number(forkSeq) },
  metadata: metadata === null ? null : (JSON.parse(metadata as string) as JsonObject),
  createdAt: driverDate(createdAt),
  updatedAt: driverDate(updatedAt),
});
