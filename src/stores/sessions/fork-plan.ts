// What a fork takes of its source, worked out from rows already read: the cut (the boundary's kept
// messages and the log rows after it up to the fork point), the plan (refused when it leaves tool
// calls unanswered), and what is copied. Both ways of forking use it: on the driver in one
// transaction (fork-on-driver.ts), and on Prisma's client (session-forks.ts).
import type { CheckedFork } from '../../engine/lifecycle-options.js';
import type { ForkPoint } from '../../lifecycle.types.js';
import type { HistoryMessage, StoredMessage } from '../../message.types.js';
import type { SessionMeta } from '../../session.types.js';
import { StoreConflictError, StoreValidationError } from '../../store.errors.js';
import { balanceToolCalls } from '../messages/index.js';
import { asHistory, boundaryMessages, boundaryText } from '../../engine/row-codec.js';

/** The source's latest boundary as its row holds it. */
export interface BoundaryRow {
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
export interface ForkCut {
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

export type LogRow = { seq: number; eventType: string | null };
/** The source, as one snapshot saw it, and what the fork takes of it. */
export interface ForkPlan {
  source: SessionMeta;
  cut: ForkCut;
  repair: ReturnType<typeof balanceToolCalls>;
}

/** Thrown in the fork's write when the source's rows are no longer those its plan saw: the fork is planned again. */
export class SourceChanged extends StoreConflictError {
  constructor(sourceId: string) {
    super(`session ${sourceId} was cleared, replaced or pruned while it was forked, ${MAX_REPLANS} times: nothing was written, fork it again`);
  }
}

/** How many times a fork is planned again after its source changed under it. */
export const MAX_REPLANS = 3;

/** The plan of a fork of `source` at `cut`: refused when the cut leaves tool calls unanswered and the caller did not ask for a repair. */
export function planOf(source: SessionMeta, cut: ForkCut, options: CheckedFork): ForkPlan {
  const repair = balanceToolCalls(cut.history);
  if (repair && options.unansweredToolCalls === 'refuse') {
    const calls = repair.orphans.map((orphan) => orphan.toolCallId).join(', ');
    throw new StoreValidationError(
      `the fork point leaves tool calls without their results (${calls}): fork after their results, or pass unansweredToolCalls: 'repair' to answer them with an error result`,
    );
  }
  return { source, cut, repair };
}

export const sameRows = (a: LogRow[], b: LogRow[]) => a.length === b.length && a.every((row, i) => row.seq === b[i].seq && row.eventType === b[i].eventType);
/** A row of the source's log after the cut: a message (with its seq) or an event (by its type). */
export interface LogEntry {
  seq: number;
  eventType: string | null;
  message: StoredMessage | null;
}

/** The fork's cut, from the source's last seq, its latest boundary at or below it, and its log after that boundary's cut up to it, in order. */
export function cutOf(sourceId: string, options: CheckedFork, lastSeq: number, boundary: BoundaryRow | null, log: LogEntry[]): ForkCut {
  const summary = boundary ? boundaryMessages(boundary.messages) : [];
  const cutSeq = boundary?.cutSeq ?? 0;
  const after = log.flatMap((row) => (row.message ? [row.message] : []));
  const take = (kept: number, endSeq: number, originSeq = endSeq): ForkCut => ({
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

/** The fork's boundary: the source's, holding the messages the fork keeps of it; null when it keeps none. */
export function copiedBoundary({ boundary, kept }: ForkCut) {
  if (!boundary || kept === 0) return null;
  const whole = kept === boundary.messageCount;
  return {
    seq: boundary.seq,
    kind: boundary.kind,
    cutSeq: boundary.cutSeq,
    messages: whole ? boundary.messages : boundaryText(boundaryMessages(boundary.messages).slice(0, kept)),
    messageCount: kept,
    sourceCount: boundary.sourceCount,
    // The verbatim messages are the replacement's last ones: a fork inside it keeps those before the cut.
    retainedCount: boundary.retainedCount === null ? null : Math.max(0, boundary.retainedCount - (boundary.messageCount - kept)),
    createdAt: boundary.createdAt,
  };
}

/** The source's rows after the cut up to endSeq copied to the fork at their seqs (fork, source, cut, endSeq). */
export const COPY_MESSAGES = `INSERT INTO agent_message (thread_id, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at)
  SELECT ?, seq, role, event_type, content, message_id, metadata, provider_options, value_types, created_at
  FROM agent_message WHERE thread_id = ? AND seq > ? AND seq <= ?`;
