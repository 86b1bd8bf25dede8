// The domain types of sessions: their header (meta), their entries, their transcript.
import type { ForkOrigin } from './lifecycle.types.js';
import type { JsonlLogEntry } from './jsonl.types.js';
import type { JsonObject, JsonValue, MessageInput, PageOptions, StoredMessage } from './message.types.js';

/** A session's header. A session is a thread: its messages are the thread's. */
export interface SessionMeta {
  id: string;
  tenantId: string | null;
  title: string | null;
  /** The session this one is a subsession of, if any. */
  parentId: string | null;
  /** Where this session was forked from (SessionStore.fork), if it is a fork. */
  forkedFrom: ForkOrigin | null;
  metadata: JsonObject | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewSession {
  /** Generated (a UUID) when absent. */
  id?: string;
  tenantId?: string;
  title?: string;
  /** Registers this session as a subsession of an existing session. */
  parentId?: string;
  metadata?: JsonObject;
}

/** What SessionStore.update changes: the fields given; null clears one. */
export interface SessionUpdate {
  title?: string | null;
  metadata?: JsonObject | null;
}

/** A typed non-message entry of a session's log. */
export interface SessionEventInput {
  type: string;
  data?: JsonValue;
}

export interface StoredSessionEvent {
  seq: number;
  type: string;
  data: JsonValue;
  createdAt: Date;
}

/** What SessionStore.append takes: a message (it has a `role`) or an event (it has a `type`). */
export type SessionEntryInput = MessageInput | SessionEventInput;
export type SessionEntry = StoredMessage | StoredSessionEvent;

export const isEvent = (entry: SessionEntry): entry is StoredSessionEvent => !('role' in entry);

export interface SessionListOptions {
  tenantId?: string;
  /** Only the subsessions of this session. */
  parentId?: string;
  /** Only the forks of this session. */
  forkedFrom?: string;
  /**
   * Only sessions whose id or title contains this text (1 to 200 characters).
   * Text as written always matches; ASCII letters in either case on every
   * database, other letters where the database's LOWER folds them (PostgreSQL
   * and MySQL do, SQLite does not). A search
   * reads through the tenant's sessions (no index can serve a substring).
   */
  search?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Page size, 1 to 500. Default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/**
 * An entry of a session's log as getLogPage returns it and a JSONL export
 * writes it: a message, an event, or a compaction or repair boundary, each at
 * its seq. A boundary's `cutSeq` is as stored: after MessageStore.pruneTranscript
 * it may name a message that was deleted.
 */
export type SessionLogEntry = JsonlLogEntry;

/** Which page of the log to read: PageOptions, or `fromSeq` instead of a cursor. */
export interface LogPageOptions extends PageOptions {
  /** Start at the first entry whose seq is at least this (an integer from 1); not with `cursor`. */
  fromSeq?: number;
}

/** A page of a session's log, in seq order; `nextCursor` reads the next one, and is null on the last. */
export interface SessionLogPage {
  entries: SessionLogEntry[];
  nextCursor: string | null;
}

export interface SessionPage {
  sessions: SessionMeta[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A session's whole transcript, as TranscriptStore saves and returns it. */
export interface Transcript {
  messages: MessageInput[];
  /** Ids of the subsessions, in registration order. */
  subsessions?: string[];
  metadata?: JsonObject;
}

export interface StoredTranscript {
  messages: StoredMessage[];
  subsessions: string[];
  metadata: JsonObject | null;
}

export interface JsonlImportOptions {
  /** The session to import into, new or existing and empty. Default: the header's id. */
  sessionId?: string;
  /**
   * 'attach' (default): register the file's subsessions under the imported
   * session, creating missing ones empty. 'omit': import the session alone, as
   * when copying one whose subsessions already belong to the original.
   */
  subsessions?: 'attach' | 'omit';
}

export interface JsonlImport {
  sessionId: string;
  /** Log entries imported: messages, events, compactions and repairs. */
  entries: number;
  warnings: string[];
}
