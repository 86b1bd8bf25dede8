// The types of a conversation's life: forks, pruning, expiry and erasure.
import type { JsonObject, MessageInput } from './message.types.js';

/** Where a fork's history ends in its source's effective history. */
export type ForkPoint =
  /** Up to and including the source's message at this seq (a message of its effective history). */
  | { seq: number }
  /** The first `position` messages of the source's effective history (0: none). */
  | { position: number };

export interface ForkOptions {
  /** The fork's id. Generated (a UUID) when absent. */
  id?: string;
  /** The fork's title and metadata. Default: the source's. */
  title?: string;
  metadata?: JsonObject;
  /** Where the fork's history ends. Default: the source's whole effective history. */
  at?: ForkPoint;
  /**
   * Edit and regenerate: the fork's history is the source's up to, and without, its last user
   * message, followed by this message. Not with `at`.
   */
  replaceLastUserMessage?: MessageInput;
  /**
   * A fork point that leaves tool calls without their results: 'refuse' (default) is a
   * StoreValidationError; 'repair' gives each such call an error result, as repairToolCalls does.
   */
  unansweredToolCalls?: 'refuse' | 'repair';
}

/** Where a fork came from. */
export interface ForkOrigin {
  /** The source session's id (kept when the source is deleted later). */
  sessionId: string;
  /** The seq of the source's log up to which the fork took its history. */
  seq: number;
}

export interface PruneOptions {
  /** Keep the evidence of earlier repairs (getRepairs). Default true. */
  keepRepairs?: boolean;
}

export interface PruneReport {
  /** Messages deleted. */
  messages: number;
  /** Boundaries (compactions, repairs) deleted. */
  boundaries: number;
}

export interface PruneAllOptions extends PruneOptions {
  /** Prunes the threads whose latest compaction or repair was written before this date. */
  compactedBefore: Date;
  /** Only this tenant's threads. */
  tenantId?: string;
}

export interface PruneAllReport extends PruneReport {
  /** Threads that had something pruned. */
  threads: number;
}

export interface PurgeOptions {
  /** Deletes the session trees none of whose sessions was written at or after this date. */
  updatedBefore: Date;
  /** Only this tenant's sessions. */
  tenantId?: string;
  /** Session trees deleted per transaction, 1 to 1,000. Default 100. */
  batchSize?: number;
  /** Told of each batch once it has committed. */
  onBatch?: (batch: { sessionIds: string[] }) => void | Promise<void>;
}

export interface PurgeReport {
  /** Sessions deleted, subsessions included. */
  sessions: number;
  /** Transactions that deleted something. */
  batches: number;
}

export interface EraseTenantOptions {
  /** Sessions (or LangGraph threads) deleted per transaction, 1 to 1,000. Default 100. */
  batchSize?: number;
}

/** Rows deleted, by what they held. */
export interface TenantErasure {
  sessions: number;
  tombstones: number;
  /** LangGraph checkpoints (with their channel values and pending writes). */
  checkpoints: number;
  /** LangGraph pending writes without a checkpoint (LangGraph writes them before its put lands). */
  pendingWrites: number;
}
