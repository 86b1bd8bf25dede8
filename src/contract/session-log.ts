// The sessions' log as a binding sees it: the store's sessions (tenancy,
// deletion, subsessions, a header) and, in each, the binding's own events,
// kept in the order they were appended with the values as given. A binding
// writes nothing else of a session: its messages are the stores'.

/** A session's header. */
export interface LoggedSession {
  /** The session's id. */
  id: string;
  /** The tenant it belongs to; null for a session of no tenant. */
  tenantId: string | null;
  /** Its title; null when it has none. */
  title: string | null;
  /** Its metadata; null when it has none. */
  metadata: Record<string, unknown> | null;
  /** The last sequence number handed out in its log: 0 for a session nothing was appended to. */
  lastSeq: number;
  /** When the session was last written. */
  updatedAt: Date;
}

/** An event of the log. */
export interface LoggedEvent {
  /** The event's place in the session's log (shared with the session's messages). */
  seq: number;
  /** `<binding>.<what>`: the binding's name, then what the event is (a kind it declared, see defineBinding). */
  kind: string;
  /** The binding's key for it, unique in the session (an idempotency key); null for none. */
  key: string | null;
  /** The value as it was appended (bytes, dates, URLs and an object's key order kept). */
  value: unknown;
}

/** An event to append. */
export interface NewEvent {
  /** The event's kind: one its binding declared (see defineBinding). */
  kind: string;
  /**
   * At most 191 characters; a second event with the key in the session is a StoreConflictError (the write's).
   * Keys share the session's index with the ids of its messages: prefix them (`e:…`) so none is a message's.
   */
  key?: string | null;
  /** What the event holds: a value the kind holds, kept as the kind says (see SessionLog.append). */
  value: unknown;
}

/** Which events of a session to read. */
export interface EventQuery {
  /** Of these kinds. */
  kinds: string[];
  /** After this sequence number. */
  after?: number;
  /** With one of these keys. */
  keys?: string[];
  /** Only the newest `last` (still oldest first). */
  last?: number;
}

/** Which sessions to list: those titled `title`, of the store's tenant (unscoped: of no tenant). */
export interface SessionQuery {
  /** The title the sessions have, exactly. */
  title: string;
  /** Whose id starts with this. */
  idPrefix?: string;
  /** That are no session's subsession. */
  roots?: boolean;
  /** That something was appended to. */
  nonEmpty?: boolean;
}

/**
 * The log's reads, in the snapshot of the transaction that hands it out. A scoped store sees its
 * tenant's sessions only; an unscoped one, any by id. A deleted session is not there.
 */
export interface SessionLogReads {
  /** The session's header; undefined when there is none. */
  session(id: string): Promise<LoggedSession | undefined>;
  /** The session's events that `query` selects, oldest first; none when there is no session. */
  events(id: string, query: EventQuery): Promise<LoggedEvent[]>;
  /** The sessions `query` selects, oldest first. */
  sessions(query: SessionQuery): Promise<LoggedSession[]>;
  /** The session's subsessions, in the order they were attached. */
  children(id: string): Promise<LoggedSession[]>;
}

/** The log in one of the store's write transactions: each change commits with the transaction's other statements, or none does. */
export interface SessionLog extends SessionLogReads {
  /**
   * Locks the session for the rest of the transaction, creating it (in the store's tenant, with `header`)
   * when there is none; whether it created it. A deleted session (its id is not used again), or another
   * tenant's, is a StoreNotFoundError.
   */
  open(
    id: string,
    header?: { title?: string; metadata?: Record<string, unknown> },
  ): Promise<{
    /** Whether this call created the session. */
    created: boolean;
  }>;
  /** Locks the session for the rest of the transaction; false when there is none (deleted, or another tenant's). */
  lock(id: string): Promise<boolean>;
  /**
   * Appends `events` in order at the end of the session's log, creating the session as `open` does;
   * their sequence numbers. Each is of a kind its binding declared (defineBinding), and kept as the
   * kind says: as its JSON text alone (`jsonText`), or as the store keeps a message's values. A value
   * the kind does not hold, or a key other than the one the binding gives it, is a StoreValidationError.
   */
  append(id: string, events: NewEvent[]): Promise<number[]>;
  /**
   * Gives the session's events of kind `from.kind` (of `from.seqs` only, when given) the kind `to.kind`, and with
   * `to.dropKey` no key. Both are declared kinds that keep and hold alike (see defineBinding).
   */
  rekind(id: string, from: { kind: string; seqs?: number[] }, to: { kind: string; dropKey?: boolean }): Promise<void>;
  /** Makes `childId` a subsession of `parentId`, creating either; again changes nothing; a second parent or a cycle is a StoreConflictError. */
  attach(parentId: string, childId: string): Promise<void>;
  /** Deletes the session and its subsessions, for good (their ids are not used again). */
  delete(id: string): Promise<void>;
}
