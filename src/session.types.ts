// The domain types of sessions: their header (meta), their entries, their transcript.
import type { ForkOrigin } from './lifecycle.types.js';
import type { JsonObject, JsonValue, Message, MessageInput, PageOptions, StoredMessage, ValueTypes } from './message.types.js';

/** A session's header. A session is a thread: its messages are the thread's. */
export interface SessionMeta {
  /** The session's id. */
  id: string;
  /** The tenant the session belongs to, for good; null for a session of no tenant. */
  tenantId: string | null;
  /** The session's title; null when it has none. */
  title: string | null;
  /** The session this one is a subsession of, if any. */
  parentId: string | null;
  /** Where this session was forked from (SessionStore.fork), if it is a fork. */
  forkedFrom: ForkOrigin | null;
  /** The caller's own data about the session; null when it has none. */
  metadata: JsonObject | null;
  /** When the session was created. */
  createdAt: Date;
  /**
   * When the session was last written: an append, a compaction or repair, a header update, a
   * subsession added under it. Reads, forks of it and prunes leave it alone.
   */
  updatedAt: Date;
}

/** What SessionStore.create stores: a session's header. */
export interface NewSession {
  /** Generated (a UUID) when absent. */
  id?: string;
  /** The tenant the session belongs to, for good. Absent: none (a tenant's scoped store puts it in its own). */
  tenantId?: string;
  /** The session's title: at most 65,535 bytes of UTF-8, without NUL characters. */
  title?: string;
  /** Registers this session as a subsession of an existing session. */
  parentId?: string;
  /** The caller's own data about the session: a JSON object. */
  metadata?: JsonObject;
}

/** What SessionStore.update changes: the fields given; null clears one. */
export interface SessionUpdate {
  /** The new title (as NewSession's); null clears it. */
  title?: string | null;
  /** The new metadata, in place of the old; null clears it. */
  metadata?: JsonObject | null;
}

/** A typed non-message entry of a session's log. */
export interface SessionEventInput {
  /**
   * What the event is: a non-empty string of at most 191 characters. Not one of ChatStore's
   * (`ui-message`, `ui-message-order`) nor of a framework binding's kinds: only they write those.
   */
  type: string;
  /** The event's data, JSON only. Absent: null. */
  data?: JsonValue;
}

/** An event as the log keeps it. */
export interface StoredSessionEvent {
  /** The event's place in the session's log, shared with its messages. */
  seq: number;
  /** What the event is, as appended. */
  type: string;
  /** Its data; null when none was given. */
  data: JsonValue;
  /** When it was appended. */
  createdAt: Date;
}

/** What SessionStore.append takes: a message (it has a `role`) or an event (it has a `type`). */
export type SessionEntryInput = MessageInput | SessionEventInput;
/** An entry of a session's log: a message (it has a `role`) or an event. */
export type SessionEntry = StoredMessage | StoredSessionEvent;

/** Whether the entry is an event rather than a message: it has no `role`. */
export const isEvent = (entry: SessionEntry): entry is StoredSessionEvent => !('role' in entry);

/** Which sessions SessionStore.list returns: those that match every filter given. */
export interface SessionListOptions {
  /** Only this tenant's sessions. A tenant's scoped store lists its own only; another tenant here is a StoreValidationError. */
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
  /** Only sessions created after this time (not at it). */
  createdAfter?: Date;
  /** Only sessions created before this time (not at it). */
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
export type SessionLogEntry =
  | {
      /** `'message'`. */
      type: 'message';
      /** The message's place in the session's log. */
      seq: number;
      /** The message, without its seq. */
      message: Message;
    }
  | {
      /** `'event'`. */
      type: 'event';
      /** The event's place in the session's log. */
      seq: number;
      /** The event, as appended. */
      event: {
        /** What the event is (a framework binding's kind, for a binding's event). */
        type: string;
        /** Its data: JSON, in its JSON form where `valueTypes` lists other values. */
        data: JsonValue;
      };
      /** When it was appended. */
      createdAt: Date;
      /** Where `event.data` holds bytes, dates or URLs (in a binding's event), as their JSON form; absent when it is all JSON. */
      valueTypes?: ValueTypes;
      /** The event's key in the session, where a framework binding gave it one (nestjs-agent-store/integration). */
      key?: string;
    }
  | {
      /** `'compaction'`. */
      type: 'compaction';
      /** The boundary's place in the session's log. */
      seq: number;
      /** The seq of the last logged message it replaces: the history is `messages`, then the log's messages after this seq. */
      cutSeq: number;
      /** The messages that stand for the log up to `cutSeq`, in history order: the summary and the messages retained verbatim. */
      messages: Message[];
      /** How many messages of the effective history the summarizer read and the compaction replaced. */
      sourceMessageCount: number;
      /** How many of `messages` are kept verbatim. */
      retainedMessageCount: number;
      /** When it was written. */
      createdAt: Date;
    }
  | {
      /** `'repair'`. */
      type: 'repair';
      /** The boundary's place in the session's log. */
      seq: number;
      /** The seq of the last logged message it replaces: the history is `messages`, then the log's messages after this seq. */
      cutSeq: number;
      /** The balanced messages that stand for the log up to `cutSeq`. */
      messages: Message[];
      /** How many messages of the effective history the repair replaced. */
      sourceMessageCount: number;
      /** The evidence: a tool message holding the synthetic results the repair added. */
      repairMessage: Message;
      /** When it was written. */
      createdAt: Date;
    };

/** Which page of the log to read: PageOptions, or `fromSeq` instead of a cursor. */
export interface LogPageOptions extends PageOptions {
  /** Start at the first entry whose seq is at least this (an integer from 1); not with `cursor`. */
  fromSeq?: number;
}

/** A page of a session's log, in seq order; `nextCursor` reads the next one, and is null on the last. */
export interface SessionLogPage {
  /** The page's entries, in seq order. */
  entries: SessionLogEntry[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A page of session headers, newest first. */
export interface SessionPage {
  /** The page's headers. */
  sessions: SessionMeta[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A session's whole transcript, as TranscriptStore saves and returns it. */
export interface Transcript {
  /** The transcript's messages, in order. */
  messages: MessageInput[];
  /** Ids of the subsessions, in registration order. */
  subsessions?: string[];
  /** The session's metadata, a JSON object; absent: none. */
  metadata?: JsonObject;
}

/** A session's transcript as TranscriptStore returns it. */
export interface StoredTranscript {
  /** Every committed message, in append order (what a prune deleted aside). */
  messages: StoredMessage[];
  /** Ids of the subsessions, in registration order. */
  subsessions: string[];
  /** The session's metadata; null when it has none. */
  metadata: JsonObject | null;
}

/** Where SessionStore.importJsonl imports, and what it does with the file's subsessions. */
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

/** What SessionStore.importJsonl imported. */
export interface JsonlImport {
  /** The session imported into. */
  sessionId: string;
  /** Log entries imported: messages, events, compactions and repairs. */
  entries: number;
  /** Problems skipped rather than fatal: a last line cut short by a crash. Empty when there were none. */
  warnings: string[];
}
