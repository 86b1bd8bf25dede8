// Pruning: deletes the transcript rows that a thread's latest boundary has made unreachable.
//
// Rows at or below the latest boundary's cut never change again: appends take new seqs, a newer
// boundary cuts at or after it, and clear and replaceHistory delete everything (seqs are never
// reused). So pruning takes no lock on the thread and writes nothing to it (its updated_at says
// "written", and purge relies on that): it deletes by seq ranges of the (thread_id, seq) key, a
// bounded batch per transaction, and a crash between two leaves a thread that the next call finishes.
import type { PruneAllReport, PruneReport } from '../../lifecycle.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import type { StoreTx } from '../../engine/dialect.js';
import { boundaryText } from '../../engine/row-codec.js';
import { readOwned } from '../../engine/tables/tenancy.js';

/** Messages deleted per transaction. */
export const PRUNE_BATCH = 2_000;
/** Boundaries deleted (or emptied) per transaction: each can hold a whole history in its replacement messages. */
export const PRUNE_BOUNDARY_BATCH = 100;
/** Threads read per page by pruneThreads. */
const THREAD_PAGE = 100;

/** The latest boundary, by its place in the log. */
interface Latest {
  seq: number;
  cutSeq: number;
}

/** What one thread's prune did; `emptied` counts the earlier repairs whose replacement messages it dropped. */
interface Pruned extends PruneReport {
  emptied: number;
}

/** Prunes one thread (scoped: only the tenant's; another's, or a missing one, is StoreNotFoundError). */
export async function pruneThread(db: StoreDatabase, threadId: string, options: { keepRepairs: boolean }, tenantId?: string): Promise<PruneReport> {
  const { messages, boundaries } = await db.erasing(() => pruneOne(db, threadId, options, tenantId), { erased: (pruned) => changed(pruned) });
  return { messages, boundaries };
}

const changed = (pruned: Pruned) => pruned.messages + pruned.boundaries + pruned.emptied > 0;

async function pruneOne(db: StoreDatabase, threadId: string, options: { keepRepairs: boolean }, tenantId?: string): Promise<Pruned> {
  const latest = await readOwned(db, threadId, tenantId, (tx) =>
    tx.prisma.agentBoundary.findFirst({ where: { threadId }, orderBy: { seq: 'desc' }, select: { seq: true, cutSeq: true } }),
  );
  if (!latest) return { messages: 0, boundaries: 0, emptied: 0 };
  return pruneLog(db, threadId, latest, options.keepRepairs);
}

/**
 * Prunes every thread (of `tenantId`, when given) whose latest boundary was written before
 * `compactedBefore`: pages of threads in id order (the primary key), each page's latest boundaries
 * in one read, then each thread as pruneThread prunes it. A thread written meanwhile is pruned up
 * to the boundary that was its latest when its page was read.
 */
export function pruneThreads(db: StoreDatabase, options: { compactedBefore: Date; tenantId?: string; keepRepairs: boolean }): Promise<PruneAllReport> {
  return db.erasing(() => pruneAll(db, options), 'bulk');
}

async function pruneAll(db: StoreDatabase, options: { compactedBefore: Date; tenantId?: string; keepRepairs: boolean }): Promise<PruneAllReport> {
  const report: PruneAllReport = { threads: 0, messages: 0, boundaries: 0 };
  for (let after = ''; ;) {
    const ids = await db.readOne(async (tx) =>
      (
        await tx.prisma.agentThread.findMany({
          where: { id: { gt: after }, ...(options.tenantId !== undefined && { tenantId: options.tenantId }) },
          orderBy: { id: 'asc' },
          take: THREAD_PAGE,
          select: { id: true },
        })
      ).map((row) => row.id),
    );
    if (ids.length === 0) return report;
    after = ids.at(-1)!;
    for (const { threadId, seq, cutSeq, createdAt } of await db.read((tx) => latestBoundaries(tx, ids))) {
      if (createdAt >= options.compactedBefore) continue;
      const pruned = await pruneLog(db, threadId, { seq, cutSeq }, options.keepRepairs);
      if (!changed(pruned)) continue;
      report.threads += 1;
      report.messages += pruned.messages;
      report.boundaries += pruned.boundaries;
    }
  }
}

/** The latest boundary of each of `ids` that has one. */
async function latestBoundaries(tx: StoreTx, ids: string[]): Promise<{ threadId: string; seq: number; cutSeq: number; createdAt: Date }[]> {
  const maxima = await tx.prisma.agentBoundary.groupBy({ by: ['threadId'], where: { threadId: { in: ids } }, _max: { seq: true } });
  if (maxima.length === 0) return [];
  return tx.prisma.agentBoundary.findMany({
    where: { OR: maxima.map((row) => ({ threadId: row.threadId, seq: row._max.seq! })) },
    orderBy: { threadId: 'asc' },
    select: { threadId: true, seq: true, cutSeq: true, createdAt: true },
  });
}

/** Rows a batch pruned, by what they count as. */
type Count = [keyof Pruned, number];

/** One kind of row to prune, a batch at a time, highest seq first. */
interface Prunable {
  /** What its rows count as in the report. */
  counted: keyof Pruned;
  /** Its rows are at or below this seq. */
  top: number;
  /** Rows per transaction. */
  batch: number;
  /** The seq of the `n`-th of its rows at or below `upTo`, highest first; null when fewer are left. */
  nth(tx: StoreTx, upTo: number, n: number): Promise<number | null>;
  /** Deletes (or empties) its rows from `from` to `upTo`; returns how many. */
  prune(tx: StoreTx, from: number, upTo: number): Promise<number>;
}

/**
 * Deletes the messages at or below `latest`'s cut, then the boundaries before it (with
 * `keepRepairs`, the repairs stay and lose only their replacement messages, a copy of a history
 * that is gone), each highest seq first. Highest first, a thread whose prune stopped halfway
 * holds a prefix of its old messages and none between them and the cut, so the last message kept
 * cuts the same history as the cut (exportJsonl relies on it). Counted once each batch has
 * committed. Inside the application's transaction it is all one write, which commits or rolls
 * back with the application's, and fails whole.
 */
async function pruneLog(db: StoreDatabase, threadId: string, latest: Latest, keepRepairs: boolean): Promise<Pruned> {
  const all = prunables(threadId, latest, keepRepairs);
  // Read first: a thread pruned before (as pruneThreads finds most of them) costs no write transaction.
  const kinds = await db.read(async (tx) => {
    const left: Prunable[] = [];
    for (const kind of all) if (kind.top > 0 && (await kind.nth(tx, kind.top, 1)) !== null) left.push(kind);
    return left;
  });
  const pruned: Pruned = { messages: 0, boundaries: 0, emptied: 0 };
  for (const kind of kinds) {
    for (let upTo: number | null = kind.top; upTo !== null;) {
      const top: number = upTo;
      const batch = await db.write(async (tx): Promise<{ counts: Count[]; next: number | null; whole: boolean }> => {
        if (tx.inHost) return { counts: await wholly(tx, kinds), next: null, whole: true };
        // The first row below this batch, if any: the next batch starts there.
        const below = await kind.nth(tx, top, kind.batch + 1);
        return { counts: [[kind.counted, await kind.prune(tx, below === null ? 0 : below + 1, top)]], next: below, whole: false };
      }, kind.batch);
      for (const [counted, count] of batch.counts) pruned[counted] += count;
      if (batch.whole) return pruned;
      upTo = batch.next;
    }
  }
  return pruned;
}

/** Every kind at once, in one transaction (the application's). */
async function wholly(tx: StoreTx, kinds: Prunable[]): Promise<Count[]> {
  const counts: Count[] = [];
  for (const kind of kinds) counts.push([kind.counted, await kind.prune(tx, 0, kind.top)]);
  return counts;
}

function prunables(threadId: string, latest: Latest, keepRepairs: boolean): Prunable[] {
  const messages = { threadId, eventType: null };
  const earlier = { threadId, ...(keepRepairs && { kind: 'compaction' }) };
  const repairs = { threadId, kind: 'repair', messageCount: { gt: 0 } };
  const nth = async (row: { seq: number } | null) => row?.seq ?? null;
  return [
    {
      counted: 'messages',
      top: latest.cutSeq,
      batch: PRUNE_BATCH,
      nth: async (tx, upTo, n) =>
        nth(
          await tx.prisma.agentMessage.findFirst({ where: { ...messages, seq: { lte: upTo } }, orderBy: { seq: 'desc' }, skip: n - 1, select: { seq: true } }),
        ),
      prune: async (tx, from, upTo) => (await tx.prisma.agentMessage.deleteMany({ where: { ...messages, seq: { gte: from, lte: upTo } } })).count,
    },
    {
      counted: 'boundaries',
      top: latest.seq - 1,
      batch: PRUNE_BOUNDARY_BATCH,
      nth: async (tx, upTo, n) =>
        nth(
          await tx.prisma.agentBoundary.findFirst({ where: { ...earlier, seq: { lte: upTo } }, orderBy: { seq: 'desc' }, skip: n - 1, select: { seq: true } }),
        ),
      // A repair's evidence (agent_repair) goes with its boundary, by the foreign key's cascade.
      prune: async (tx, from, upTo) => (await tx.prisma.agentBoundary.deleteMany({ where: { ...earlier, seq: { gte: from, lte: upTo } } })).count,
    },
    ...(keepRepairs
      ? [
          {
            counted: 'emptied',
            top: latest.seq - 1,
            batch: PRUNE_BOUNDARY_BATCH,
            nth: async (tx, upTo, n) =>
              nth(
                await tx.prisma.agentBoundary.findFirst({
                  where: { ...repairs, seq: { lte: upTo } },
                  orderBy: { seq: 'desc' },
                  skip: n - 1,
                  select: { seq: true },
                }),
              ),
            prune: async (tx, from, upTo) =>
              (
                await tx.prisma.agentBoundary.updateMany({
                  where: { ...repairs, seq: { gte: from, lte: upTo } },
                  data: { messages: boundaryText([]), messageCount: 0 },
                })
              ).count,
          } satisfies Prunable,
        ]
      : []),
  ];
}
