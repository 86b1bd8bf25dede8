// Whether an id can name a new session (create, import's new sessions, fork), and what the refusal
// says: scoped, no more than that the id is not available, so that a tenant learns nothing of
// another tenant's sessions, live or deleted.
import { StoreConflictError } from '../../store.errors.js';
import * as sessions from '../../engine/tables/session-rows.js';
import type { StoreTx } from '../../engine/dialect.js';

const deleted = (id: string) => `session ${id} was deleted; ids of deleted sessions are not reused`;

/** StoreConflictError unless `id` is neither taken nor a deleted session's; `tenantId` is the new session's, `scoped` whether a tenant's store asks. */
export async function assertIdFree(tx: StoreTx, id: string, tenantId: string | null, scoped: boolean): Promise<void> {
  if (await sessions.isDeleted(tx, id)) throw deletedIdRefusal(id, scoped);
  const existing = await sessions.metaOf(tx, id);
  if (existing) throw takenIdRefusal(id, existing.tenantId === tenantId, scoped);
}

/** The refusal of an id a deleted session had. */
export const deletedIdRefusal = (id: string, scoped: boolean) => taken(id, deleted(id), scoped);

/** The refusal of an id a session has; `sameTenant`: the new session's tenant's own session. */
export const takenIdRefusal = (id: string, sameTenant: boolean, scoped: boolean) =>
  sameTenant ? new StoreConflictError(`session ${id} already exists`) : taken(id, `session ${id} already exists`, scoped);

/**
 * After the new session's insert, in a statement of its own: a delete of the id that committed since
 * assertIdFree is seen (in the application's transaction too, whose snapshot may predate it).
 */
export async function assertNotDeletedSince(tx: StoreTx, id: string, scoped: boolean): Promise<void> {
  if (await tx.dialect.isDeleted(tx.prisma, id, tx.inHost)) throw deletedIdRefusal(id, scoped);
}

/** Ids are unique across tenants; scoped, a taken id says only that: not whose it is, nor that it was deleted. */
export const unavailable = (id: string) => new StoreConflictError(`session id ${id} is not available`);

const taken = (id: string, unscopedMessage: string, scoped: boolean) => (scoped ? unavailable(id) : new StoreConflictError(unscopedMessage));
