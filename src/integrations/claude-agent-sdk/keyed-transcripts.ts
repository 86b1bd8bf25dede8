// Transcripts a framework addresses by a key of its own (the Claude Agent SDK's
// { projectKey, sessionId, subpath }): each key one session of the store, whose
// id is a digest of the key and the tenant (any key fits the id column, and two
// tenants' keys never meet), whose header keeps the key, and whose log holds the
// framework's entries, as they were given, as events of its kind. A key with a
// subpath is a subsession of its main key's session, so deleting the main
// transcript deletes its subpaths with it, atomically.
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../message.types.js';
import { StoreConflictError, StoreNotFoundError } from '../../store.errors.js';
import type { StoreDatabase } from '../../engine/database.js';
import { entryMessageId } from '../../values/adapter-events.js';
import { insertRuns, textLength } from '../../engine/insert-runs.js';
import { decodedRow, jsonTextValue } from '../../values/json-rows.js';
import { lockThread, reserveSeqs } from '../../engine/tables/message-rows.js';
import { isDeleted, setHeader } from '../../engine/tables/session-rows.js';
import type { StoreTx } from '../../engine/dialect.js';
import { attachChild, childrenOf, deleteSubtree } from '../../engine/tables/subsession-graph.js';

export interface TranscriptKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

/** An entry: a JSON object with a string `type`; `uuid`, when a string, is its idempotency key. */
export type Entry = Record<string, unknown> & { type: string };

/**
 * The appends in flight per transcript id, by database door (each transaction an app's store joins
 * has its own): the end of the last one called, which the next one waits for.
 */
const IN_FLIGHT = new WeakMap<object, Map<string, Promise<unknown>>>();

export class KeyedTranscripts {
  readonly #entry: string;

  constructor(
    private readonly db: StoreDatabase,
    /** The framework's name, the prefix of its ids and of its entries' kind (`claude-agent-sdk.entry`). */
    private readonly kind: string,
    /** Set: only this tenant's transcripts exist, and new ones are created in it. */
    private readonly tenantId?: string,
  ) {
    this.#entry = `${kind}.entry`;
  }

  /**
   * Appends `entries` in order, creating the transcript (and its main one, for a subpath). An
   * entry whose uuid the transcript holds, or that an earlier entry of the batch has, is skipped:
   * a retried batch is stored once. Nothing for an empty batch.
   */
  async append(key: TranscriptKey, entries: Entry[]): Promise<void> {
    const rows = entries.map((entry, i) => ({ uuid: typeof entry.uuid === 'string' ? entry.uuid : null, ...jsonTextValue(entry, `entries[${i}]`) }));
    if (rows.length === 0) return;
    await this.#inCallOrder(this.#idOf(key), () => this.#write(key, rows));
  }

  /**
   * Runs `work` once every append called before it on the same transcript, through the same
   * database door, has ended: appends that overlap land in the order they were called (the
   * SDK's contract), not in the order their transactions happened to commit.
   */
  async #inCallOrder(id: string, work: () => Promise<void>): Promise<void> {
    const door = this.db.callOrderKey();
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

  async #write(key: TranscriptKey, rows: { uuid: string | null; content: string; valueTypes: string | null }[]): Promise<void> {
    await this.db.write(async (tx) => {
      const id = await this.#own(tx, key);
      const uuids = [...new Set(rows.flatMap((row) => (row.uuid === null ? [] : [entryMessageId(row.uuid)])))];
      const held = new Set(
        uuids.length === 0
          ? []
          : (
              await tx.prisma.agentMessage.findMany({ where: { threadId: id, eventType: this.#entry, messageId: { in: uuids } }, select: { messageId: true } })
            ).map((row) => row.messageId),
      );
      const fresh = rows.filter((row) => {
        if (row.uuid === null) return true;
        const messageId = entryMessageId(row.uuid);
        if (held.has(messageId)) return false;
        held.add(messageId);
        return true;
      });
      if (fresh.length === 0) return;
      const last = await reserveSeqs(tx, id, fresh.length);
      const createdAt = new Date();
      const data = fresh.map((row, i) => ({
        threadId: id,
        seq: last - fresh.length + 1 + i,
        eventType: this.#entry,
        messageId: row.uuid === null ? null : entryMessageId(row.uuid),
        content: row.content,
        valueTypes: row.valueTypes,
        createdAt,
      }));
      for (const run of insertRuns(data, (row) => textLength([row.eventType, row.messageId, row.content, row.valueTypes]))) {
        await tx.prisma.agentMessage.createMany({ data: run });
      }
    }, rows.length);
  }

  /** The transcript's entries in append order; null when it holds none (never written, or deleted). */
  load(key: TranscriptKey): Promise<Entry[] | null> {
    return this.db.read(async (tx) => {
      const id = this.#idOf(key);
      if (!(await this.#holds(tx, id, key))) return null;
      const rows = await tx.prisma.agentMessage.findMany({
        where: { threadId: id, eventType: this.#entry },
        orderBy: { seq: 'asc' },
        select: { content: true, valueTypes: true },
      });
      return rows.length === 0 ? null : rows.map((row) => decodedRow(row) as Entry);
    });
  }

  /** The project's main transcripts that hold entries, with when each was last written (epoch ms). */
  list(projectKey: string): Promise<{ sessionId: string; mtime: number }[]> {
    return this.db.read(async (tx) => {
      const threads = await tx.prisma.agentThread.findMany({
        where: {
          tenantId: this.tenantId ?? null,
          title: this.#projectTitle(projectKey),
          id: { startsWith: `${this.kind}:` },
          parentEdge: { is: null },
          lastSeq: { gt: 0 },
        },
        select: { metadata: true, updatedAt: true },
      });
      return threads.flatMap((thread) => {
        const key = keyIn(thread.metadata);
        return key && key.projectKey === projectKey && key.subpath === undefined
          ? [{ sessionId: key.sessionId, mtime: Math.floor(thread.updatedAt.getTime()) }]
          : [];
      });
    });
  }

  /** The subpaths under a main transcript. */
  subkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return this.db.read(async (tx) => {
      const id = this.#idOf(key);
      if (!(await this.#holds(tx, id, key))) return [];
      const children = await childrenOf(tx, id);
      const threads = await tx.prisma.agentThread.findMany({ where: { id: { in: children }, tenantId: this.tenantId ?? null }, select: { metadata: true } });
      return threads.flatMap((thread) => {
        const child = keyIn(thread.metadata);
        return child?.subpath !== undefined && child.projectKey === key.projectKey && child.sessionId === key.sessionId ? [child.subpath] : [];
      });
    });
  }

  /** Deletes the transcript (a main one with its subpaths), atomically; nothing when there is none. */
  async delete(key: TranscriptKey): Promise<void> {
    await this.db.write(async (tx) => {
      const id = this.#idOf(key);
      if ((await lockThread(tx, id, new Date(), this.tenantId)) && (await this.#holds(tx, id, key))) await deleteSubtree(tx, id, new Date());
    });
  }

  /** Locks the key's session, creating it (and, for a subpath, its main session as its parent). */
  async #own(tx: StoreTx, key: TranscriptKey): Promise<string> {
    const main = { projectKey: key.projectKey, sessionId: key.sessionId };
    const id = this.#idOf(key);
    await this.#ensure(tx, this.#idOf(main), main);
    if (key.subpath !== undefined) {
      await this.#ensure(tx, id, key);
      await attachChild(tx, this.#idOf(main), id);
    }
    return id;
  }

  async #ensure(tx: StoreTx, id: string, key: TranscriptKey): Promise<void> {
    // A deleted transcript stays deleted: its key is not written again.
    if (await isDeleted(tx, id)) throw new StoreNotFoundError(`the ${this.kind} transcript ${JSON.stringify(key)} was deleted`);
    if (await tx.dialect.ensureThread(tx.prisma, id, new Date())) {
      await setHeader(tx, id, { tenantId: this.tenantId ?? null, title: this.#projectTitle(key.projectKey), metadata: { ...key } as JsonObject });
    } else if (!(await this.#holds(tx, id, key))) {
      // Only the adapter writes its ids (see sessionIdOf); a session under one that is not its own is refused, never joined.
      throw new StoreConflictError(`the ${this.kind} transcript's session id is held by a session this store did not make`);
    }
    await reserveSeqs(tx, id, 0);
  }

  /** Whether the session `id` is the key's transcript of this store: its tenant's, keeping that key. */
  async #holds(tx: StoreTx, id: string, key: TranscriptKey): Promise<boolean> {
    const thread = await tx.prisma.agentThread.findFirst({ where: { id, tenantId: this.tenantId ?? null }, select: { metadata: true } });
    const held = thread && keyIn(thread.metadata);
    return !!held && held.projectKey === key.projectKey && held.sessionId === key.sessionId && held.subpath === key.subpath;
  }

  /** A project's title: a digest, so any key fits the column and compares exactly on every database. */
  #projectTitle(projectKey: string): string {
    return `${this.kind}.project:${createHash('sha256').update(projectKey).digest('hex')}`;
  }

  /** The id of the key's session: the kind, then a digest of the tenant and the key. */
  #idOf(key: TranscriptKey): string {
    const digest = createHash('sha256')
      .update(JSON.stringify([this.tenantId ?? null, key.projectKey, key.sessionId, key.subpath ?? null]))
      .digest('hex');
    return `${this.kind}:${digest}`;
  }
}

/** The key a session's header keeps; undefined when it keeps none. */
function keyIn(metadata: string | null): TranscriptKey | undefined {
  const key = metadata === null ? undefined : (JSON.parse(metadata) as Partial<TranscriptKey> | null);
  if (typeof key?.projectKey !== 'string' || typeof key.sessionId !== 'string' || (key.subpath !== undefined && typeof key.subpath !== 'string'))
    return undefined;
  return { projectKey: key.projectKey, sessionId: key.sessionId, ...(key.subpath !== undefined && { subpath: key.subpath }) };
}
