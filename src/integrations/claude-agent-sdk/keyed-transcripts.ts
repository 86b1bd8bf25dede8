// Transcripts a framework addresses by a key of its own (the Claude Agent SDK's
// { projectKey, sessionId, subpath }): each key one session of the store, whose
// id is a digest of the key and the tenant (any key fits the id column, and two
// tenants' keys never meet), whose header keeps the key, and whose log holds the
// framework's entries, as they were given, as events of its kind. A key with a
// subpath is a subsession of its main key's session, so deleting the main
// transcript deletes its subpaths with it, atomically.
import { createHash } from 'node:crypto';
import {
  StoreConflictError,
  StoreNotFoundError,
  type IntegrationBinding,
  type IntegrationStore,
  type LoggedSession,
  type SessionLog,
} from '../../contract/index.js';

export interface TranscriptKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

/** An entry: a JSON object with a string `type`; `uuid`, when a string, is its idempotency key. */
export type Entry = Record<string, unknown> & { type: string };

/**
 * The appends in flight per transcript id, by transaction key (each transaction an app's store joins
 * has its own): the end of the last one called, which the next one waits for.
 */
const IN_FLIGHT = new WeakMap<object, Map<string, Promise<unknown>>>();

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class KeyedTranscripts {
  readonly #entry: string;

  constructor(
    /** Scoped to a tenant: only its transcripts exist, and new ones are created in it. */
    private readonly store: IntegrationStore,
    /** Its kind's and ids' declaration (PACKAGE_BINDINGS.claudeAgentSdk), whose name prefixes them. */
    private readonly binding: IntegrationBinding,
  ) {
    this.#entry = `${binding.name}.entry`;
  }

  /**
   * Appends `entries` in order, creating the transcript (and its main one, for a subpath). An
   * entry whose uuid the transcript holds, or that an earlier entry of the batch has, is skipped:
   * a retried batch is stored once. Nothing for an empty batch.
   */
  async append(key: TranscriptKey, entries: Entry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.#inCallOrder(this.#idOf(key), () => this.#write(key, entries));
  }

  /**
   * Runs `work` once every append called before it on the same transcript, in the same
   * transaction key, has ended: appends that overlap land in the order they were called (the
   * SDK's contract), not in the order their transactions happened to commit.
   */
  async #inCallOrder(id: string, work: () => Promise<void>): Promise<void> {
    const door = this.store.transactionKey();
    let queues = IN_FLIGHT.get(door);
    if (queues === undefined) IN_FLIGHT.set(door, (queues = new Map()));
    const before = queues.get(id) ?? Promise.resolve();
    const done = before.then(work);
    // The queue only waits for the end: the caller of `done` gets its error.
    const ended = done.catch(() => undefined);
    queues.set(id, ended);
    await ended;
    if (queues.get(id) === ended) queues.delete(id);
    return done;
  }

  async #write(key: TranscriptKey, entries: Entry[]): Promise<void> {
    const keyOf = this.binding.kinds[this.#entry].keyOf!;
    const keyed = entries.map((entry) => ({ entry, key: keyOf(entry) }));
    await this.store.write(
      async ({ sessions }) => {
        const id = await this.#own(sessions, key);
        const keys = [...new Set(keyed.flatMap((row) => (row.key === null ? [] : [row.key])))];
        const held = new Set(keys.length === 0 ? [] : (await sessions.events(id, { kinds: [this.#entry], keys })).map((event) => event.key));
        const fresh = keyed.filter((row) => {
          if (row.key === null) return true;
          if (held.has(row.key)) return false;
          held.add(row.key);
          return true;
        });
        if (fresh.length === 0) return;
        await sessions.append(
          id,
          fresh.map((row) => ({ kind: this.#entry, key: row.key, value: row.entry })),
        );
      },
      { rows: entries.length },
    );
  }

  /** The transcript's entries in append order; null when it holds none (never written, or deleted). */
  load(key: TranscriptKey): Promise<Entry[] | null> {
    return this.store.readSessions(async ({ sessions }) => {
      const id = this.#idOf(key);
      if (!this.#holds(await sessions.session(id), key)) return null;
      const events = await sessions.events(id, { kinds: [this.#entry] });
      return events.length === 0 ? null : events.map((event) => event.value as Entry);
    });
  }

  /** The project's main transcripts that hold entries, with when each was last written (epoch ms). */
  list(projectKey: string): Promise<{ sessionId: string; mtime: number }[]> {
    return this.store.readSessions(async ({ sessions }) => {
      const found = await sessions.sessions({ title: this.#projectTitle(projectKey), idPrefix: `${this.binding.name}:`, roots: true, nonEmpty: true });
      return found.flatMap((session) => {
        const key = keyIn(session.metadata);
        return key && key.projectKey === projectKey && key.subpath === undefined
          ? [{ sessionId: key.sessionId, mtime: Math.floor(session.updatedAt.getTime()) }]
          : [];
      });
    });
  }

  /** The subpaths under a main transcript. */
  subkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return this.store.readSessions(async ({ sessions }) => {
      const id = this.#idOf(key);
      if (!this.#holds(await sessions.session(id), key)) return [];
      return (await sessions.children(id)).flatMap((session) => {
        const child = session.tenantId === (this.store.tenantId ?? null) ? keyIn(session.metadata) : undefined;
        return child?.subpath !== undefined && child.projectKey === key.projectKey && child.sessionId === key.sessionId ? [child.subpath] : [];
      });
    });
  }

  /** Deletes the transcript (a main one with its subpaths), atomically; nothing when there is none. */
  async delete(key: TranscriptKey): Promise<void> {
    await this.store.write(async ({ sessions }) => {
      const id = this.#idOf(key);
      if ((await sessions.lock(id)) && this.#holds(await sessions.session(id), key)) await sessions.delete(id);
    });
  }

  /** Locks the key's session, creating it (and, for a subpath, its main session as its parent). */
  async #own(sessions: SessionLog, key: TranscriptKey): Promise<string> {
    const main = { projectKey: key.projectKey, sessionId: key.sessionId };
    const id = this.#idOf(key);
    await this.#ensure(sessions, this.#idOf(main), main);
    if (key.subpath !== undefined) {
      await this.#ensure(sessions, id, key);
      await sessions.attach(this.#idOf(main), id);
    }
    return id;
  }

  async #ensure(sessions: SessionLog, id: string, key: TranscriptKey): Promise<void> {
    let opened: { created: boolean };
    try {
      opened = await sessions.open(id, { title: this.#projectTitle(key.projectKey), metadata: { ...key } });
    } catch (error) {
      // A deleted transcript stays deleted: its key is not written again.
      if (error instanceof StoreNotFoundError) throw new StoreNotFoundError(`the ${this.binding.name} transcript ${JSON.stringify(key)} was deleted`);
      throw error;
    }
    // Only the adapter writes its ids (see sessionIdOf); a session under one that is not its own is refused, never joined.
    if (!opened.created && !this.#holds(await sessions.session(id), key))
      throw new StoreConflictError(`the ${this.binding.name} transcript's session id is held by a session this store did not make`);
  }

  /** Whether `session` is the key's transcript of this store: its tenant's, keeping that key. */
  #holds(session: LoggedSession | undefined, key: TranscriptKey): boolean {
    const held = session && session.tenantId === (this.store.tenantId ?? null) ? keyIn(session.metadata) : undefined;
    return !!held && held.projectKey === key.projectKey && held.sessionId === key.sessionId && held.subpath === key.subpath;
  }

  /** A project's title: a digest, so any key fits the column and compares exactly on every database. */
  #projectTitle(projectKey: string): string {
    return `${this.binding.name}.project:${sha256(projectKey)}`;
  }

  /** The id of the key's session: the kind, then a digest of the tenant and the key. */
  #idOf(key: TranscriptKey): string {
    return `${this.binding.name}:${sha256(JSON.stringify([this.store.tenantId ?? null, key.projectKey, key.sessionId, key.subpath ?? null]))}`;
  }
}

/** The key a session's header keeps; undefined when it keeps none. */
function keyIn(metadata: Record<string, unknown> | null): TranscriptKey | undefined {
  const key = metadata as Partial<TranscriptKey> | null;
  if (typeof key?.projectKey !== 'string' || typeof key.sessionId !== 'string' || (key.subpath !== undefined && typeof key.subpath !== 'string'))
    return undefined;
  return { projectKey: key.projectKey, sessionId: key.sessionId, ...(key.subpath !== undefined && { subpath: key.subpath }) };
}
