// Forks: a new session whose history is another's up to a point. The source's latest boundary and
// the log rows after its cut are copied in the database, so a fork costs what the effective history
// holds, never the transcript before the cut.
//
// The source is read in one snapshot and never locked: appends to it go on while it forks (on Galera
// a lock would not hold another node's writers anyway, and their commits would abort the fork). The
// write then copies the rows that snapshot saw and checks that it found exactly them: rows up to the
// fork point only change by a clear, a replaceHistory, a prune or an adapter marking its items, and
// then the fork is planned again from a new snapshot.
import type { CheckedFork } from '../../engine/lifecycle-options.js';
import type { ForkPoint } from '../../lifecycle.types.js';
import type { HistoryMessage, Message } from '../../message.types.js';
import type { SessionMeta } from '../../session.types.js';
import { StoreConflictError, StoreValidationError } from '../../store.errors.js';
import { balanceToolCalls, toolCallRepairMessage } from '../messages/index.js';
import { messageOf, messagesOf } from '../../values/validation.js';
import type { StoreDatabase } from '../../engine/database.js';
import { insertBoundaryAt } from '../messages/index.js';
import * as repo from '../../engine/tables/message-rows.js';
import { MESSAGE_SELECT } from '../../engine/tables/message-rows.js';
import { asHistory, boundaryMessages, boundaryText, toStoredMessage } from '../../engine/row-codec.js';
import * as sessions from '../../engine/tables/session-rows.js';
import { assertIdFree, assertNotDeletedSince } from './session-ids.js';
import type { StoreTx } from '../../engine/dialect.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { readPaged } from '../../engine/paged-reads.js';

/** The source's latest boundary as its row holds it. */
interface BoundaryRow {
  seq: number;
  kind: string;
  cutSeq: number;
  messages: string;
  messageCount: number;
  sourceCount: number;
  retainedCount: number | null;
  createdAt: Date;
  repair: { message: string; createdAt: Date } | null;
}

/** What the fork takes of the source: `kept` messages of its boundary, then its log rows after the cut up to `endSeq`. */
interface ForkCut {
  /** The source's last seq when it was read: the plan holds nothing written after it. */
  lastSeq: number;
  /** The rows after the cut up to endSeq, as the snapshot saw them: messages and events (by their type). */
  rows: LogRow[];
  boundary: BoundaryRow | null;
  kept: number;
  /** The last seq of the source's log whose rows the fork copies (the cut, when it copies none). */
  endSeq: number;
  /** Where the fork came from, in the source's log (see ForkOrigin). */
  originSeq: number;
  /** The fork's history as copied: the boundary's kept messages, then the messages after the cut up to endSeq. */
  history: HistoryMessage[];
}

type LogRow = { seq: number; eventType: string | null };

/** The source, as one snapshot saw it, and what the fork takes of it. */
interface ForkPlan {
  source: SessionMeta;
  cut: ForkCut;
  repair: ReturnType<typeof balanceToolCalls>;
}

/** Thrown in the fork's write when the source's rows are no longer those its plan saw: the fork is planned again. */
class SourceChanged extends StoreConflictError {
  constructor(sourceId: string) {
    super(`session ${sourceId} was cleared, replaced or pruned while it was forked, ${MAX_REPLANS} times: nothing was written, fork it again`);
  }
}

/** How many times a fork is planned again after its source changed under it. */
const MAX_REPLANS = 3;

export async function forkSession(db: StoreDatabase, sourceId: string, options: CheckedFork & { id: string }, tenantId?: string): Promise<SessionMeta> {
  for (let attempt = 1; ; attempt++) {
    const plan = await db.read((tx) => planFork(tx, sourceId, options, tenantId));
    try {
      return await db.write((tx) => writeFork(tx, sourceId, options, plan, tenantId), plan.cut.rows.length);
    } catch (error) {
      if (!(error instanceof SourceChanged) || attempt === MAX_REPLANS) throw error;
    }
  }
}

async function planFork(tx: StoreTx, sourceId: string, options: CheckedFork, tenantId: string | undefined): Promise<ForkPlan> {
  const source = await sessions.metaOf(tx, sourceId, tenantId);
  if (!source) throw notFound(sourceId);
  const cut = await forkCut(tx, sourceId, options);
  const repair = balanceToolCalls(cut.history);
  if (repair && options.unansweredToolCalls === 'refuse') {
    const calls = repair.orphans.map((orphan) => orphan.toolCallId).join(', ');
    throw new StoreValidationError(
      `the fork point leaves tool calls without their results (${calls}): fork after their results, or pass unansweredToolCalls: 'repair' to answer them with an error result`,
    );
  }
  return { source, cut, repair };
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

const sameRows = (a: LogRow[], b: LogRow[]) => a.length === b.length && a.every((row, i) => row.seq === b[i].seq && row.eventType === b[i].eventType);

/**
 * Where the fork ends in the source, and what it takes of it. Every read is bounded by the source's
 * last seq, read first, and the rows after the cut are read once: in the application's transaction
 * at READ COMMITTED, where the reads are no snapshot, a write that lands between them is left out of
 * all of them alike (below the last seq, rows only go, which the copy's check sees).
 */
async function forkCut(tx: StoreTx, sourceId: string, options: CheckedFork): Promise<ForkCut> {
  const lastSeq = (await repo.lastSeqOf(tx, sourceId)) ?? 0;
  const boundary = await latestBoundaryRow(tx, sourceId, lastSeq);
  const summary = boundary ? boundaryMessages(boundary.messages) : [];
  const cutSeq = boundary?.cutSeq ?? 0;
  const log = await logAfter(tx, sourceId, cutSeq, lastSeq);
  const after = log.flatMap((row) => (row.eventType === null ? [toStoredMessage({ ...row, role: row.role! })] : []));
  const take = async (kept: number, endSeq: number, originSeq = endSeq): Promise<ForkCut> => ({
    lastSeq,
    rows: log.filter((row) => row.seq <= endSeq).map(({ seq, eventType }) => ({ seq, eventType })),
    boundary,
    kept,
    endSeq,
    originSeq,
    history: [...asHistory(summary.slice(0, kept)), ...after.filter((message) => message.seq <= endSeq)],
  });
  // Inside the summary: the boundary's first messages, nothing after its cut; the origin is the boundary.
  const inSummary = (kept: number) => take(kept, cutSeq, boundary!.seq);
  if (options.replaceLastUserMessage !== undefined) {
    const user = after.findLast((message) => message.role === 'user');
    if (user) return take(summary.length, user.seq - 1);
    const index = summary.findLastIndex((message) => message.role === 'user');
    if (index < 0) throw new StoreValidationError(`session ${sourceId} has no user message in its history to replace`);
    return inSummary(index);
  }
  const at: ForkPoint | undefined = options.at;
  if (at === undefined) return take(summary.length, lastSeq);
  if ('seq' in at) {
    if (!after.some((message) => message.seq === at.seq)) {
      throw new StoreValidationError(
        `seq ${at.seq} is not a message of the effective history of ${sourceId} (after its latest compaction or repair): fork at a position instead`,
      );
    }
    return take(summary.length, at.seq);
  }
  const effective = summary.length + after.length;
  if (at.position > effective)
    throw new StoreValidationError(`position ${at.position} exceeds the ${effective} messages of the effective history of ${sourceId}`);
  if (at.position <= summary.length && boundary) return inSummary(at.position);
  return take(summary.length, at.position === 0 ? cutSeq : after[at.position - summary.length - 1].seq);
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
async function copyLog(tx: StoreTx, sourceId: string, forkId: string, { boundary, kept, endSeq }: ForkCut): Promise<void> {
  if (boundary && kept > 0) {
    const whole = kept === boundary.messageCount;
    await tx.prisma.agentBoundary.create({
      data: {
        threadId: forkId,
        seq: boundary.seq,
        kind: boundary.kind,
        cutSeq: boundary.cutSeq,
        messages: whole ? boundary.messages : boundaryText(boundaryMessages(boundary.messages).slice(0, kept)),
        messageCount: kept,
        sourceCount: boundary.sourceCount,
        // The verbatim messages are the replacement's last ones: a fork inside it keeps those before the cut.
        retainedCount: boundary.retainedCount === null ? null : Math.max(0, boundary.retainedCount - (boundary.messageCount - kept)),
        createdAt: boundary.createdAt,
      },
    });
    if (boundary.repair) await tx.prisma.agentRepair.create({ data: { threadId: forkId, seq: boundary.seq, ...boundary.repair } });
  }
  const from = boundary?.cutSeq ?? 0;
  if (endSeq <= from) return;
  // One statement, in the database: no row travels to the store and back.
  await tx.prisma.$executeRaw`
    INSERT INTO agent_message (thread_id, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at)
    SELECT ${forkId}, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at
    FROM agent_message WHERE thread_id = ${sourceId} AND seq > ${from} AND seq <= ${endSeq}`;
}

/** The edited message, after the copied history: its id must not be one the fork's history holds. */
async function appendReplacement(tx: StoreTx, forkId: string, message: Message, history: HistoryMessage[]): Promise<void> {
  if (message.id !== undefined && history.some((held) => held.id === message.id)) {
    throw new StoreConflictError(`the fork's history already holds message id ${JSON.stringify(message.id)}: give the edited message a new id`);
  }
  const seq = await repo.reserveSeqs(tx, forkId, 1);
  await repo.insertMessages(tx, forkId, seq, [message]);
}
