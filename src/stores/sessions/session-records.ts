// SessionStore's data operations: one per store operation; the fast path or
// the full transactional path is chosen here.
import type { JsonObject, JsonValue, Message } from '../../message.types.js';
import type { JsonlLogEntry, JsonlSession } from '../../jsonl.types.js';
import type { SessionEntry, SessionMeta, SessionPage, SessionUpdate } from '../../session.types.js';
import { StoreConflictError, StoreNotFoundError } from '../../store.errors.js';
import type { StoreDatabase } from '../../engine/database.js';
import * as messages from '../../engine/tables/message-rows.js';
import * as sessions from '../../engine/tables/session-rows.js';
import { pageOf, type SessionListQuery } from '../../engine/tables/session-list.js';
import type { StoreTx } from '../../engine/dialect.js';
import { attachChild } from '../../engine/tables/subsession-graph.js';
import { notFound } from '../../engine/tables/tenancy.js';
import { forkSession } from './session-forks.js';
import { readSnapshot, type MessageOrEventEntry, type SessionSnapshot, type StoredBoundary } from './session-snapshot.js';
import { assertIdFree, assertNotDeletedSince, unavailable } from './session-ids.js';
import type { CheckedFork } from '../../engine/lifecycle-options.js';

export interface NewSessionRow {
  id: string;
  parentId: string | null;
  tenantId: string | null;
  title: string | null;
  metadata: JsonObject | null;
}

export type EntryToAppend = { kind: 'message'; message: Message } | { kind: 'event'; type: string; data: JsonValue };

/** A log entry as read: a message or event as the JSONL log writes it, or a boundary as stored. */
export type LogRow = MessageOrEventEntry | StoredBoundary;

export class SessionRecords {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's sessions exist (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  create(session: NewSessionRow): Promise<string> {
    return this.db.write(async (tx) => {
      await assertIdFree(tx, session.id, session.tenantId, this.tenantId !== undefined);
      if (session.parentId !== null && !(await messages.lockThread(tx, session.parentId, new Date(), this.tenantId))) {
        throw new StoreNotFoundError(`parent session ${session.parentId} does not exist`);
      }
      await sessions.insertSession(tx, session, new Date());
      await assertNotDeletedSince(tx, session.id, this.tenantId !== undefined);
      if (session.parentId !== null) await attachChild(tx, session.parentId, session.id);
      return session.id;
    });
  }

  /** See SessionStore.fork. */
  fork(sourceId: string, options: CheckedFork & { id: string }): Promise<SessionMeta> {
    return forkSession(this.db, sourceId, options, this.tenantId);
  }

  meta(id: string): Promise<SessionMeta | null> {
    return this.db.readOne((tx) => sessions.metaOf(tx, id, this.tenantId));
  }

  async update(id: string, changes: SessionUpdate): Promise<SessionMeta> {
    const fast = await this.db.fastPaths();
    if (fast?.updateHeader) {
      const meta = await fast.updateHeader(id, changes, new Date(), this.tenantId);
      if (!meta) throw notFound(id);
      return meta;
    }
    return this.db.write(async (tx) => {
      if (!(await messages.lockThread(tx, id, new Date(), this.tenantId))) throw notFound(id);
      await sessions.updateHeader(tx, id, changes);
      return (await sessions.metaOf(tx, id))!;
    });
  }

  append(id: string, entry: EntryToAppend, now: Date): Promise<SessionEntry> {
    return this.db.write(async (tx) => {
      if (!(await messages.lockThread(tx, id, now, this.tenantId))) throw notFound(id);
      // Exactly once by id, as MessageStore.append: under the lock, nothing can come between.
      if (entry.kind === 'message' && entry.message.id !== undefined) {
        const [held] = await messages.messagesWithIds(tx, id, [entry.message.id]);
        if (held && !messages.sameMessage(held, entry.message)) throw messages.otherContent(id, held);
        if (held) return held;
      }
      const seq = await messages.reserveSeqs(tx, id, 1);
      if (entry.kind === 'message') return (await messages.insertMessages(tx, id, seq, [entry.message]))[0];
      const event = { seq, type: entry.type, data: entry.data, createdAt: now };
      await sessions.insertEvents(tx, id, [event]);
      return event;
    });
  }

  entries(id: string): Promise<SessionEntry[]> {
    return this.db.read(async (tx) => {
      if (!(await sessions.metaOf(tx, id, this.tenantId))) throw notFound(id);
      return sessions.entriesOf(tx, id);
    });
  }

  /** The first `count` entries of the log after `afterSeq`, boundaries among them, from a replica that has this store's writes, if there is one. */
  logAfter(id: string, afterSeq: number, count: number): Promise<LogRow[]> {
    return this.db.onReplica((db) =>
      db.read(async (tx) => {
        if (!(await messages.threadExists(tx, id, this.tenantId))) throw notFound(id);
        // The first `count` of the two, merged, are the first `count` of the log.
        const rows: LogRow[] = [...(await sessions.logRowsAfter(tx, id, afterSeq, count)), ...(await messages.boundariesOf(tx, id, afterSeq, count))];
        return rows.sort((a, b) => a.seq - b.seq).slice(0, count);
      }),
    );
  }

  /** A page of sessions, from a replica that has this store's writes, if there is one. */
  async list(query: SessionListQuery): Promise<SessionPage> {
    const rows = await this.db.onReplica(async (db) => {
      const fast = await db.fastPaths();
      return fast ? fast.listSessions(query) : db.readOne((tx) => sessions.listSessions(tx, query));
    });
    return pageOf(rows, query.limit);
  }

  /** A session whole, for its export, from a replica that has this store's writes, if there is one. */
  snapshot(id: string): Promise<SessionSnapshot> {
    return readSnapshot(this.db, id, this.tenantId);
  }

  /**
   * Imports a parsed JSONL session into `id`, a new or empty session,
   * atomically, with its subsessions unless `omitSubsessions`.
   */
  async import(id: string, parsed: JsonlSession, omitSubsessions: boolean): Promise<void> {
    await this.db.write(async (tx) => {
      const created = this.tenantId === undefined ? await tx.dialect.ensureThread(tx.prisma, id, new Date()) : await this.#claim(tx, id);
      // A session that never handed out a seq takes the file's. One emptied after it did numbers the file's entries
      // after those, one each: seqs are never reused, and the file's gaps cannot add up, import after import, to the column's end.
      const handedOut = await messages.reserveSeqs(tx, id, 0);
      const log = handedOut === 0 ? parsed.log : renumbered(parsed.log, handedOut);
      await messages.reserveSeqs(tx, id, (log.at(-1)?.seq ?? handedOut) - handedOut);
      // Checked under the lock: a session created or written meanwhile is seen.
      if ((await sessions.entriesOf(tx, id)).length > 0 || (await messages.latestBoundaryCounts(tx, id))) {
        throw new StoreConflictError(`session ${id} is not empty: import into a new or empty session`);
      }
      // The file's header, over an empty session's too: a tree restored parent first created its children empty.
      // An existing session keeps its tenant (and its tree with it).
      const { title, metadata, createdAt, forkedFrom } = parsed.header;
      const origin = { forkedFrom: forkedFrom?.sessionId ?? null, forkSeq: forkedFrom?.seq ?? null };
      await sessions.setHeader(tx, id, { ...(created && { tenantId: this.tenantId ?? parsed.header.tenantId }), title, metadata, createdAt, ...origin });
      await writeLog(tx, id, log);
      for (const child of omitSubsessions ? [] : parsed.subsessions) {
        if (this.tenantId !== undefined) await this.#claim(tx, child);
        await attachChild(tx, id, child).catch((error: unknown) => {
          if (!(error instanceof StoreConflictError)) throw error;
          throw new StoreConflictError(`subsession ${child}: ${error.message}. To import the session without its subsessions, pass { subsessions: 'omit' }`, {
            cause: error,
          });
        });
      }
    }, parsed.log.length + parsed.subsessions.length);
  }

  /**
   * Scoped: makes `id` a session of the tenant's to import into, before any
   * statement touches it: a free id is created in the tenant (true), the
   * tenant's own is taken as it is (false), and any other id is unavailable.
   */
  async #claim(tx: StoreTx, id: string): Promise<boolean> {
    if (await sessions.isDeleted(tx, id)) throw unavailable(id);
    const created = await tx.dialect.ensureThread(tx.prisma, id, new Date());
    if (created) await sessions.setHeader(tx, id, { tenantId: this.tenantId });
    else if (!(await messages.threadExists(tx, id, this.tenantId))) throw unavailable(id);
    return created;
  }
}

/** The log numbered from `after` + 1 in its order, each boundary's cut moved with its message. */
function renumbered(log: JsonlLogEntry[], after: number): JsonlLogEntry[] {
  const seqs = new Map(log.map((entry, i) => [entry.seq, after + i + 1]));
  const seqOf = (seq: number) => seqs.get(seq)!;
  return log.map((entry) =>
    entry.type === 'compaction' || entry.type === 'repair'
      ? { ...entry, seq: seqOf(entry.seq), cutSeq: entry.cutSeq === 0 ? 0 : seqOf(entry.cutSeq) }
      : { ...entry, seq: seqOf(entry.seq) },
  );
}

/** The imported log in three statements plus one per boundary, whatever its length. */
async function writeLog(tx: StoreTx, id: string, log: JsonlLogEntry[]): Promise<void> {
  await messages.insertStoredMessages(
    tx,
    id,
    log.flatMap((entry) => (entry.type === 'message' ? [{ ...entry.message, seq: entry.seq }] : [])),
  );
  await sessions.insertEvents(
    tx,
    id,
    log.flatMap((entry) =>
      entry.type === 'event'
        ? [{ seq: entry.seq, type: entry.event.type, data: entry.event.data, valueTypes: entry.valueTypes, createdAt: entry.createdAt, key: entry.key }]
        : [],
    ),
  );
  for (const entry of log) {
    if (entry.type !== 'compaction' && entry.type !== 'repair') continue;
    const retainedCount = entry.type === 'compaction' ? entry.retainedMessageCount : null;
    await messages.insertBoundary(tx, id, {
      seq: entry.seq,
      kind: entry.type,
      cutSeq: entry.cutSeq,
      messages: entry.messages,
      sourceCount: entry.sourceMessageCount,
      retainedCount,
      createdAt: entry.createdAt,
    });
    if (entry.type === 'repair') await messages.insertRepair(tx, id, entry.seq, entry.repairMessage);
  }
}
