// The types of a conversation's life: forks, pruning, expiry and erasure.
import type { JsonObject, MessageInput } from './message.types.js';

/** Where a fork's history ends in its source's effective history. */
export type ForkPoint =
  | {
      /** Up to and including the source's message at this seq (a message of its effective history, else a StoreValidationError). */
      seq: number;
    }
  | {
      /** The first `position` messages of the source's effective history, a compaction's summary included (0: none). */
      position: number;
    };

/** How SessionStore.fork makes its fork. */
export interface ForkOptions {
  /** The fork's id. Generated (a UUID) when absent. */
  id?: string;
  /** The fork's title. Default: the source's. */
  title?: string;
  /** The fork's metadata. Default: the source's. */
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

/** What MessageStore.pruneTranscript keeps. */
export interface PruneOptions {
  /** Keep the evidence of earlier repairs (getRepairs). Default true. */
  keepRepairs?: boolean;
}

/** What a prune deleted. */
export interface PruneReport {
  /** Messages deleted. */
  messages: number;
  /** Boundaries (compactions, repairs) deleted. */
  boundaries: number;
}

/** Which threads StoreMaintenance.pruneTranscripts prunes. */
export interface PruneAllOptions extends PruneOptions {
  /** Prunes the threads whose latest compaction or repair was written before this date. */
  compactedBefore: Date;
  /** Only this tenant's threads. */
  tenantId?: string;
}

/** What StoreMaintenance.pruneTranscripts deleted, over all the threads it pruned. */
export interface PruneAllReport extends PruneReport {
  /** Threads that had something pruned. */
  threads: number;
}

/** Which session trees StoreMaintenance.purge deletes, and how. */
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

/** What a purge deleted in this run. */
export interface PurgeReport {
  /** Sessions deleted, subsessions included. */
  sessions: number;
  /** Transactions that deleted something. */
  batches: number;
}

/** How StoreMaintenance.eraseTenant works through the tenant's rows. */
export interface EraseTenantOptions {
  /** Sessions (or LangGraph threads) deleted per transaction, 1 to 1,000. Default 100. */
  batchSize?: number;
}

/** Rows deleted, by what they held. */
export interface TenantErasure {
  /** Sessions, subsessions included (with their messages, events, boundaries and edges). */
  sessions: number;
  /** Tombstones: the ids of the tenant's sessions deleted earlier. */
  tombstones: number;
  /** LangGraph checkpoints (with their channel values and pending writes). */
  checkpoints: number;
  /** LangGraph pending writes without a checkpoint (LangGraph writes them before its put lands). */
  pendingWrites: number;
}
