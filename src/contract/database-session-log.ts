// The sessions' log on the store's tables, in one of its transactions: the
// engine's own reads and writes of sessions, events and subsessions, with a
// binding's kinds, keys and values checked as the store checks its own.
import type { StoreTx } from '../engine/dialect.js';
import { insertRuns, textLength } from '../engine/insert-runs.js';
import { assertNotDeleted, lockThread, reserveSeqs } from '../engine/tables/message-rows.js';
import { isDeleted, setHeader } from '../engine/tables/session-rows.js';
import { attachChild, childrenOf, deleteSubtree } from '../engine/tables/subsession-graph.js';
import { notFound } from '../engine/tables/tenancy.js';
import { StoreError, StoreValidationError } from '../store.errors.js';
import { checkHolds, declaredKind, keyFor, type BindingKind } from '../values/bindings.js';
import { decodedRow, encodedValue, jsonTextValue } from '../values/json-rows.js';
import { dataCopyOf, idOf, jsonObjectOf, MAX_ID_LENGTH, MAX_INTEGER, textOf } from '../values/validation.js';
import type { EventQuery, LoggedEvent, LoggedSession, NewEvent, SessionLog, SessionLogReads, SessionQuery } from './session-log.js';

const SESSION = { id: true, tenantId: true, title: true, metadata: true, lastSeq: true, updatedAt: true } as const;
const EVENT = { seq: true, eventType: true, messageId: true, content: true, valueTypes: true } as const;

/** `<binding>.<what>`: a name, a dot, then letters, digits, `_`, `-` and dots. */
const KIND = /^[a-z0-9][a-z0-9_-]*\.[a-z0-9_.-]+$/i;
function kindOf(kind: unknown, name: string): string {
  if (typeof kind !== 'string' || kind.length > MAX_ID_LENGTH || !KIND.test(kind))
    throw new StoreValidationError(`${name} must be a kind of at most ${MAX_ID_LENGTH} characters: the binding's name, a dot, what it is (openai-agents.item)`);
  return kind;
}

/** What a declared kind holds; a kind no binding declared is a StoreValidationError (a JSONL import could not take it back). */
function declaredKindOf(kind: string, name: string): BindingKind {
  const declared = declaredKind(kind);
  if (declared === undefined) throw new StoreValidationError(`${name} ${JSON.stringify(kind)} is no declared binding's kind: declare it with defineBinding`);
  return declared;
}

function seqOf(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_INTEGER)
    throw new StoreValidationError(`${name} must be an integer from 0 to ${MAX_INTEGER}`);
  return value as number;
}

function listOf<T>(value: unknown, name: string, each: (item: unknown, name: string) => T): T[] {
  return readAsData(name, () => {
    if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be an array`);
    // Array.from, not map: a hole is a missing item, not one skipped.
    return Array.from(value, (item: unknown, i) => each(item, `${name}[${i}]`));
  });
}

/** `read()`, whose failures other than the store's own (a getter or a Proxy that throws, a value that changed as it was read) are a StoreValidationError. */
function readAsData<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreValidationError(`${name} cannot be read as data (a getter or a Proxy failed, or a value changed as it was read)`);
  }
}

/** `value` (plain data: kinds, keys, seqs) read once: a getter or a Proxy gives one answer, kept. */
function copyOf<T>(value: T, name: string): T {
  return dataCopyOf(value, name) as T;
}

/**
 * The fields `names` of an object argument, each read once (absent: `{}`); anything but an object, or a
 * field that throws when read, is a StoreValidationError. Values are not copied: the store's checks and
 * encoding read them, and refuse what they cannot keep.
 */
function fieldsOf<T extends object, K extends keyof T>(value: T | undefined, name: string, names: K[]): Partial<Pick<T, K>> {
  if (value === undefined) return {};
  return readAsData(name, () => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreValidationError(`${name} must be an object`);
    return Object.fromEntries(names.map((field) => [field, value[field]])) as Partial<Pick<T, K>>;
  });
}

function headerOf(row: {
  id: string;
  tenantId: string | null;
  title: string | null;
  metadata: string | null;
  lastSeq: number;
  updatedAt: Date;
}): LoggedSession {
  return { ...row, metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>) };
}

/** The log's reads in the store's transaction `tx`, for `tenantId`'s sessions (undefined: any). */
export class DatabaseSessionLogReads implements SessionLogReads {
  /** Sessions this transaction found to be the tenant's (or opened, or locked): its reads need not look again. */
  protected readonly found = new Set<string>();

  constructor(
    protected readonly tx: StoreTx,
    protected readonly tenantId: string | undefined,
  ) {}

  async session(id: string): Promise<LoggedSession | undefined> {
    const row = await this.tx.prisma.agentThread.findFirst({ where: { id: idOf(id, 'id'), tenantId: this.tenantId }, select: SESSION });
    if (row) this.found.add(id);
    return row ? headerOf(row) : undefined;
  }

  async events(id: string, given: EventQuery): Promise<LoggedEvent[]> {
    idOf(id, 'id');
    const query = copyOf(fieldsOf(given, 'query', ['kinds', 'after', 'keys', 'last']), 'query');
    const kinds = listOf(query.kinds, 'kinds', kindOf);
    const after = query.after === undefined ? undefined : seqOf(query.after, 'after');
    const keys = query.keys === undefined ? undefined : listOf(query.keys, 'keys', idOf);
    const last = query.last === undefined ? undefined : seqOf(query.last, 'last');
    if (kinds.length === 0 || keys?.length === 0 || last === 0) return [];
    if (this.tenantId !== undefined && !this.found.has(id) && !(await this.session(id))) return [];
    const rows = await this.tx.prisma.agentMessage.findMany({
      where: { threadId: id, eventType: { in: kinds }, ...(after !== undefined && { seq: { gt: after } }), ...(keys && { messageId: { in: keys } }) },
      orderBy: { seq: last === undefined ? 'asc' : 'desc' },
      ...(last !== undefined && { take: last }),
      select: EVENT,
    });
    if (last !== undefined) rows.reverse();
    return rows.map((row) => ({ seq: row.seq, kind: row.eventType!, key: row.messageId, value: decodedRow(row) }));
  }

  async sessions(given: SessionQuery): Promise<LoggedSession[]> {
    const query = copyOf(fieldsOf(given, 'query', ['title', 'idPrefix', 'roots', 'nonEmpty']), 'query');
    const title = textOf(query.title, 'title');
    const prefix = query.idPrefix === undefined ? undefined : idOf(query.idPrefix, 'idPrefix');
    const rows = await this.tx.prisma.agentThread.findMany({
      where: {
        tenantId: this.tenantId ?? null,
        title,
        ...(prefix !== undefined && { id: { startsWith: prefix } }),
        ...(query.roots && { parentEdge: { is: null } }),
        ...(query.nonEmpty && { lastSeq: { gt: 0 } }),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: SESSION,
    });
    // startsWith is LIKE: its case and its collation's padding are the database's; the prefix is compared here exactly.
    return rows.filter((row) => prefix === undefined || row.id.startsWith(prefix)).map(headerOf);
  }

  async children(id: string): Promise<LoggedSession[]> {
    idOf(id, 'id');
    if (this.tenantId !== undefined && !this.found.has(id) && !(await this.session(id))) return [];
    const ids = await childrenOf(this.tx, id);
    if (ids.length === 0) return [];
    const rows = await this.tx.prisma.agentThread.findMany({ where: { id: { in: ids }, tenantId: this.tenantId }, select: SESSION });
    const byId = new Map(rows.map((row) => [row.id, headerOf(row)]));
    return ids.flatMap((child) => byId.get(child) ?? []);
  }
}

/** The log in the store's write transaction `tx`. */
export class DatabaseSessionLog extends DatabaseSessionLogReads implements SessionLog {
  /** Sessions this transaction holds the lock of: an append, rekind or delete of another locks it first. */
  readonly #locked = new Set<string>();

  async open(id: string, given?: { title?: string; metadata?: Record<string, unknown> }): Promise<{ created: boolean }> {
    idOf(id, 'id');
    const header = fieldsOf(given, 'header', ['title', 'metadata']);
    const title = header.title === undefined ? undefined : textOf(header.title, 'title');
    // A session's metadata is a JSON object, as SessionStore and a JSONL import take it.
    const metadata = header.metadata === undefined ? undefined : readAsData('metadata', () => jsonObjectOf(header.metadata, 'metadata'));
    const now = new Date();
    if (await isDeleted(this.tx, id)) throw notFound(id);
    const created = await this.tx.dialect.ensureThread(this.tx.prisma, id, now);
    if (created) {
      if (this.tenantId !== undefined || title !== undefined || metadata !== undefined)
        await setHeader(this.tx, id, { tenantId: this.tenantId ?? null, title, metadata });
    } else if (!(await lockThread(this.tx, id, now, this.tenantId))) throw notFound(id);
    // Again once the row is held, as last committed: a delete that committed since the first look is seen.
    await assertNotDeleted(this.tx, id);
    this.found.add(id);
    this.#locked.add(id);
    return { created };
  }

  async lock(id: string): Promise<boolean> {
    const locked = await lockThread(this.tx, idOf(id, 'id'), new Date(), this.tenantId);
    if (locked) {
      this.found.add(id);
      this.#locked.add(id);
    }
    return locked;
  }

  async append(id: string, events: NewEvent[]): Promise<number[]> {
    idOf(id, 'id');
    const rows = listOf(events, 'events', (event, name) => {
      // Each field read once: the kind and key checked are those written.
      const { kind, key, value } = fieldsOf((event ?? null) as NewEvent, name, ['kind', 'key', 'value']);
      const eventType = kindOf(kind, `${name}.kind`);
      const declared = declaredKindOf(eventType, `${name}.kind`);
      const given = key === undefined ? undefined : key === null ? null : idOf(key, `${name}.key`);
      const stored = readAsData(`${name}.value`, () => (declared.jsonText ? jsonTextValue(value, `${name}.value`) : encodedValue(value, `${name}.value`)));
      // What the log keeps, an import takes back: the kind's checks read the value as stored, not as given (a getter may change).
      const kept = declared.holds || declared.keyOf ? decodedRow(stored) : undefined;
      checkHolds(eventType, declared, kept, `${name}.value`);
      return { eventType, messageId: keyFor(eventType, declared, kept, given, `${name}.key`), ...stored };
    });
    if (rows.length === 0) return [];
    // Unscoped, reserveSeqs alone creates or locks the session (no header to set) and looks for a delete after its lock.
    if (!this.#locked.has(id) && this.tenantId !== undefined) await this.open(id);
    // Hands out the seqs, the session's lock held; a delete that committed since is a StoreNotFoundError.
    const last = await reserveSeqs(this.tx, id, rows.length);
    this.found.add(id);
    this.#locked.add(id);
    const first = last - rows.length + 1;
    const createdAt = new Date();
    const data = rows.map((row, i) => ({ threadId: id, seq: first + i, ...row, createdAt }));
    for (const run of insertRuns(data, (row) => textLength([row.eventType, row.messageId, row.content, row.valueTypes]))) {
      await this.tx.prisma.agentMessage.createMany({ data: run });
    }
    return data.map((row) => row.seq);
  }

  async rekind(id: string, givenFrom: { kind: string; seqs?: number[] }, givenTo: { kind: string; dropKey?: boolean }): Promise<void> {
    idOf(id, 'id');
    const from = copyOf(fieldsOf(givenFrom ?? null, 'from', ['kind', 'seqs']), 'from');
    const to = copyOf(fieldsOf(givenTo ?? null, 'to', ['kind', 'dropKey']), 'to');
    const kind = kindOf(from.kind, 'from.kind');
    const seqs = from.seqs === undefined ? undefined : listOf(from.seqs, 'from.seqs', seqOf);
    const rekinded = kindOf(to.kind, 'to.kind');
    // The rows' values stay as they are: the new kind keeps them as the old one did, holds what it held, and takes the keys they are left with.
    const [before, after] = [declaredKindOf(kind, 'from.kind'), declaredKindOf(rekinded, 'to.kind')];
    const keys = to.dropKey ? !after.keyOf : after.anyKey || (after.keyOf === before.keyOf && after.anyKey === before.anyKey);
    if (before.jsonText !== after.jsonText || before.holds !== after.holds || !keys)
      throw new StoreValidationError(
        `${rekinded} must keep and hold what ${kind} does (jsonText, the same holds), and take the keys its events are left with (dropKey into a kind without keyOf)`,
      );
    if (seqs?.length === 0 || (!this.#locked.has(id) && !(await this.lock(id)))) return;
    await this.tx.prisma.agentMessage.updateMany({
      where: { threadId: id, eventType: kind, ...(seqs && { seq: { in: seqs } }) },
      data: { eventType: rekinded, ...(to.dropKey && { messageId: null }) },
    });
  }

  async attach(parentId: string, childId: string): Promise<void> {
    idOf(parentId, 'parentId');
    idOf(childId, 'childId');
    for (const id of [parentId, childId]) if (!this.#locked.has(id)) await this.open(id);
    await attachChild(this.tx, parentId, childId);
  }

  async delete(id: string): Promise<void> {
    idOf(id, 'id');
    if (!this.#locked.has(id) && !(await this.lock(id))) return;
    await deleteSubtree(this.tx, id, new Date());
    // Its subsessions went with it.
    this.found.clear();
    this.#locked.clear();
  }
}
