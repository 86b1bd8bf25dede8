// Tenant scoping: with a tenant, a session is visible only through statements
// that carry `tenant_id = ?`, run inside the operation's own transaction.
// Without one (the unscoped stores), these add no statement at all.
import { StoreNotFoundError } from '../../store.errors.js';
import type { StoreDatabase } from '../database.js';
import { lockThread, threadExists } from './message-rows.js';
import type { StoreTx } from '../dialect.js';

export const notFound = (id: string) => new StoreNotFoundError(`session ${id} does not exist`);

/** In a write: locks the session when it is the tenant's, else StoreNotFoundError. */
export async function lockOwned(tx: StoreTx, id: string, tenantId: string | undefined): Promise<void> {
  if (tenantId !== undefined && !(await lockThread(tx, id, new Date(), tenantId))) throw notFound(id);
}

/** In a read's snapshot (or a write, for a session it does not lock): StoreNotFoundError unless the session is the tenant's. */
export async function assertOwned(tx: StoreTx, id: string, tenantId: string | undefined): Promise<void> {
  if (tenantId !== undefined && !(await threadExists(tx, id, tenantId))) throw notFound(id);
}

/**
 * Reads one session with `work`. Unscoped, a single-statement `work` needs no
 * transaction; scoped, it runs in one snapshot with the ownership check.
 */
export function readOwned<T>(db: StoreDatabase, id: string, tenantId: string | undefined, work: (tx: StoreTx) => Promise<T>): Promise<T> {
  if (tenantId === undefined) return db.readOne(work);
  return db.read(async (tx) => {
    await assertOwned(tx, id, tenantId);
    return work(tx);
  });
}
