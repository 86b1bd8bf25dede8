// The JSONL format's entries as read back (session-jsonl.ts writes and parses them): internal, not exported by
// the package; its log entry is the public SessionLogEntry.
import type { ForkOrigin } from './lifecycle.types.js';
import type { JsonObject } from './message.types.js';
import type { SessionLogEntry } from './session.types.js';

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

/** A log line as read back: the public SessionLogEntry. */
export type JsonlLogEntry = SessionLogEntry;

export interface JsonlSession {
  header: JsonlHeader;
  log: JsonlLogEntry[];
  subsessions: string[];
  /** Problems that were skipped rather than fatal (a crash-truncated last line). */
  warnings: string[];
}
