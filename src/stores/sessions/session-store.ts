// The SessionStore contract. Inject it by its token: `@Inject(SessionStore) sessions: SessionStore`.
import type { ForkOptions } from '../../lifecycle.types.js';
import type {
  JsonlImport,
  JsonlImportOptions,
  LogPageOptions,
  NewSession,
  SessionEntry,
  SessionEntryInput,
  SessionListOptions,
  SessionLogPage,
  SessionMeta,
  SessionPage,
  SessionUpdate,
} from '../../session.types.js';

/**
 * Sessions with explicit headers and an append-only log of entries: messages
 * and typed non-message events. Unlike MessageStore, nothing is created
 * implicitly: a session must be created before it is appended to.
 */
export interface SessionStore {
  /**
   * Stores a session header and returns its id (a UUID when none is given).
   * A duplicate id, or the id of a deleted session, is a StoreConflictError.
   * `parentId` registers the new session as a subsession of an existing one
   * (StoreNotFoundError when it does not exist).
   */
  create(meta?: NewSession): Promise<string>;

  /** The session's header, or null. */
  get(sessionId: string): Promise<SessionMeta | null>;

  /** Changes the header's title and metadata; returns the new header. StoreNotFoundError for an unknown session. */
  update(sessionId: string, changes: SessionUpdate): Promise<SessionMeta>;

  /**
   * Appends one entry: a message (it has a `role`) or an event `{ type, data }`.
   * StoreNotFoundError when the session was never created (or was deleted).
   */
  append(sessionId: string, entry: SessionEntryInput): Promise<SessionEntry>;

  /** Every entry in append order. StoreNotFoundError for an unknown session. */
  load(sessionId: string): Promise<SessionEntry[]>;

  /**
   * The session's whole log a page at a time (at most `limit`, 1 to 1,000,
   * default 100): messages and events, and the compaction and repair
   * boundaries at their seqs, shaped as the lines of a JSONL export. For
   * looking at a session of any length (the viewer reads it); `fromSeq` starts
   * at a seq instead of a cursor. StoreNotFoundError for an unknown session.
   */
  getLogPage(sessionId: string, page?: LogPageOptions): Promise<SessionLogPage>;

  /**
   * Session headers, newest first, a page at a time. With `tenantId`, only that
   * tenant's sessions, whatever else is asked.
   */
  list(options?: SessionListOptions): Promise<SessionPage>;

  /**
   * The session as JSONL lines (each ending in a newline): its header, then
   * every message, event, compaction and repair in log order, then its
   * subsessions. Read from one snapshot. StoreNotFoundError for an unknown session.
   */
  exportJsonl(sessionId: string): AsyncIterable<string>;

  /**
   * Imports a JSONL session into a new session, or an existing empty one
   * (`options.sessionId`, else the header's id), atomically; the session takes
   * the file's title, metadata and createdAt (an existing one keeps its tenant).
   * A crash-truncated last line is skipped and reported in `warnings`; any
   * other bad line is a StoreValidationError naming its line, and nothing is
   * imported. A session that already has entries is a StoreConflictError.
   * Subsessions are registered (created empty when missing) under the usual
   * rules, unless `options.subsessions` is 'omit'. Files of a tree import in
   * any order: a child created empty by its parent's file takes its own file.
   */
  importJsonl(input: string | AsyncIterable<string | Uint8Array>, options?: JsonlImportOptions): Promise<JsonlImport>;

  /**
   * Creates a session whose effective history is the source's (all of it, or up to `options.at`),
   * in the source's tenant, and returns its header: `forkedFrom` names the source and the seq of the
   * source's log it was taken at, and `list({ forkedFrom })` lists a session's forks. The fork gets
   * the source's latest compaction or repair and the messages and events after its cut, with their
   * seqs, read in one snapshot of the source: its cost follows the effective history, not the
   * transcript. The two never share a row afterwards: appends to either leave the other alone. A
   * fork is a root session: the source's parent and subsessions are not copied. A fork point that
   * leaves a tool call without its result is a StoreValidationError (or, with
   * `unansweredToolCalls: 'repair'`, the call is given an error result in the fork). With
   * `replaceLastUserMessage`, the fork's history ends with that message in place of the source's
   * last user message: edit and regenerate in one call. StoreNotFoundError for an unknown source;
   * an id already taken (or of a deleted session) is a StoreConflictError.
   */
  fork(sourceId: string, options?: ForkOptions): Promise<SessionMeta>;

  /** The same store, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): SessionStore;
}

/** The injection token of SessionStore, which StoreModule provides: `@Inject(SessionStore) sessions: SessionStore`. */
export const SessionStore = Symbol('SessionStore');
