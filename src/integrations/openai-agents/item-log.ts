// A framework's items in a session's log, as the framework gave them: each an
// event row of its own kind (`<kind>.item`), never disguised as a message.
//
// The log is append-only in what it keeps. A history event (`<kind>.history`,
// holding a list of items) starts the effective history anew: a clear (an
// empty list), a compaction, a pop or suffix replacement that reaches into the
// previous one. The effective history is the latest history event's items,
// then the item rows after it. Popping an item row, or replacing the suffix it
// is in, only renames its kind (`<kind>.dropped`): the transcript keeps it.
// Applied history operations (`<kind>.operation`) carry their id in the row's
// message id, unique in the thread, so a retried operation is found, and a
// race for one id is settled by the database.
import { isDeepStrictEqual } from 'node:util';
import { StoreConflictError } from '../../store.errors.js';
import type { StoreDatabase } from '../../engine/database.js';
import { operationMessageId } from '../../values/adapter-events.js';
import { insertRuns, textLength } from '../../engine/insert-runs.js';
import { decodedRow, encodedValue, type EncodedValue } from '../../values/json-rows.js';
import { lockThread, reserveSeqs, threadExists } from '../../engine/tables/message-rows.js';
import { isDeleted, setHeader } from '../../engine/tables/session-rows.js';
import type { StoreTx } from '../../engine/dialect.js';
import { notFound } from '../../engine/tables/tenancy.js';

/** An item: a JSON object, with the non-JSON values the store keeps (bytes, dates, URLs). */
export type Item = Record<string, unknown>;

/** A change to the history that is applied once per operation id. */
export type HistoryOperation = { type: 'append_items'; items: Item[] } | { type: 'replace_suffix'; expectedSuffix: Item[]; replacement: Item[] };

interface Row {
  seq: number;
  eventType: string | null;
  content: string;
  valueTypes: string | null;
}
const ROW = { seq: true, eventType: true, content: true, valueTypes: true } as const;

export class ItemLog {
  readonly #item: string;
  readonly #history: string;
  readonly #dropped: string;
  readonly #operation: string;
  readonly #clearedOperation: string;

  constructor(
    private readonly db: StoreDatabase,
    /** The framework's name, the prefix of its entries' kinds (`openai-agents`). */
    private readonly kind: string,
    /** Set: only this tenant's sessions exist, and new ones are created in it. */
    private readonly tenantId?: string,
  ) {
    this.#item = `${kind}.item`;
    this.#history = `${kind}.history`;
    this.#dropped = `${kind}.dropped`;
    this.#operation = `${kind}.operation`;
    this.#clearedOperation = `${kind}.operation.cleared`;
  }

  /**
   * The effective history's last `limit` items (all without a limit), oldest first. Reads
   * about `limit` rows, however long the session. A session that does not exist, or is not
   * the tenant's, has none.
   */
  items(id: string, limit?: number): Promise<Item[]> {
    if (limit !== undefined && limit <= 0) return Promise.resolve([]);
    return this.db.read(async (tx) => {
      if (this.tenantId !== undefined && !(await threadExists(tx, id, this.tenantId))) return [];
      return this.#effective(tx, id, limit);
    });
  }

  /** Appends `items` at the end, creating the session (in the tenant, when scoped). */
  async add(id: string, items: Item[]): Promise<void> {
    const rows = items.map((item, i) => encodedValue(item, `items[${i}]`));
    if (rows.length === 0) return;
    await this.db.write(async (tx) => {
      await this.#own(tx, id);
      await this.#insertItems(tx, id, rows);
    }, rows.length);
  }

  /** Removes the last item of the effective history and returns it; undefined when there is none. */
  pop(id: string): Promise<Item | undefined> {
    return this.db.write(async (tx) => {
      if (!(await lockThread(tx, id, new Date(), this.tenantId))) return undefined;
      const [last] = await tx.prisma.agentMessage.findMany({
        where: { threadId: id, eventType: { in: [this.#item, this.#history] } },
        orderBy: { seq: 'desc' },
        take: 1,
        select: ROW,
      });
      if (!last) return undefined;
      if (last.eventType === this.#item) {
        await this.#drop(tx, id, [last.seq]);
        return decodedRow(last) as Item;
      }
      const { items } = decodedRow(last) as { items: Item[] };
      if (items.length === 0) return undefined;
      await this.#startHistory(tx, id, encodedValue({ reason: 'pop', items: items.slice(0, -1) }, 'items'));
      return items.at(-1);
    });
  }

  /** Empties the effective history (the transcript keeps it) and forgets the operations applied. */
  async clear(id: string): Promise<void> {
    await this.db.write(async (tx) => {
      if (!(await lockThread(tx, id, new Date(), this.tenantId))) return;
      await this.#startHistory(tx, id, encodedValue({ reason: 'clear', items: [] }, 'items'));
      await tx.prisma.agentMessage.updateMany({
        where: { threadId: id, eventType: this.#operation },
        data: { eventType: this.#clearedOperation, messageId: null },
      });
    });
  }

  /** Makes `items` the whole effective history (a compaction's output), creating the session. */
  async replace(id: string, items: Item[]): Promise<void> {
    const history = encodedValue({ reason: 'compaction', items }, 'items');
    await this.db.write(async (tx) => {
      await this.#own(tx, id);
      await this.#startHistory(tx, id, history);
    }, 1);
  }

  /**
   * Applies `operation` once for `operationId`: the same id again with the same operation
   * changes nothing; with another, a StoreConflictError. A replaced suffix must still be
   * the history's, or it is a StoreConflictError and nothing changes. Values are compared
   * as the store keeps them (an object's prototype, an undefined property aside).
   */
  async apply(id: string, operationId: string, operation: HistoryOperation): Promise<void> {
    const record = encodedValue({ operationId, ...operation }, 'transaction');
    const { operationId: _, ...given } = decodedRow(record) as HistoryOperation & { operationId: string };
    await this.db.write(
      async (tx) => {
        await this.#own(tx, id);
        const key = operationMessageId(this.kind, operationId);
        const [applied] = await tx.prisma.agentMessage.findMany({ where: { threadId: id, messageId: key }, select: ROW });
        if (applied) {
          if (!isDeepStrictEqual(decodedRow(applied), { operationId, ...given }))
            throw new StoreConflictError('Session history operation was already applied with a different transaction.');
          return;
        }
        if (given.type === 'append_items')
          await this.#insertItems(
            tx,
            id,
            given.items.map((item) => encodedValue(item, 'item')),
          );
        else await this.#replaceSuffix(tx, id, given);
        const [seq] = await this.#seqs(tx, id, 1);
        await tx.prisma.agentMessage.create({ data: { threadId: id, seq, eventType: this.#operation, messageId: key, ...record, createdAt: new Date() } });
      },
      (given.type === 'append_items' ? given.items : given.replacement).length + 1,
    );
  }

  async #replaceSuffix(tx: StoreTx, id: string, { expectedSuffix, replacement }: Extract<HistoryOperation, { type: 'replace_suffix' }>): Promise<void> {
    const length = expectedSuffix.length;
    const suffix = length === 0 ? [] : await this.#tailRows(tx, id, length);
    if (
      suffix.length < length ||
      !isDeepStrictEqual(
        suffix.map((entry) => entry.item),
        expectedSuffix,
      )
    ) {
      throw new StoreConflictError('Session history suffix no longer matches the transaction precondition.');
    }
    if (suffix.every((entry) => entry.seq !== null)) {
      await this.#drop(
        tx,
        id,
        suffix.map((entry) => entry.seq!),
      );
      await this.#insertItems(
        tx,
        id,
        replacement.map((item) => encodedValue(item, 'item')),
      );
      return;
    }
    // The suffix reaches into the latest history event's items: the history starts anew.
    const kept = (await this.#effective(tx, id)).slice(0, -length);
    await this.#startHistory(tx, id, encodedValue({ reason: 'replace_suffix', items: [...kept, ...replacement] }, 'items'));
  }

  /** The effective history's items, oldest first: all, or the last `limit`. */
  async #effective(tx: StoreTx, id: string, limit?: number): Promise<Item[]> {
    return (await this.#tailRows(tx, id, limit)).map((entry) => entry.item);
  }

  /**
   * The effective history's last `limit` items (all without one), each with its row's seq
   * (null: one of the latest history event's items). With a limit it reads at most that many
   * rows of items and history events, newest first; without, the rows after the latest history event.
   */
  async #tailRows(tx: StoreTx, id: string, limit?: number): Promise<{ seq: number | null; item: Item }[]> {
    const kinds = { in: [this.#item, this.#history] };
    let rows: Row[];
    if (limit === undefined) {
      const [start] = await tx.prisma.agentMessage.findMany({
        where: { threadId: id, eventType: this.#history },
        orderBy: { seq: 'desc' },
        take: 1,
        select: ROW,
      });
      const after = await tx.prisma.agentMessage.findMany({
        where: { threadId: id, eventType: this.#item, seq: { gt: start?.seq ?? 0 } },
        orderBy: { seq: 'asc' },
        select: ROW,
      });
      rows = start ? [start, ...after] : after;
    } else {
      rows = (
        await tx.prisma.agentMessage.findMany({ where: { threadId: id, eventType: kinds }, orderBy: { seq: 'desc' }, take: limit, select: ROW })
      ).reverse();
      const start = rows.findLastIndex((row) => row.eventType === this.#history);
      if (start > 0) rows = rows.slice(start);
    }
    const items: { seq: number | null; item: Item }[] = [];
    for (const row of rows) {
      if (row.eventType === this.#history) items.push(...(decodedRow(row) as { items: Item[] }).items.map((item) => ({ seq: null, item })));
      else items.push({ seq: row.seq, item: decodedRow(row) as Item });
    }
    return limit === undefined ? items : items.slice(-limit);
  }

  /** Locks the session, creating it: unscoped, by id; scoped, in the tenant, unless another tenant's holds the id. */
  async #own(tx: StoreTx, id: string): Promise<void> {
    if (this.tenantId === undefined) {
      await reserveSeqs(tx, id, 0);
      return;
    }
    if (await isDeleted(tx, id)) throw notFound(id);
    const created = await tx.dialect.ensureThread(tx.prisma, id, new Date());
    if (created) await setHeader(tx, id, { tenantId: this.tenantId });
    else if (!(await lockThread(tx, id, new Date(), this.tenantId))) throw notFound(id);
    await reserveSeqs(tx, id, 0);
  }

  async #seqs(tx: StoreTx, id: string, count: number): Promise<number[]> {
    const last = await reserveSeqs(tx, id, count);
    return Array.from({ length: count }, (_, i) => last - count + 1 + i);
  }

  async #insertItems(tx: StoreTx, id: string, items: EncodedValue[]): Promise<void> {
    if (items.length === 0) return;
    const seqs = await this.#seqs(tx, id, items.length);
    const createdAt = new Date();
    const rows = items.map((item, i) => ({ threadId: id, seq: seqs[i], eventType: this.#item, ...item, createdAt }));
    for (const run of insertRuns(rows, (row) => textLength([row.eventType, row.content, row.valueTypes]))) {
      await tx.prisma.agentMessage.createMany({ data: run });
    }
  }

  /** Starts the effective history anew with a history event (`{ reason, items }`, encoded). */
  async #startHistory(tx: StoreTx, id: string, history: EncodedValue): Promise<void> {
    const [seq] = await this.#seqs(tx, id, 1);
    await tx.prisma.agentMessage.create({ data: { threadId: id, seq, eventType: this.#history, ...history, createdAt: new Date() } });
  }

  async #drop(tx: StoreTx, id: string, seqs: number[]): Promise<void> {
    await tx.prisma.agentMessage.updateMany({ where: { threadId: id, seq: { in: seqs }, eventType: this.#item }, data: { eventType: this.#dropped } });
  }
}
