// Forks: a new session whose history is another's up to a point. The source's latest boundary and
// the log rows after its cut are copied in the database, so a fork costs what the effective history
// holds, never the transcript before the cut.
//
// The source is read in one snapshot and never locked: appends to it go on while it forks (on Galera
// a lock would not hold another node's writers anyway, and their commits would abort the fork). The
// write then copies the rows that snapshot saw and checks that it found exactly them: rows up to the
// fork point only change by a clear, a replaceHistory, a prune or an adapter marking its items, and
// then the fork is planned again from a new snapshot. Where the fast paths run, outside the
// application's transaction, the plan, the copy and the check are one transaction on the driver
// (fork-on-driver.ts); elsewhere a read on Prisma's client, then a write.
import type { CheckedFork } from '../../engine/lifecycle-options.js';
import type { HistoryMessage, Message } from '../../message.types.js';
import type { SessionMeta } from '../../session.types.js';
import { StoreConflictError } from '../../store.errors.js';
import { toolCallRepairMessage } from '../messages/index.js';
import { messageOf, messagesOf } from '../../values/validation.js';
import type { StoreDatabase } from '../../engine/database.js';
import { insertBoundaryAt } from '../messages/index.js';
import * as repo from '../../engine/tables/message-rows.js';
import { MESSAGE_SELECT } from '../../engine/tables/message-rows.js';
import { toStoredMessage } from '../../engine/row-codec.js';
import * as sessions from '../../engine/tables/session-rows.js';
import { assertIdFree, assertNotDeletedSince } from './session-ids.js';
import type { StoreTx } from '../../engine/dialect.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { readPaged } from '../../engine/paged-reads.js';
import { spelled } from '../../engine/adapter-statement.js';
import {
  copiedBoundary,
  COPY_MESSAGES,
  cutOf,
  MAX_REPLANS,
  planOf,
  sameRows,
  SourceChanged,
  type BoundaryRow,
  type ForkCut,
  type ForkPlan,
  type LogRow,
} from './fork-plan.js';
import { forkOnDriver } from './fork-on-driver.js';
import { givingWay } from '../../engine/give-way.js';

export async function forkSession(db: StoreDatabase, sourceId: string, options: CheckedFork & { id: string }, tenantId?: string): Promise<SessionMeta> {
  // One transaction on the driver, outside the application's transaction, unless the fork appends an edited message after its copy.
  const fast = options.replaceLastUserMessage === undefined && !db.inHost() ? await db.fastPaths() : undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      if (fast?.transaction) {
        const forked = await fast.transaction(true, (run) => forkOnDriver(givingWay(run), db.kit.dialect, sourceId, options, tenantId));
        if ('meta' in forked) return forked.meta;
        // The copy needs a repair boundary: written on Prisma's client, from the plan the driver's transaction read.
        return await db.write((tx) => writeFork(tx, sourceId, options, forked.plan, tenantId), forked.plan.cut.rows.length);
      }
      const plan = await db.read((tx) => planFork(tx, sourceId, options, tenantId));
      return await db.write((tx) => writeFork(tx, sourceId, options, plan, tenantId), plan.cut.rows.length);
    } catch (error) {
      if (!(error instanceof SourceChanged) || attempt === MAX_REPLANS) throw error;
    }
  }
}

async function planFork(tx: StoreTx, sourceId: string, options: CheckedFork, tenantId: string | undefined): Promise<ForkPlan> {
  const source = await sessions.metaOf(tx, sourceId, tenantId);
  if (!source) throw notFound(sourceId);
  return planOf(source, await forkCut(tx, sourceId, options), options);
}

async function writeFork(
  tx: StoreTx,
  sourceId: string,
  options: CheckedFork & { id: string },
  { source, cut, repair }: ForkPlan,
  tenantId: string | undefined,
): Promise<SessionMeta> {
  const forkId = options.id;
  await assertIdFree(tx, forkId, source.tenantId, tenantId !== undefined);
  const now = new Date();
  const metadata = options.metadata ?? source.metadata;
  await tx.prisma.agentThread.create({
    data: {
      id: forkId,
      tenantId: source.tenantId,
      title: options.title ?? source.title,
      metadata: metadata === null ? null : JSON.stringify(metadata),
      lastSeq: Math.max(cut.endSeq, cut.kept > 0 ? cut.boundary!.seq : 0),
      forkedFrom: sourceId,
      forkSeq: cut.originSeq,
      createdAt: now,
      updatedAt: now,
    },
  });
  await assertNotDeletedSince(tx, forkId, tenantId !== undefined);
  await copyLog(tx, sourceId, forkId, cut);
  if (!sameRows(await logRows(tx, forkId, cut), cut.rows) || !(await sameSource(tx, sourceId, tenantId, cut))) throw new SourceChanged(sourceId);
  if (repair) {
    const evidence = messageOf(toolCallRepairMessage(repair), 'repairMessage', now);
    const balanced = messagesOf(repair.messages, 'balancedMessages', now);
    const seq = await repo.reserveSeqs(tx, forkId, 1);
    await insertBoundaryAt(tx, forkId, seq, await repo.latestBoundary(tx, forkId), {
      kind: 'repair',
      replacement: balanced,
      source: repair.sourceMessageCount,
      retained: null,
      evidence,
    });
  }
  const replacement = options.replaceLastUserMessage as Message | undefined;
  if (replacement) await appendReplacement(tx, forkId, replacement, cut.history);
  return (await sessions.metaOf(tx, forkId))!;
}

/** The source's log after the cut up to its last seq, messages and events, a page at a time (see readPaged). */
async function logAfter(tx: StoreTx, threadId: string, cutSeq: number, lastSeq: number) {
  return readPaged(
    (after, take) =>
      tx.prisma.agentMessage.findMany({
        where: { threadId, seq: { gt: after, lte: lastSeq } },
        orderBy: { seq: 'asc' },
        take,
        select: { ...MESSAGE_SELECT, eventType: true },
      }),
    cutSeq,
  );
}

/** The thread's rows after the cut up to endSeq: seq and event type only. */
async function logRows(tx: StoreTx, threadId: string, { boundary, endSeq }: Pick<ForkCut, 'boundary' | 'endSeq'>): Promise<LogRow[]> {
  return tx.prisma.agentMessage.findMany({
    where: { threadId, seq: { gt: boundary?.cutSeq ?? 0, lte: endSeq } },
    orderBy: { seq: 'asc' },
    select: { seq: true, eventType: true },
  });
}

/** The source is still there, with the boundary the plan copied (a deleted or cleared source copies no rows to compare). */
async function sameSource(tx: StoreTx, sourceId: string, tenantId: string | undefined, cut: ForkCut): Promise<boolean> {
  if (!(await repo.threadExists(tx, sourceId, tenantId))) return false;
  const boundary = await tx.prisma.agentBoundary.findFirst({
    where: { threadId: sourceId, seq: { lte: cut.lastSeq } },
    orderBy: { seq: 'desc' },
    select: { seq: true },
  });
  return (boundary?.seq ?? null) === (cut.boundary?.seq ?? null);
}

/**
 * Where the fork ends in the source, and what it takes of it. Every read is bounded by the source's
 * last seq, read first, and the rows after the cut are read once: in the application's transaction
 * at READ COMMITTED, where the reads are no snapshot, a write that lands between them is left out of
 * all of them alike (below the last seq, rows only go, which the copy's check sees; not rows that went
 * before the log's read, which neither holds: fork-on-driver.ts reads and counts them in one statement).
 */
async function forkCut(tx: StoreTx, sourceId: string, options: CheckedFork): Promise<ForkCut> {
  const lastSeq = (await repo.lastSeqOf(tx, sourceId)) ?? 0;
  const boundary = await latestBoundaryRow(tx, sourceId, lastSeq);
  const log = await logAfter(tx, sourceId, boundary?.cutSeq ?? 0, lastSeq);
  const entries = log.map((row) => ({
    seq: row.seq,
    eventType: row.eventType,
    message: row.eventType === null ? toStoredMessage({ ...row, role: row.role! }) : null,
  }));
  return cutOf(sourceId, options, lastSeq, boundary, entries);
}

/** The latest boundary at or below `lastSeq`, with a repair's evidence (read only for a repair: Prisma reads a relation with a statement of its own). */
async function latestBoundaryRow(tx: StoreTx, threadId: string, lastSeq: number): Promise<BoundaryRow | null> {
  const row = await tx.prisma.agentBoundary.findFirst({
    where: { threadId, seq: { lte: lastSeq } },
    orderBy: { seq: 'desc' },
    select: { seq: true, kind: true, cutSeq: true, messages: true, messageCount: true, sourceCount: true, retainedCount: true, createdAt: true },
  });
  if (!row) return null;
  const repair =
    row.kind === 'repair'
      ? await tx.prisma.agentRepair.findUnique({ where: { threadId_seq: { threadId, seq: row.seq } }, select: { message: true, createdAt: true } })
      : null;
  return { ...row, repair };
}

/** The boundary's kept messages (with its repair evidence), then the rows after the cut up to endSeq, at their seqs, as they are stored. */
async function copyLog(tx: StoreTx, sourceId: string, forkId: string, cut: ForkCut): Promise<void> {
  const boundary = copiedBoundary(cut);
  if (boundary) {
    await tx.prisma.agentBoundary.create({ data: { threadId: forkId, ...boundary } });
    if (cut.boundary!.repair) await tx.prisma.agentRepair.create({ data: { threadId: forkId, seq: boundary.seq, ...cut.boundary!.repair } });
  }
  const from = cut.boundary?.cutSeq ?? 0;
  if (cut.endSeq <= from) return;
  // One statement, in the database: no row travels to the store and back.
  await tx.prisma.$executeRawUnsafe(spelled(COPY_MESSAGES, tx.dialect.placeholder), forkId, sourceId, from, cut.endSeq);
}

/** The edited message, after the copied history: its id must not be one the fork's history holds. */
async function appendReplacement(tx: StoreTx, forkId: string, message: Message, history: HistoryMessage[]): Promise<void> {
  if (message.id !== undefined && history.some((held) => held.id === message.id)) {
    throw new StoreConflictError(`the fork's history already holds message id ${JSON.stringify(message.id)}: give the edited message a new id`);
  }
  const seq = await repo.reserveSeqs(tx, forkId, 1);
  await repo.insertMessages(tx, forkId, seq, [message]);
}
