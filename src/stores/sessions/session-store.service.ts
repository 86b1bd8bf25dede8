// SessionStore: validates its input, then runs one data operation per call.
import { randomUUID } from 'node:crypto';
import { CHAT_MESSAGE_EVENT, CHAT_ORDER_EVENT } from '../chats/index.js';
import type { StoreDatabase } from '../../engine/database.js';
import { SessionRecords, type EntryToAppend, type LogRow } from './session-records.js';
import type { StoredBoundary } from './session-snapshot.js';
import { decodeLogCursor, encodeLogCursor, pageOptionsOf } from '../messages/index.js';
import { decodeListCursor, type SessionListQuery } from '../../engine/tables/session-list.js';
import { headerLine, logLine, parseJsonl, subsessionLine } from './session-jsonl.js';
import type { JsonlLogEntry } from '../../jsonl.types.js';
import type { JsonValue } from '../../message.types.js';
import { forkOptionsOf } from '../../engine/lifecycle-options.js';
import type { ForkOptions } from '../../lifecycle.types.js';
import {
  type JsonlImport,
  type JsonlImportOptions,
  type LogPageOptions,
  type NewSession,
  type SessionEntry,
  type SessionEntryInput,
  type SessionListOptions,
  type SessionLogPage,
  type SessionMeta,
  type SessionPage,
  type SessionUpdate,
} from '../../session.types.js';
import type { SessionStore } from './session-store.js';
import { StoreConflictError, StoreValidationError } from '../../store.errors.js';
import { isWellFormed } from '../../values/stored-values.js';
import { giveWay } from '../../engine/give-way.js';
import { assertJson, dateOf, idOf, MAX_INTEGER, jsonObjectOf, messageOf, textOf as titleOf } from '../../values/validation.js';
import { bindingOfKind, sessionIdOf } from '../../values/bindings.js';

const NEW_SESSION_KEYS = new Set(['id', 'tenantId', 'title', 'parentId', 'metadata']);
const LIST_KEYS = new Set(['tenantId', 'parentId', 'forkedFrom', 'search', 'createdAfter', 'createdBefore', 'limit', 'cursor']);
/** The longest search text: a part of an id (at most 191 characters) or of a title. */
const MAX_SEARCH_LENGTH = 200;
const EVENT_KEYS = new Set(['type', 'data']);
const UPDATE_KEYS = new Set(['title', 'metadata']);
/** The largest page of sessions. */
export const MAX_SESSION_PAGE = 500;

export class PrismaSessionStore implements SessionStore {
  readonly #records: SessionRecords;

  constructor(
    private readonly db: StoreDatabase,
    /** Set: the store sees only this tenant's sessions (see TenantStores). */
    private readonly tenantId?: string,
  ) {
    this.#records = new SessionRecords(db, tenantId);
  }

  withTransaction(tx: object): SessionStore {
    return new PrismaSessionStore(this.db.joining(tx), this.tenantId);
  }

  async create(meta: NewSession = {}): Promise<string> {
    const session = newSessionOf(meta);
    if (this.tenantId !== undefined) session.tenantId = this.#sameTenant(session.tenantId ?? undefined, 'tenantId');
    return this.#records.create(session);
  }

  async get(sessionId: string): Promise<SessionMeta | null> {
    return this.#records.meta(idOf(sessionId, 'sessionId'));
  }

  async update(sessionId: string, changes: SessionUpdate): Promise<SessionMeta> {
    const id = sessionIdOf(sessionId, 'sessionId');
    return this.#records.update(id, updateOf(changes));
  }

  async append(sessionId: string, entry: SessionEntryInput): Promise<SessionEntry> {
    const id = sessionIdOf(sessionId, 'sessionId');
    const now = new Date();
    return this.#records.append(id, entryOf(entry, now), now);
  }

  async load(sessionId: string): Promise<SessionEntry[]> {
    return this.#records.entries(idOf(sessionId, 'sessionId'));
  }

  async getLogPage(sessionId: string, page?: LogPageOptions): Promise<SessionLogPage> {
    const id = idOf(sessionId, 'sessionId');
    const { fromSeq, ...rest } = logPageOptionsOf(page);
    const { limit, cursor } = pageOptionsOf(rest);
    const afterSeq = cursor !== undefined ? decodeLogCursor(cursor, id) : fromSeq !== undefined ? fromSeq - 1 : 0;
    const read = await this.#records.logAfter(id, afterSeq, limit + 1);
    const entries = read.slice(0, limit).map((entry) => (isMessageOrEvent(entry) ? entry : logEntryOf(entry, (cutSeq) => cutSeq)));
    return { entries, nextCursor: read.length > limit ? encodeLogCursor(id, entries[limit - 1].seq) : null };
  }

  async list(options: SessionListOptions = {}): Promise<SessionPage> {
    const query = listQueryOf(options);
    if (this.tenantId !== undefined) query.tenantId = this.#sameTenant(query.tenantId, 'options.tenantId');
    return this.#records.list(query);
  }

  async fork(sourceId: string, options?: ForkOptions): Promise<SessionMeta> {
    const source = idOf(sourceId, 'sourceId');
    const checked = forkOptionsOf(options);
    return this.#records.fork(source, { ...checked, id: checked.id ?? randomUUID() });
  }

  async *exportJsonl(sessionId: string): AsyncIterable<string> {
    const snapshot = await this.#records.snapshot(idOf(sessionId, 'sessionId'));
    const { meta } = snapshot;
    const { id, tenantId, title, metadata, createdAt, forkedFrom } = meta;
    yield headerLine({ id, tenantId, title, metadata, createdAt, ...(forkedFrom && { forkedFrom }) });
    // A pruned thread's cuts name deleted messages. pruneTranscript deletes the highest first, so the
    // last message kept at or before a cut cuts the same history (0 when none is): the file names that one.
    const messageSeqs = snapshot.entries.flatMap((entry) => (entry.type === 'message' ? [entry.seq] : []));
    const kept = new Set(messageSeqs);
    const lineOf = (cutSeq: number) => (cutSeq === 0 || kept.has(cutSeq) ? cutSeq : (messageSeqs.findLast((seq) => seq < cutSeq) ?? 0));
    const log: JsonlLogEntry[] = [...snapshot.entries, ...snapshot.boundaries.map((boundary) => logEntryOf(boundary, lineOf))].sort((a, b) => a.seq - b.seq);
    for (const entry of log) {
      // A large session's lines are many: the rest of the process gets its turns meanwhile.
      await giveWay();
      yield logLine(entry);
    }
    for (const child of snapshot.children) yield subsessionLine(child);
  }

  async importJsonl(input: string | AsyncIterable<string | Uint8Array>, options: JsonlImportOptions = {}): Promise<JsonlImport> {
    const { sessionId, subsessions } = importOptionsOf(options);
    const parsed = await parseJsonl(await textOf(input));
    const id = sessionId ?? sessionIdOf(parsed.header.id, 'the header id');
    await this.#records.import(id, parsed, subsessions === 'omit');
    return { sessionId: id, entries: parsed.log.length, warnings: parsed.warnings };
  }

  /** Scoped: a tenantId in the input must be the store's own. */
  #sameTenant(given: string | undefined, name: string): string {
    if (given !== undefined && given !== this.tenantId) throw new StoreValidationError(`${name} must be this store's tenant, ${this.tenantId}, or absent`);
    return this.tenantId!;
  }
}

function importOptionsOf(options: JsonlImportOptions): JsonlImportOptions {
  if (typeof options !== 'object' || options === null) throw new StoreValidationError('import options must be an object { sessionId?, subsessions? }');
  for (const key of Object.keys(options)) {
    if (key !== 'sessionId' && key !== 'subsessions') throw new StoreValidationError(`import options have an unknown property "${key}"`);
  }
  const { sessionId, subsessions } = options;
  if (subsessions !== undefined && subsessions !== 'attach' && subsessions !== 'omit')
    throw new StoreValidationError("options.subsessions must be 'attach' or 'omit'");
  return { sessionId: sessionId === undefined ? undefined : sessionIdOf(sessionId, 'options.sessionId'), subsessions };
}

async function textOf(input: string | AsyncIterable<string | Uint8Array>): Promise<string> {
  if (typeof input === 'string') return input;
  if (input === null || typeof input !== 'object' || !(Symbol.asyncIterator in input)) {
    throw new StoreValidationError('JSONL input must be a string or an async iterable of chunks');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of input)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
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
  const id = meta.id === undefined ? randomUUID() : sessionIdOf(meta.id, 'id');
  const parentId = meta.parentId === undefined ? null : sessionIdOf(meta.parentId, 'parentId');
  if (parentId === id) throw new StoreConflictError(`session ${id} cannot be its own subsession`);
  return {
    id,
    parentId,
    tenantId: meta.tenantId === undefined ? null : idOf(meta.tenantId, 'tenantId'),
    title: meta.title === undefined ? null : titleOf(meta.title, 'title'),
    metadata: meta.metadata === undefined ? null : jsonObjectOf(meta.metadata, 'metadata'),
  };
}

function entryOf(entry: SessionEntryInput, now: Date): EntryToAppend {
  if (typeof entry !== 'object' || entry === null) throw new StoreValidationError('entry must be a message or an event { type, data }');
  if ('role' in entry) return { kind: 'message', message: messageOf(entry, 'entry', now) };
  for (const key of Object.keys(entry)) {
    if (!EVENT_KEYS.has(key)) throw new StoreValidationError(`event has an unknown property "${key}"`);
  }
  const type = idOf((entry as { type?: unknown }).type, 'event.type');
  // A chat's log is ChatStore's: an event of its types appended by hand would become part of the chat.
  if (type === CHAT_MESSAGE_EVENT || type === CHAT_ORDER_EVENT)
    throw new StoreValidationError(`event type "${type}" is ChatStore's; save chats with ChatStore.saveChat`);
  // A binding's events are its own: one appended by hand would stand in the framework's history or state.
  const binding = bindingOfKind(type);
  if (binding !== undefined) throw new StoreValidationError(`event type "${type}" is the ${binding} binding's: only the binding writes it`);
  const data = (entry as { data?: JsonValue }).data ?? null;
  assertJson(data, 'event.data');
  return { kind: 'event', type, data };
}

function updateOf(changes: SessionUpdate): SessionUpdate {
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes))
    throw new StoreValidationError('changes must be an object { title?, metadata? }');
  for (const key of Object.keys(changes)) {
    if (!UPDATE_KEYS.has(key)) throw new StoreValidationError(`changes have an unknown property "${key}"`);
  }
  const { title, metadata } = changes;
  return {
    title: title === undefined || title === null ? title : titleOf(title, 'title'),
    metadata: metadata === undefined || metadata === null ? metadata : jsonObjectOf(metadata, 'metadata'),
  };
}

function listQueryOf(options: SessionListOptions): SessionListQuery {
  if (typeof options !== 'object' || options === null) throw new StoreValidationError('list options must be an object');
  for (const key of Object.keys(options)) {
    if (!LIST_KEYS.has(key)) throw new StoreValidationError(`list options have an unknown property "${key}"`);
  }
  const limit = options.limit ?? 50;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SESSION_PAGE)
    throw new StoreValidationError(`limit must be an integer from 1 to ${MAX_SESSION_PAGE}`);
  for (const key of ['createdAfter', 'createdBefore'] as const) {
    if (options[key] !== undefined && !(options[key] instanceof Date)) throw new StoreValidationError(`${key} must be a Date`);
  }
  if (options.cursor !== undefined && typeof options.cursor !== 'string') throw new StoreValidationError('cursor must be a string');
  return {
    limit,
    tenantId: options.tenantId === undefined ? undefined : idOf(options.tenantId, 'tenantId'),
    parentId: options.parentId === undefined ? undefined : idOf(options.parentId, 'parentId'),
    forkedFrom: options.forkedFrom === undefined ? undefined : idOf(options.forkedFrom, 'forkedFrom'),
    search: options.search === undefined ? undefined : searchOf(options.search),
    createdAfter: options.createdAfter && dateOf(options.createdAfter, 'createdAfter'),
    createdBefore: options.createdBefore && dateOf(options.createdBefore, 'createdBefore'),
    after: options.cursor === undefined ? undefined : decodeListCursor(options.cursor),
  };
}

function searchOf(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SEARCH_LENGTH) {
    throw new StoreValidationError(`search must be a non-empty string of at most ${MAX_SEARCH_LENGTH} characters`);
  }
  if (value.includes('\u0000') || !isWellFormed(value)) throw new StoreValidationError('search must not contain NUL characters or lone UTF-16 surrogates');
  return value;
}

function logPageOptionsOf(page: LogPageOptions | undefined): LogPageOptions {
  if (page === undefined || typeof page !== 'object' || page === null || page.fromSeq === undefined) return page ?? {};
  const { fromSeq, ...rest } = page;
  if (!Number.isSafeInteger(fromSeq) || fromSeq < 1 || fromSeq > MAX_INTEGER)
    throw new StoreValidationError(`fromSeq must be an integer from 1 to ${MAX_INTEGER}`);
  if (rest.cursor !== undefined) throw new StoreValidationError('give fromSeq or cursor, not both');
  return page;
}

const isMessageOrEvent = (entry: LogRow): entry is Exclude<LogRow, StoredBoundary> => 'type' in entry;

/** A boundary as a log entry, its cut as `cutOf` names it. */
function logEntryOf(
  { seq, kind, cutSeq, messages, sourceCount, retainedCount, createdAt, repairMessage }: StoredBoundary,
  cutOf: (cutSeq: number) => number,
): JsonlLogEntry {
  return kind === 'repair'
    ? { type: 'repair', seq, cutSeq: cutOf(cutSeq), messages, sourceMessageCount: sourceCount, repairMessage: repairMessage!, createdAt }
    : { type: 'compaction', seq, cutSeq: cutOf(cutSeq), messages, sourceMessageCount: sourceCount, retainedMessageCount: retainedCount ?? 0, createdAt };
}
