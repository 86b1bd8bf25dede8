// The JSONL format's entries as read back (session-jsonl.ts writes and parses them): internal, not exported by
// the package; its log entry is the public SessionLogEntry.
import type { ForkOrigin } from './lifecycle.types.js';
import type { JsonObject, JsonValue, Message, ValueTypes } from './message.types.js';

/** A JSONL export's first line, as read back. */
export interface JsonlHeader {
  id: string;
  tenantId: string | null;
  title: string | null;
  metadata: JsonObject | null;
  createdAt: Date;
  /** Where the session was forked from; absent (or null) when it is no fork. */
  forkedFrom?: ForkOrigin | null;
}

export type JsonlLogEntry =
  | { type: 'message'; seq: number; message: Message }
  | {
      type: 'event';
      seq: number;
      event: { type: string; data: JsonValue };
      createdAt: Date;
      valueTypes?: ValueTypes;
      /** The event's key in the session, where a framework binding gave it one (nestjs-agent-store/integration). */
      key?: string;
    }
  | { type: 'compaction'; seq: number; cutSeq: number; messages: Message[]; sourceMessageCount: number; retainedMessageCount: number; createdAt: Date }
  | { type: 'repair'; seq: number; cutSeq: number; messages: Message[]; sourceMessageCount: number; repairMessage: Message; createdAt: Date };

export interface JsonlSession {
  header: JsonlHeader;
  log: JsonlLogEntry[];
  subsessions: string[];
  /** Problems that were skipped rather than fatal (a crash-truncated last line). */
  warnings: string[];
}
