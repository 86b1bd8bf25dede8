// Pruning: deletes the transcript rows that a thread's latest boundary has made unreachable.
//
// Rows at or below the latest boundary's cut never change again: appends take new seqs, a newer
// boundary cuts at or after it, and clear and replaceHistory delete everything (seqs are never
// reused). So pruning takes no lock on the thread and writes nothing to it (its updated_at says
// "written", and purge relies on that): it deletes by seq ranges of the (thread_id, seq) key, a
// bounded batch per transaction, and a crash between two leaves a thread that the next call finishes.
import type { PruneAllReport, PruneReport } from '../../lifecycle.types.js';
import type { StoreDatabase } from '../../engine/database.js';
import type { Dialect, StoreTx } from '../../engine/dialect.js';
import type { Run, Value } from '../../engine/adapter-statement.js';
import { boundaryText } from '../../engine/row-codec.js';
import { changedBy, inStatements } from '../../engine/store-statements.js';
import { notFound } from '../../engine/tables/tenancy.js';

/** Messages deleted per transaction. */
export const PRUNE_BATCH = 5_000;
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
  const latest = await inStatements(db, false, async (run) => {
    if (tenantId !== undefined && (await run('SELECT 1 FROM agent_thread WHERE id = ? AND tenant_id = ?', [threadId, tenantId])).length === 0) {
      throw notFound(threadId);
    }
    const [row] = await run('SELECT seq, cut_seq FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1', [threadId]);
    return row && { seq: Number(row[0]), cutSeq: Number(row[1]) };
  });
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

/** One kind of row to prune, a batch at a time, highest seq first. */
interface Prunable {
  /** What its rows count as in the report. */
  counted: keyof Pruned;
  /** Its rows are at or below this seq. */
  top: number;
  /** Rows per transaction. */
  batch: number;
  /** Its table, and the condition its rows meet (the thread's id its one parameter). */
  table: string;
  where: string;
  /** What is done to them: a DELETE or UPDATE up to its WHERE, and its parameters. */
  change: string;
  changeArgs: Value[];
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
  const all = prunables(latest, keepRepairs).filter((kind) => kind.top > 0);
  // Read first: a thread pruned before (as pruneThreads finds most of them) costs no write transaction.
  const kinds = await inStatements(db, false, async (run) => {
    const left: Prunable[] = [];
    for (const kind of all)
      if ((await run(`SELECT seq FROM ${kind.table} WHERE ${kind.where} AND seq <= ? LIMIT 1`, [threadId, kind.top])).length > 0) left.push(kind);
    return left;
  });
  const pruned: Pruned = { messages: 0, boundaries: 0, emptied: 0 };
  const dialect = db.kit.dialect;
  const batch = (run: Run, kind: Prunable, top: number) => pruneBatch(run, dialect, threadId, kind, top);
  if (db.inHost()) {
    await inStatements(db, true, async (run) => {
      for (const kind of kinds) {
        for (let top: number | null = kind.top; top !== null;) {
          const { changed, next } = await batch(run, kind, top);
          pruned[kind.counted] += changed;
          top = next;
        }
      }
    });
    return pruned;
  }
  for (const kind of kinds) {
    for (let top: number | null = kind.top; top !== null;) {
      const upTo: number = top;
      // Counted once committed: a transaction run again (a conflict, retried) counts its rows once.
      const { changed, next } = await inStatements(db, true, (run) => batch(run, kind, upTo), kind.batch);
      pruned[kind.counted] += changed;
      top = next;
    }
  }
  return pruned;
}

/**
 * Prunes the highest `kind.batch` of `kind`'s rows at or below `top`: how many it changed (a racing
 * prune's rows are counted by the one that changed them), and the top of the next batch, or null
 * when this was the last.
 */
async function pruneBatch(run: Run, dialect: Dialect, threadId: string, kind: Prunable, top: number): Promise<{ changed: number; next: number | null }> {
  // The first row below this batch, if any: the next batch starts there.
  const [below] = await run(`SELECT seq FROM ${kind.table} WHERE ${kind.where} AND seq <= ? ORDER BY seq DESC LIMIT 1 OFFSET ${kind.batch}`, [threadId, top]);
  const next = below === undefined ? null : Number(below[0]);
  const range = [...kind.changeArgs, threadId, next ?? 0, top];
  return { changed: await changedBy(run, dialect, `${kind.change} WHERE ${kind.where} AND seq > ? AND seq <= ?`, range), next };
}

function prunables(latest: Latest, keepRepairs: boolean): Prunable[] {
  const boundaries = { table: 'agent_boundary', top: latest.seq - 1, batch: PRUNE_BOUNDARY_BATCH };
  return [
    {
      counted: 'messages',
      table: 'agent_message',
      where: 'thread_id = ? AND event_type IS NULL',
      top: latest.cutSeq,
      batch: PRUNE_BATCH,
      change: 'DELETE FROM agent_message',
      changeArgs: [],
    },
    {
      counted: 'boundaries',
      ...boundaries,
      where: keepRepairs ? "thread_id = ? AND kind = 'compaction'" : 'thread_id = ?',
      // A repair's evidence (agent_repair) goes with its boundary, by the foreign key's cascade.
      change: 'DELETE FROM agent_boundary',
      changeArgs: [],
    },
    ...(keepRepairs
      ? [
          {
            counted: 'emptied',
            ...boundaries,
            where: "thread_id = ? AND kind = 'repair' AND message_count > 0",
            change: 'UPDATE agent_boundary SET messages = ?, message_count = 0',
            changeArgs: [boundaryText([])],
          } satisfies Prunable,
        ]
      : []),
  ];
}
