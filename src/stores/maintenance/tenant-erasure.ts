// Erasure: deletes every row of a tenant, in every table, in bounded batches.
//
// One eraser per kind of row the tenant owns, each deleting one batch per
// transaction; the whole list runs again until a pass finds nothing, so that what
// the tenant's writers created meanwhile goes too. A table added later that holds
// a tenant's rows gets its eraser in ERASERS (test/conformance/tenant-erasure.test.ts
// scans every table of the schema and fails on one it misses).
import type { TenantErasure } from '../../lifecycle.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import { deleteSubtree } from '../../engine/tables/subsession-graph.js';

interface Eraser {
  /** Where its count goes in the report. */
  counts: keyof TenantErasure;
  /** Deletes one batch of the tenant's rows (at most `batchSize` sessions or threads); returns how many it deleted, 0 when none is left. */
  batch(db: StoreDatabase, tenantId: string, batchSize: number): Promise<number>;
}

/**
 * The tenant's sessions with their subtrees (trees never span tenants): their messages, events,
 * boundaries, repairs and edges go by cascade, and each leaves a tombstone (with its tenant), so
 * that a write racing the erasure fails instead of bringing its session back. Roots first, so that
 * a tree goes whole; then any session of the tenant left, whatever its parent.
 */
const sessions: Eraser = {
  counts: 'sessions',
  async batch(db, tenantId, batchSize) {
    const pick = async (rootsOnly: boolean) =>
      (
        await db.readOne((tx) =>
          tx.prisma.agentThread.findMany({
            where: { tenantId, ...(rootsOnly && { parentEdge: { is: null } }) },
            // The order of the (tenant_id, created_at, id) index: finding a batch sorts none of the tenant's sessions.
            orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            take: batchSize,
            select: { id: true },
          }),
        )
      ).map((row) => row.id);
    let ids = await pick(true);
    if (ids.length === 0) ids = await pick(false);
    if (ids.length === 0) return 0;
    return db.write(async (tx) => {
      const now = new Date();
      let deleted = 0;
      for (const id of ids) deleted += await deleteSubtree(tx, id, now);
      return deleted;
    });
  },
};

/**
 * The tenant's LangGraph threads: their checkpoints (which carry the tenant), and the channel
 * values and pending writes of the same thread keys (digests of tenant and thread, so no other
 * tenant's). Found by a walk over the checkpoints' key, which leads with the thread key. As
 * deleteThread, at REPEATABLE READ where writes run at READ COMMITTED, so that a put committed
 * between the DELETEs does not lose its checkpoint and keep its values.
 */
const langGraphThreads: Eraser = {
  counts: 'checkpoints',
  async batch(db, tenantId, batchSize) {
    const keys: string[] = [];
    let after: string | undefined;
    // Each thread's checkpoints are one range of the key: skip past it to the next thread.
    while (keys.length < batchSize) {
      const row = await db.readOne((tx) =>
        tx.prisma.agentLgCheckpoint.findFirst({
          where: { tenantId, ...(after !== undefined && { threadKey: { gt: after } }) },
          orderBy: { threadKey: 'asc' },
          select: { threadKey: true },
        }),
      );
      if (row === null) break;
      keys.push((after = row.threadKey));
    }
    if (keys.length === 0) return 0;
    const level = db.kit.dialect.writeIsolation === 'ReadCommitted' ? 'RepeatableRead' : db.kit.dialect.writeIsolation;
    return db.write(
      async (tx) => {
        const threadKey = { in: keys };
        await tx.prisma.agentLgWrite.deleteMany({ where: { threadKey } });
        await tx.prisma.agentLgBlob.deleteMany({ where: { threadKey } });
        return (await tx.prisma.agentLgCheckpoint.deleteMany({ where: { threadKey } })).count;
      },
      0,
      level,
    );
  },
};

/**
 * The tenant's LangGraph pending writes that no checkpoint of it has (yet): LangGraph stores a task's
 * writes without waiting for its checkpoint's put, and a putWrites that lands after a thread's delete
 * stays. Each carries its saver's tenant.
 */
const pendingWrites: Eraser = {
  counts: 'pendingWrites',
  async batch(db, tenantId, batchSize) {
    return db.write(async (tx) => {
      const rows = await tx.prisma.agentLgWrite.findMany({
        where: { tenantId },
        take: batchSize * 10,
        select: { lane: true, checkpointId: true, taskId: true, idx: true },
      });
      if (rows.length === 0) return 0;
      return (await tx.prisma.agentLgWrite.deleteMany({ where: { tenantId, OR: rows } })).count;
    });
  },
};

/**
 * Last, the tombstones of the tenant's sessions, the erasure's own included: a session id may
 * carry content. What a tombstone prevented, a write bringing the session back, a scoped store
 * of the tenant cannot do afterwards (it creates sessions only by create and import); an unscoped
 * writer can, as it can with any id never used.
 */
const tombstones: Eraser = {
  counts: 'tombstones',
  async batch(db, tenantId, batchSize) {
    const ids = (await db.readOne((tx) => tx.prisma.agentTombstone.findMany({ where: { tenantId }, take: batchSize, select: { id: true } }))).map(
      (row) => row.id,
    );
    if (ids.length === 0) return 0;
    return db.write(async (tx) => (await tx.prisma.agentTombstone.deleteMany({ where: { id: { in: ids }, tenantId } })).count);
  },
};

/** Every kind of row a tenant owns, in the order erased. A new table holding a tenant's rows adds its eraser here. */
const ERASERS: readonly Eraser[] = [sessions, langGraphThreads, pendingWrites, tombstones];

export function eraseTenantRows(db: StoreDatabase, tenantId: string, options: { batchSize: number }): Promise<TenantErasure> {
  return db.erasing(async () => {
    const report: TenantErasure = { sessions: 0, tombstones: 0, checkpoints: 0, pendingWrites: 0 };
    for (let found = true; found;) {
      found = false;
      for (const eraser of ERASERS) {
        for (let deleted = await eraser.batch(db, tenantId, options.batchSize); deleted > 0; deleted = await eraser.batch(db, tenantId, options.batchSize)) {
          report[eraser.counts] += deleted;
          found = true;
        }
      }
    }
    return report;
  }, 'bulk');
}
