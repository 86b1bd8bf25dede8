// The sessions' log on the store's tables, in one of its transactions: the
// engine's own reads and writes of sessions, events and subsessions, with a
// binding's kinds, keys and values checked as the store checks its own.
import type { StoreTx } from '../engine/dialect.js';
import { insertRuns, textLength } from '../engine/insert-runs.js';
import { lockThread, reserveSeqs } from '../engine/tables/message-rows.js';
import { isDeleted, setHeader } from '../engine/tables/session-rows.js';
import { attachChild, childrenOf, deleteSubtree } from '../engine/tables/subsession-graph.js';
import { notFound } from '../engine/tables/tenancy.js';
import type { JsonObject } from '../message.types.js';
import { StoreValidationError } from '../store.errors.js';
import { decodedRow, encodedValue, jsonTextValue } from '../values/json-rows.js';
import { idOf, MAX_ID_LENGTH, MAX_INTEGER, textOf } from '../values/validation.js';
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

function seqOf(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_INTEGER)
    throw new StoreValidationError(`${name} must be an integer from 0 to ${MAX_INTEGER}`);
  return value as number;
}

function listOf<T>(value: unknown, name: string, each: (item: unknown, name: string) => T): T[] {
  if (!Array.isArray(value)) throw new StoreValidationError(`${name} must be an array`);
  return value.map((item, i) => each(item, `${name}[${i}]`));
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
  /** Sessions this transaction has found the tenant's, or opened or locked: no need to look again. */
  protected readonly held = new Set<string>();

  constructor(
    protected readonly tx: StoreTx,
    protected readonly tenantId: string | undefined,
  ) {}

  async session(id: string): Promise<LoggedSession | undefined> {
    const row = await this.tx.prisma.agentThread.findFirst({ where: { id: idOf(id, 'id'), tenantId: this.tenantId }, select: SESSION });
    if (row) this.held.add(id);
    return row ? headerOf(row) : undefined;
  }

  async events(id: string, query: EventQuery): Promise<LoggedEvent[]> {
    idOf(id, 'id');
    const kinds = listOf(query.kinds, 'kinds', kindOf);
    const after = query.after === undefined ? undefined : seqOf(query.after, 'after');
    const keys = query.keys === undefined ? undefined : listOf(query.keys, 'keys', idOf);
    const last = query.last === undefined ? undefined : seqOf(query.last, 'last');
    if (kinds.length === 0 || keys?.length === 0 || last === 0) return [];
    if (this.tenantId !== undefined && !this.held.has(id) && !(await this.session(id))) return [];
    const rows = await this.tx.prisma.agentMessage.findMany({
      where: { threadId: id, eventType: { in: kinds }, ...(after !== undefined && { seq: { gt: after } }), ...(keys && { messageId: { in: keys } }) },
      orderBy: { seq: last === undefined ? 'asc' : 'desc' },
      ...(last !== undefined && { take: last }),
      select: EVENT,
    });
    if (last !== undefined) rows.reverse();
    return rows.map((row) => ({ seq: row.seq, kind: row.eventType!, key: row.messageId, value: decodedRow(row) }));
  }

  async sessions(query: SessionQuery): Promise<LoggedSession[]> {
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
    if (this.tenantId !== undefined && !this.held.has(id) && !(await this.session(id))) return [];
    const ids = await childrenOf(this.tx, idOf(id, 'id'));
    if (ids.length === 0) return [];
    const rows = await this.tx.prisma.agentThread.findMany({ where: { id: { in: ids }, tenantId: this.tenantId }, select: SESSION });
    const byId = new Map(rows.map((row) => [row.id, headerOf(row)]));
    return ids.flatMap((child) => byId.get(child) ?? []);
  }
}

/** The log in the store's write transaction `tx`. */
export class DatabaseSessionLog extends DatabaseSessionLogReads implements SessionLog {
  async open(id: string, header: { title?: string; metadata?: Record<string, unknown> } = {}): Promise<{ created: boolean }> {
    idOf(id, 'id');
    const title = header.title === undefined ? undefined : textOf(header.title, 'title');
    // Kept as JSON text, as a session's metadata always is.
    if (header.metadata !== undefined) jsonTextValue(header.metadata, 'metadata');
    const now = new Date();
    if (await isDeleted(this.tx, id)) throw notFound(id);
    const created = await this.tx.dialect.ensureThread(this.tx.prisma, id, now);
    if (created) {
      if (this.tenantId !== undefined || title !== undefined || header.metadata !== undefined)
        await setHeader(this.tx, id, { tenantId: this.tenantId ?? null, title, metadata: header.metadata as JsonObject | undefined });
    } else if (!(await lockThread(this.tx, id, now, this.tenantId))) throw notFound(id);
    this.held.add(id);
    return { created };
  }

  async lock(id: string): Promise<boolean> {
    const locked = await lockThread(this.tx, idOf(id, 'id'), new Date(), this.tenantId);
    if (locked) this.held.add(id);
    return locked;
  }

  async append(id: string, events: NewEvent[], options: { jsonText?: boolean } = {}): Promise<number[]> {
    idOf(id, 'id');
    const rows = listOf(events, 'events', (event, name) => {
      const { kind, key, value } = (event ?? {}) as Partial<NewEvent>;
      return {
        eventType: kindOf(kind, `${name}.kind`),
        messageId: key === undefined || key === null ? null : idOf(key, `${name}.key`),
        ...(options.jsonText ? jsonTextValue(value, `${name}.value`) : encodedValue(value, `${name}.value`)),
      };
    });
    if (!this.held.has(id)) await this.open(id);
    // Locks the session again and hands out the seqs; a delete that committed since is a StoreNotFoundError.
    const last = await reserveSeqs(this.tx, id, rows.length);
    const first = last - rows.length + 1;
    const createdAt = new Date();
    const data = rows.map((row, i) => ({ threadId: id, seq: first + i, ...row, createdAt }));
    for (const run of insertRuns(data, (row) => textLength([row.eventType, row.messageId, row.content, row.valueTypes]))) {
      await this.tx.prisma.agentMessage.createMany({ data: run });
    }
    return data.map((row) => row.seq);
  }

  async rekind(id: string, from: { kind: string; seqs?: number[] }, to: { kind: string; dropKey?: boolean }): Promise<void> {
    const kind = kindOf(from.kind, 'from.kind');
    const seqs = from.seqs === undefined ? undefined : listOf(from.seqs, 'from.seqs', seqOf);
    const rekinded = kindOf(to.kind, 'to.kind');
    if (seqs?.length === 0 || (!this.held.has(id) && !(await this.lock(id)))) return;
    await this.tx.prisma.agentMessage.updateMany({
      where: { threadId: id, eventType: kind, ...(seqs && { seq: { in: seqs } }) },
      data: { eventType: rekinded, ...(to.dropKey && { messageId: null }) },
    });
  }

  async attach(parentId: string, childId: string): Promise<void> {
    for (const id of [parentId, childId]) if (!this.held.has(id)) await this.open(id);
    await attachChild(this.tx, parentId, childId);
  }

  async delete(id: string): Promise<void> {
    if (!this.held.has(id) && !(await this.lock(id))) return;
    await deleteSubtree(this.tx, id, new Date());
    // Its subsessions went with it.
    this.held.clear();
  }
}
