// The rows of LangGraph's checkpoints as this integration reads and writes them
// (langgraph-checkpoints.ts), and the queries that find them.

/** A value as the serde wrote it: its type and its bytes. */
export interface Typed {
  type: string;
  bytes: Uint8Array;
}

/** Where a checkpoint lives: its thread and namespace. */
export interface LaneKey {
  threadId: string;
  checkpointNs: string;
}

export interface CheckpointRow extends LaneKey {
  checkpointId: string;
  parentCheckpointId: string | null;
  checkpoint: Typed;
  metadata: Typed;
  /** Its channel_versions, versions as text; null in rows written before the store kept them. */
  versions: Record<string, string> | null;
}

/** A channel's value at a version; `value` null for "empty" (the channel was versioned without a value). */
export interface BlobRow {
  channel: string;
  version: string;
  value: Typed | null;
}

export interface WriteRow {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: Typed;
}

export interface CheckpointQuery {
  /** Absent: every thread (of the tenant). */
  threadId?: string;
  /** Absent: every namespace. */
  checkpointNs?: string;
  /** Only this checkpoint. */
  checkpointId?: string;
  /** Only checkpoints whose id sorts before this one. */
  before?: string;
}
