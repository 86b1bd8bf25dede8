// SessionStore over the Prisma schema.
import { randomUUID } from 'node:crypto';
import type { StoreDatabase } from './data/database.js';
import * as messages from './data/message.repository.js';
import * as sessions from './data/session.repository.js';
import type { StoreTx } from './data/store-client.js';
import { attachChild, childrenOf } from './data/subsession-graph.js';
import { notFound } from './data/tenancy.js';
import { headerLine, logLine, parseJsonl, subsessionLine, type JsonlLogEntry } from './session-jsonl.js';
import type { JsonValue } from './message.types.js';
import { isEvent, type JsonlImport, type NewSession, type SessionEntry, type SessionEntryInput, type SessionListOptions, type SessionMeta, type SessionPage, type SessionUpdate } from './session.types.js';
import type { SessionStore } from './session-store.js';
import { StoreConflictError, StoreNotFoundError, StoreValidationError } from './store.errors.js';
import { assertJson, idOf, jsonObjectOf, messageOf, textOf as titleOf } from './validation.js';

const NEW_SESSION_KEYS = new Set(['id', 'tenantId', 'title', 'parentId', 'metadata']);
const LIST_KEYS = new Set(['tenantId', 'parentId', 'createdAfter', 'createdBefore', 'limit', 'cursor']);
const EVENT_KEYS = new Set(['type', 'data']);
const UPDATE_KEYS = new Set(['title', 'metadata']);
/** The largest page of sessions. */
export const MAX_SESSION_PAGE = 500;

export class PrismaSessionStore implements SessionStore {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {}

  async create(meta: NewSession = {}): Promise<string> {
    const session = newSessionOf(meta);
    if (this.tenantId !== undefined) session.tenantId = this.#sameTenant(session.tenantId ?? undefined, 'tenantId');
    return this.db.write(async (tx) => {
      if (await sessions.isDeleted(tx, session.id)) {
        throw this.#unavailable(session.id, `session ${session.id} was deleted; ids of deleted sessions are not reused`);
      }
      const existing = await sessions.metaOf(tx, session.id);
      if (existing?.tenantId === session.tenantId) throw new StoreConflictError(`session ${session.id} already exists`);
      if (existing) throw this.#unavailable(session.id, `session ${session.id} already exists`);
      if (session.parentId !== null && !(await messages.lockThread(tx, session.parentId, new Date(), this.tenantId))) {
        throw new StoreNotFoundError(`parent session ${session.parentId} does not exist`);
      }
      await sessions.insertSession(tx, session, new Date());
      if (session.parentId !== null) await attachChild(tx, this.db.dialect, session.parentId, session.id);
      return session.id;
    });
  }

  async get(sessionId: string): Promise<SessionMeta | null> {
    const id = idOf(sessionId, 'sessionId');
    return this.db.query((client) => sessions.metaOf(client, id, this.tenantId));
  }

  async update(sessionId: string, changes: SessionUpdate): Promise<SessionMeta> {
    const id = idOf(sessionId, 'sessionId');
    const valid = updateOf(changes);
    return this.db.write(async (tx) => {
      if (!(await messages.lockThread(tx, id, new Date(), this.tenantId))) throw notFound(id);
      await sessions.updateHeader(tx, id, valid);
      return (await sessions.metaOf(tx, id))!;
    });
  }

  async append(sessionId: string, entry: SessionEntryInput): Promise<SessionEntry> {
    const id = idOf(sessionId, 'sessionId');
    const now = new Date();
    const valid = entryOf(entry, now);
    return this.db.write(async (tx) => {
      if (!(await messages.lockThread(tx, id, now, this.tenantId))) throw notFound(id);
      const seq = await messages.reserveSeqs(tx, this.db.dialect, id, 1);
      if (valid.kind === 'message') return (await messages.insertMessages(tx, id, seq, [valid.message]))[0];
      const event = { seq, type: valid.type, data: valid.data, createdAt: now };
      await sessions.insertEvents(tx, id, [event]);
      return event;
    });
  }

  async load(sessionId: string): Promise<SessionEntry[]> {
    const id = idOf(sessionId, 'sessionId');
    return this.db.read(async (tx) => {
      if (!(await sessions.metaOf(tx, id, this.tenantId))) throw notFound(id);
      return sessions.entriesOf(tx, id);
    });
  }

  async list(options: SessionListOptions = {}): Promise<SessionPage> {
    const valid = listOptionsOf(options);
    if (this.tenantId !== undefined) valid.tenantId = this.#sameTenant(valid.tenantId, 'options.tenantId');
    return this.db.query((client) => sessions.listSessions(client, valid));
  }

  async *exportJsonl(sessionId: string): AsyncIterable<string> {
    const id = idOf(sessionId, 'sessionId');
    const snapshot = await this.db.read(async (tx) => {
      const meta = await sessions.metaOf(tx, id, this.tenantId);
      if (!meta) throw notFound(id);
      return { meta, entries: await sessions.entriesOf(tx, id), boundaries: await messages.boundariesOf(tx, id), children: await childrenOf(tx, id) };
    });
    const { meta } = snapshot;
    yield headerLine({ id: meta.id, tenantId: meta.tenantId, title: meta.title, metadata: meta.metadata, createdAt: meta.createdAt });
    const log: JsonlLogEntry[] = [
      ...snapshot.entries.map((entry): JsonlLogEntry => {
        if (isEvent(entry)) return { type: 'event', seq: entry.seq, event: { type: entry.type, data: entry.data }, createdAt: entry.createdAt };
        const { seq, ...message } = entry;
        return { type: 'message', seq, message };
      }),
      ...snapshot.boundaries.map(({ seq, kind, cutSeq, messages: replacement, sourceCount, retainedCount, createdAt, repairMessage }): JsonlLogEntry =>
        kind === 'repair'
          ? { type: 'repair', seq, cutSeq, messages: replacement, sourceMessageCount: sourceCount, repairMessage: repairMessage!, createdAt }
          : { type: 'compaction', seq, cutSeq, messages: replacement, sourceMessageCount: sourceCount, retainedMessageCount: retainedCount ?? 0, createdAt },
      ),
    ].sort((a, b) => a.seq - b.seq);
    for (const entry of log) yield logLine(entry);
    for (const child of snapshot.children) yield subsessionLine(child);
  }

  async importJsonl(input: string | AsyncIterable<string | Uint8Array>, options: { sessionId?: string } = {}): Promise<JsonlImport> {
    const parsed = parseJsonl(await textOf(input));
    const id = options.sessionId === undefined ? parsed.header.id : idOf(options.sessionId, 'options.sessionId');
    const span = parsed.log.at(-1)?.seq ?? 0;
    await this.db.write(async (tx) => {
      const created = this.tenantId === undefined ? await this.db.dialect.ensureThread(tx, id, new Date()) : await this.#claim(tx, id);
      // Seqs shift past any the session handed out before it was emptied; they are never reused.
      const offset = (await messages.reserveSeqs(tx, this.db.dialect, id, span)) - span;
      // Checked under the lock: a session created or written meanwhile is seen.
      if ((await sessions.entriesOf(tx, id)).length > 0 || (await messages.latestBoundaryCounts(tx, id))) {
        throw new StoreConflictError(`session ${id} is not empty: import into a new or empty session`);
      }
      if (created) {
        const { title, metadata, createdAt } = parsed.header;
        const tenantId = this.tenantId ?? parsed.header.tenantId;
        await tx.agentThread.update({ where: { id }, data: { tenantId, title, metadata: (metadata ?? undefined) as never, createdAt } });
      }
      await writeLog(tx, id, parsed.log, offset);
      for (const child of parsed.subsessions) {
        if (this.tenantId !== undefined) await this.#claim(tx, child);
        await attachChild(tx, this.db.dialect, id, child);
      }
    });
    return { sessionId: id, entries: parsed.log.length, warnings: parsed.warnings };
  }

  /** Scoped: a tenantId in the input must be the store's own. */
  #sameTenant(given: string | undefined, name: string): string {
    if (given !== undefined && given !== this.tenantId) throw new StoreValidationError(`${name} must be this store's tenant, ${this.tenantId}, or absent`);
    return this.tenantId!;
  }

  /**
   * Scoped: makes `id` a session of the tenant's to import into, before any
   * statement touches it: a free id is created in the tenant (true), the
   * tenant's own is taken as it is (false), and any other id is unavailable.
   */
  async #claim(tx: StoreTx, id: string): Promise<boolean> {
    if (await sessions.isDeleted(tx, id)) throw unavailable(id);
    const created = await this.db.dialect.ensureThread(tx, id, new Date());
    if (created) await tx.agentThread.update({ where: { id }, data: { tenantId: this.tenantId } });
    else if (!(await messages.threadExists(tx, id, this.tenantId))) throw unavailable(id);
    return created;
  }

  /** Ids are unique across tenants; scoped, a taken id says only that: not whose it is, nor that it was deleted. */
  #unavailable(id: string, unscopedMessage: string): StoreConflictError {
    return this.tenantId === undefined ? new StoreConflictError(unscopedMessage) : unavailable(id);
  }
}

const unavailable = (id: string) => new StoreConflictError(`session id ${id} is not available`);

/** The imported log in three statements plus one per boundary, whatever its length. */
async function writeLog(tx: Parameters<typeof messages.insertMessages>[0], id: string, log: JsonlLogEntry[], offset: number): Promise<void> {
  const shifted = log.map((entry) => ({ ...entry, seq: entry.seq + offset }));
  await messages.insertStoredMessages(tx, id, shifted.flatMap((entry) => (entry.type === 'message' ? [{ ...entry.message, seq: entry.seq }] : [])));
  await sessions.insertEvents(
    tx,
    id,
    shifted.flatMap((entry) => (entry.type === 'event' ? [{ seq: entry.seq, type: entry.event.type, data: entry.event.data, createdAt: entry.createdAt }] : [])),
  );
  for (const entry of shifted) {
    if (entry.type !== 'compaction' && entry.type !== 'repair') continue;
    const cutSeq = entry.cutSeq === 0 ? 0 : entry.cutSeq + offset;
    const retainedCount = entry.type === 'compaction' ? entry.retainedMessageCount : null;
    await messages.insertBoundary(tx, id, { seq: entry.seq, kind: entry.type, cutSeq, messages: entry.messages, sourceCount: entry.sourceMessageCount, retainedCount, createdAt: entry.createdAt });
    if (entry.type === 'repair') await messages.insertRepair(tx, id, entry.seq, entry.repairMessage);
  }
}

async function textOf(input: string | AsyncIterable<string | Uint8Array>): Promise<string> {
  if (typeof input === 'string') return input;
  if (input === null || typeof input !== 'object' || !(Symbol.asyncIterator in input)) {
    throw new StoreValidationError('JSONL input must be a string or an async iterable of chunks');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  const bytes = Buffer.concat(chunks);
  // A crash cuts a file at a byte, maybe inside a character: an unfinished last
  // line may end with an incomplete one, and reaches the parser as the cut line it is.
  const end = bytes.lastIndexOf(0x0a) + 1;
  return utf8(bytes.subarray(0, end), false) + utf8(bytes.subarray(end), true);
}

function utf8(bytes: Uint8Array, mayEndInsideACharacter: boolean): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: mayEndInsideACharacter });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new StoreValidationError('JSONL input is not valid UTF-8', { cause: error });
    }
    throw error;
  }
}

function newSessionOf(meta: NewSession) {
  if (typeof meta !== 'object' || meta === null) throw new StoreValidationError('session meta must be an object');
  for (const key of Object.keys(meta)) {
    if (!NEW_SESSION_KEYS.has(key)) throw new StoreValidationError(`session meta has an unknown property "${key}"`);
  }
  const id = meta.id === undefined ? randomUUID() : idOf(meta.id, 'id');
  const parentId = meta.parentId === undefined ? null : idOf(meta.parentId, 'parentId');
  if (parentId === id) throw new StoreConflictError(`session ${id} cannot be its own subsession`);
  return {
    id,
    parentId,
    tenantId: meta.tenantId === undefined ? null : idOf(meta.tenantId, 'tenantId'),
    title: meta.title === undefined ? null : titleOf(meta.title, 'title'),
    metadata: meta.metadata === undefined ? null : jsonObjectOf(meta.metadata, 'metadata'),
  };
}

type ValidEntry = { kind: 'message'; message: ReturnType<typeof messageOf> } | { kind: 'event'; type: string; data: JsonValue };

function entryOf(entry: SessionEntryInput, now: Date): ValidEntry {
  if (typeof entry !== 'object' || entry === null) throw new StoreValidationError('entry must be a message or an event { type, data }');
  if ('role' in entry) return { kind: 'message', message: messageOf(entry, 'entry', now) };
  for (const key of Object.keys(entry)) {
    if (!EVENT_KEYS.has(key)) throw new StoreValidationError(`event has an unknown property "${key}"`);
  }
  const type = idOf((entry as { type?: unknown }).type, 'event.type');
  const data = (entry as { data?: JsonValue }).data ?? null;
  assertJson(data, 'event.data');
  return { kind: 'event', type, data };
}

function updateOf(changes: SessionUpdate): SessionUpdate {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) throw new StoreValidationError('changes must be an object { title?, metadata? }');
  for (const key of Object.keys(changes)) {
    if (!UPDATE_KEYS.has(key)) throw new StoreValidationError(`changes have an unknown property "${key}"`);
  }
  const { title, metadata } = changes;
  return {
    title: title === undefined || title === null ? title : titleOf(title, 'title'),
    metadata: metadata === undefined || metadata === null ? metadata : jsonObjectOf(metadata, 'metadata'),
  };
}

function listOptionsOf(options: SessionListOptions) {
  if (typeof options !== 'object' || options === null) throw new StoreValidationError('list options must be an object');
  for (const key of Object.keys(options)) {
    if (!LIST_KEYS.has(key)) throw new StoreValidationError(`list options have an unknown property "${key}"`);
  }
  const limit = options.limit ?? 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SESSION_PAGE) throw new StoreValidationError(`limit must be an integer from 1 to ${MAX_SESSION_PAGE}`);
  for (const key of ['createdAfter', 'createdBefore'] as const) {
    const date = options[key];
    if (date !== undefined && (!(date instanceof Date) || Number.isNaN(date.getTime()))) throw new StoreValidationError(`${key} must be a valid Date`);
  }
  if (options.cursor !== undefined && typeof options.cursor !== 'string') throw new StoreValidationError('cursor must be a string');
  return {
    ...options,
    limit,
    tenantId: options.tenantId === undefined ? undefined : idOf(options.tenantId, 'tenantId'),
    parentId: options.parentId === undefined ? undefined : idOf(options.parentId, 'parentId'),
  };
}
