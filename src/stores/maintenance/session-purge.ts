// Expiry: deletes the session trees not written since a date, in bounded batches.
//
// Candidates are found by a keyset walk over agent_thread's key (no index of
// their own): roots (no parent edge) of the tenant, not written since the date,
// `batchSize` at a time. Each batch is one transaction that locks the candidates'
// subtrees and reads their rows again under the lock: a tree one of whose
// sessions was written since (a write that committed first bumped its
// updated_at) is kept whole, any other is deleted whole by deleteSubtree,
// tombstones first, so that a write queued behind the lock then finds the
// tombstone and fails with StoreNotFoundError. Every batch commits on its own: a
// run stopped halfway (a crash, a failing onBatch) leaves the trees it deleted
// deleted, and the next run finds the rest.
import type { CheckedPurge } from '../../engine/lifecycle-options.js';
import type { PurgeReport } from '../../lifecycle.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import type { StoreTx } from '../../engine/dialect.js';
import { deleteSubtree } from '../../engine/tables/subsession-graph.js';

export function purgeSessions(db: StoreDatabase, options: CheckedPurge): Promise<PurgeReport> {
  return db.erasing(() => purgeBatches(db, options), 'bulk');
}

async function purgeBatches(db: StoreDatabase, options: CheckedPurge): Promise<PurgeReport> {
  const report: PurgeReport = { sessions: 0, batches: 0 };
  let after: string | undefined;
  for (;;) {
    const candidates = await db.readOne((tx) => expiredRoots(tx, options, after));
    if (candidates.length === 0) return report;
    after = candidates[candidates.length - 1];
    const sessionIds = await db.write(async (tx) => {
      const deleted: string[] = [];
      const now = new Date();
      for (const root of candidates) {
        const tree = await lockedExpiredTree(tx, root, options.updatedBefore);
        if (tree === undefined) continue;
        await deleteSubtree(tx, root, now);
        deleted.push(...tree);
      }
      return deleted;
    });
    if (sessionIds.length === 0) continue;
    report.sessions += sessionIds.length;
    report.batches += 1;
    await options.onBatch?.({ sessionIds });
  }
}

/** The next roots by id after `after`, of the tenant, not written since the date (their trees are checked under the lock). */
async function expiredRoots(tx: StoreTx, options: CheckedPurge, after: string | undefined): Promise<string[]> {
  const rows = await tx.prisma.agentThread.findMany({
    where: {
      ...(after !== undefined && { id: { gt: after } }),
      ...(options.tenantId !== undefined && { tenantId: options.tenantId }),
      updatedAt: { lt: options.updatedBefore },
      parentEdge: { is: null },
    },
    orderBy: { id: 'asc' },
    take: options.batchSize,
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

/**
 * Locks `root`'s subtree and returns its sessions' ids when it is still a root, still there, and
 * none of its sessions was written at or after `before`; undefined otherwise (the tree is kept).
 * Under the lock no session of the tree can be written, attached or detached until the batch ends,
 * and the rows read are the last committed (writes run at READ COMMITTED, or one at a time on SQLite).
 */
async function lockedExpiredTree(tx: StoreTx, root: string, before: Date): Promise<string[] | undefined> {
  await tx.dialect.lockSubtree(tx.prisma, root);
  if ((await tx.prisma.agentSubsession.findUnique({ where: { childId: root }, select: { id: true } })) !== null) return undefined;
  const tree = await tx.prisma.$queryRaw<{ id: string; fresh: number | bigint }[]>`
    WITH RECURSIVE down (id) AS (SELECT id FROM agent_thread WHERE id = ${root} UNION ALL SELECT e.child_id FROM agent_subsession e JOIN down ON e.parent_id = down.id)
    SELECT t.id, CASE WHEN t.updated_at >= ${before} THEN 1 ELSE 0 END AS fresh FROM down JOIN agent_thread t ON t.id = down.id`;
  if (tree.length === 0 || tree.some((session) => Number(session.fresh) !== 0)) return undefined;
  return tree.map((session) => session.id);
}
