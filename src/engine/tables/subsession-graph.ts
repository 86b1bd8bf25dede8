// The subsession graph: edges parent -> child between sessions, at most one
// parent each, never a cycle, under any concurrency.
//
// Attaching a child merges the child's tree (it is the root: it has no parent)
// into the parent's tree. Two attachments can only close a cycle between them
// if they merge the same two trees crosswise, so each attachment locks the
// child and every ancestor of the parent, the parent's root included, and
// re-reads the chain after the locks are held. Attachments that could conflict
// queue on the shared roots and each sees the other's edge (read committed).
// SQLite needs none of this: its write transactions are serialized.
import { StoreConflictError } from '../../store.errors.js';
import { assertNotDeleted } from './message-rows.js';
import type { StoreTx } from '../dialect.js';

/** `id` and its ancestors, nearest first; `id` must exist (its row types the walk's column on MySQL). */
export async function ancestorsOf(tx: StoreTx, id: string): Promise<string[]> {
  const rows = await tx.prisma.$queryRaw<{ id: string }[]>`
    WITH RECURSIVE up (id, depth) AS (
      SELECT id, 0 FROM agent_thread WHERE id = ${id}
      UNION ALL
      SELECT e.parent_id, up.depth + 1 FROM agent_subsession e JOIN up ON e.child_id = up.id
    )
    SELECT id FROM up ORDER BY depth`;
  return rows.map((row) => row.id);
}

/**
 * Deletes `id` and its whole subtree in three statements, whatever its size:
 * tombstones first (so no later write brings one back), then the sessions,
 * whose messages, boundaries, repairs and edges go by the database's cascades.
 * Returns how many sessions were deleted.
 */
export async function deleteSubtree(tx: StoreTx, id: string, now: Date): Promise<number> {
  // The same recursive walk in every statement. Locking the subtree first freezes
  // it: changing an edge below the root takes one of these locks.
  await tx.dialect.lockSubtree(tx.prisma, id);
  // Each walk starts from the root's row: MySQL types a recursive CTE's columns by its first SELECT.
  const deleted = await tx.prisma.$executeRaw`
    INSERT INTO agent_tombstone (id, deleted_at, tenant_id)
    WITH RECURSIVE down (id) AS (SELECT id FROM agent_thread WHERE id = ${id} UNION ALL SELECT e.child_id FROM agent_subsession e JOIN down ON e.parent_id = down.id)
    SELECT t.id, ${now}, t.tenant_id FROM down JOIN agent_thread t ON t.id = down.id`;
  // Anchored on the root's new tombstone: MySQL refuses a subquery on the table it deletes from.
  await tx.prisma.$executeRaw`
    DELETE FROM agent_thread WHERE id IN (
      WITH RECURSIVE down (id) AS (SELECT id FROM agent_tombstone WHERE id = ${id} UNION ALL SELECT e.child_id FROM agent_subsession e JOIN down ON e.parent_id = down.id)
      SELECT id FROM down)`;
  return deleted;
}

/** Removes every edge from `parentId` to its children, who become roots. */
export async function detachChildren(tx: StoreTx, parentId: string): Promise<void> {
  await tx.prisma.agentSubsession.deleteMany({ where: { parentId } });
}

export async function childrenOf(tx: StoreTx, parentId: string): Promise<string[]> {
  const edges = await tx.prisma.agentSubsession.findMany({ where: { parentId }, orderBy: { id: 'asc' }, select: { childId: true } });
  return edges.map((edge) => edge.childId);
}

/**
 * Registers parent -> child, creating either session if it is missing (a
 * deleted one is StoreNotFoundError). Registering an existing edge again
 * changes nothing. A second parent, or a cycle (self included), is a
 * StoreConflictError.
 */
export async function attachChild(tx: StoreTx, parentId: string, childId: string): Promise<void> {
  if (parentId === childId) throw new StoreConflictError(`session ${childId} cannot be its own subsession`);
  const now = new Date();
  const parentCreated = await tx.dialect.ensureThread(tx.prisma, parentId, now);
  const childCreated = await tx.dialect.ensureThread(tx.prisma, childId, now);
  const chain = await lockedChain(tx, parentId, childId);
  for (const id of [parentId, childId]) await assertNotDeleted(tx, id);
  const existing = await tx.prisma.agentSubsession.findUnique({ where: { childId }, select: { parentId: true } });
  if (existing?.parentId === parentId) return;
  if (existing) throw new StoreConflictError(`session ${childId} is already a subsession of ${existing.parentId}`);
  if (chain.includes(childId)) throw new StoreConflictError(`session ${childId} is an ancestor of ${parentId}: the edge would make a cycle`);
  await shareTenant(tx, { id: parentId, created: parentCreated }, { id: childId, created: childCreated });
  await tx.prisma.agentSubsession.create({ data: { parentId, childId } });
  // A new edge is a write to both sessions: a purge keeps the tree it joins (see session-purge.ts).
  await tx.prisma.agentThread.updateMany({ where: { id: { in: [parentId, childId] } }, data: { updatedAt: now } });
}

/**
 * A tree of sessions is one tenant's, so that a tenant's cascade delete never
 * reaches another's sessions: a session created by the attachment takes the
 * other's tenant, and two existing sessions must have the same one.
 */
async function shareTenant(tx: StoreTx, parent: { id: string; created: boolean }, child: { id: string; created: boolean }): Promise<void> {
  const rows = await tx.prisma.agentThread.findMany({ where: { id: { in: [parent.id, child.id] } }, select: { id: true, tenantId: true } });
  const tenantOf = (id: string) => rows.find((row) => row.id === id)?.tenantId ?? null;
  const [parentTenant, childTenant] = [tenantOf(parent.id), tenantOf(child.id)];
  if (parentTenant === childTenant) return;
  if (child.created) await tx.prisma.agentThread.update({ where: { id: child.id }, data: { tenantId: parentTenant } });
  else if (parent.created) await tx.prisma.agentThread.update({ where: { id: parent.id }, data: { tenantId: childTenant } });
  else throw new StoreConflictError(`sessions ${parent.id} and ${child.id} belong to different tenants: a subsession must be in its parent's tenant`);
}

/**
 * Locks the child and the parent's whole ancestor chain in one id-ordered
 * statement (every registration takes its locks in the same order, so two never
 * wait on each other crosswise), then reads the chain again until no
 * registration changed it meanwhile. Returns the chain.
 */
async function lockedChain(tx: StoreTx, parentId: string, childId: string): Promise<string[]> {
  let chain = await ancestorsOf(tx, parentId);
  for (;;) {
    await tx.dialect.lockThreads(tx.prisma, [...new Set([...chain, childId])]);
    const current = await ancestorsOf(tx, parentId);
    if (current.length === chain.length && current.every((ancestor, i) => ancestor === chain[i])) return chain;
    chain = current;
  }
}
