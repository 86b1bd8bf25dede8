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
import {
  PACKAGE_BINDINGS,
  StoreConflictError,
  storedValueOf,
  type IntegrationBinding,
  type IntegrationStore,
  type LoggedEvent,
  type SessionLog,
  type SessionLogReads,
} from '../../contract/index.js';

/** An item: a JSON object, with the non-JSON values the store keeps (bytes, dates, URLs). */
export type Item = Record<string, unknown>;

/** An item as the SDK gives one: an object with a `type` or a `role` (what the binding's declaration says an item holds). */
const holdsItem = PACKAGE_BINDINGS.openaiAgents.kinds['openai-agents.item'].holds!;
export const isAgentItem = (value: unknown): value is Item => holdsItem(value);

/** A change to the history that is applied once per operation id. */
export type HistoryOperation = { type: 'append_items'; items: Item[] } | { type: 'replace_suffix'; expectedSuffix: Item[]; replacement: Item[] };

export class ItemLog {
  readonly #item: string;
  readonly #history: string;
  readonly #dropped: string;
  readonly #operation: string;
  readonly #clearedOperation: string;

  constructor(
    /** Scoped to a tenant: only its sessions exist, and new ones are created in it. */
    private readonly store: IntegrationStore,
    /** Its kinds' declaration (`openai-agents`: PACKAGE_BINDINGS.openaiAgents), whose name prefixes them. */
    private readonly binding: IntegrationBinding,
  ) {
    const kind = binding.name;
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
    return this.store.readSessions((tx) => this.#effective(tx.sessions, id, limit));
  }

  /** Appends `items` at the end, creating the session (in the tenant, when scoped). */
  async add(id: string, items: Item[]): Promise<void> {
    if (items.length === 0) return;
    await this.store.write(
      (tx) =>
        tx.sessions.append(
          id,
          items.map((value) => ({ kind: this.#item, value })),
        ),
      { rows: items.length },
    );
  }

  /** Removes the last item of the effective history and returns it; undefined when there is none. */
  pop(id: string): Promise<Item | undefined> {
    return this.store.write(async ({ sessions }) => {
      if (!(await sessions.lock(id))) return undefined;
      const [last] = await sessions.events(id, { kinds: [this.#item, this.#history], last: 1 });
      if (!last) return undefined;
      if (last.kind === this.#item) {
        await this.#drop(sessions, id, [last.seq]);
        return last.value as Item;
      }
      const { items } = last.value as { items: Item[] };
      if (items.length === 0) return undefined;
      await this.#startHistory(sessions, id, 'pop', items.slice(0, -1));
      return items.at(-1);
    });
  }

  /** Empties the effective history (the transcript keeps it) and forgets the operations applied. */
  async clear(id: string): Promise<void> {
    await this.store.write(async ({ sessions }) => {
      if (!(await sessions.lock(id))) return;
      await this.#startHistory(sessions, id, 'clear', []);
      await sessions.rekind(id, { kind: this.#operation }, { kind: this.#clearedOperation, dropKey: true });
    });
  }

  /** Makes `items` the whole effective history (a compaction's output), creating the session. */
  async replace(id: string, items: Item[]): Promise<void> {
    // The history event's append checks the items, then opens the session.
    await this.store.write(({ sessions }) => this.#startHistory(sessions, id, 'compaction', items));
  }

  /**
   * Applies `operation` once for `operationId`: the same id again with the same operation
   * changes nothing; with another, a StoreConflictError. A replaced suffix must still be
   * the history's, or it is a StoreConflictError and nothing changes. Values are compared
   * as the store keeps them (an object's prototype, an undefined property aside).
   */
  async apply(id: string, operationId: string, operation: HistoryOperation): Promise<void> {
    // The key the binding gives the operation's record, which the log checks.
    const key = this.binding.kinds[this.#operation].keyOf!({ operationId }) as string;
    const record = { operationId, ...operation };
    // As the store will give it back, to compare with one applied before.
    const given = storedValueOf(record, 'transaction') as typeof record;
    await this.store.write(
      async ({ sessions }) => {
        await sessions.open(id);
        const [applied] = await sessions.events(id, { kinds: [this.#operation], keys: [key] });
        if (applied) {
          if (!isDeepStrictEqual(applied.value, given))
            throw new StoreConflictError('Session history operation was already applied with a different transaction.');
          return;
        }
        if (given.type === 'append_items')
          await sessions.append(
            id,
            given.items.map((value) => ({ kind: this.#item, value })),
          );
        else await this.#replaceSuffix(sessions, id, given);
        await sessions.append(id, [{ kind: this.#operation, key, value: record }]);
      },
      { rows: (given.type === 'append_items' ? given.items : given.replacement).length + 1 },
    );
  }

  async #replaceSuffix(log: SessionLog, id: string, { expectedSuffix, replacement }: Extract<HistoryOperation, { type: 'replace_suffix' }>): Promise<void> {
    const length = expectedSuffix.length;
    const suffix = length === 0 ? [] : await this.#tailRows(log, id, length);
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
        log,
        id,
        suffix.map((entry) => entry.seq!),
      );
      await log.append(
        id,
        replacement.map((value) => ({ kind: this.#item, value })),
      );
      return;
    }
    // The suffix reaches into the latest history event's items: the history starts anew.
    const kept = (await this.#effective(log, id)).slice(0, -length);
    await this.#startHistory(log, id, 'replace_suffix', [...kept, ...replacement]);
  }

  /** The effective history's items, oldest first: all, or the last `limit`. */
  async #effective(log: SessionLogReads, id: string, limit?: number): Promise<Item[]> {
    return (await this.#tailRows(log, id, limit)).map((entry) => entry.item);
  }

  /**
   * The effective history's last `limit` items (all without one), each with its event's seq
   * (null: one of the latest history event's items). With a limit it reads at most that many
   * item and history events, newest first; without, the events after the latest history event.
   */
  async #tailRows(log: SessionLogReads, id: string, limit?: number): Promise<{ seq: number | null; item: Item }[]> {
    let events: LoggedEvent[];
    if (limit === undefined) {
      const [start] = await log.events(id, { kinds: [this.#history], last: 1 });
      const after = await log.events(id, { kinds: [this.#item], after: start?.seq ?? 0 });
      events = start ? [start, ...after] : after;
    } else {
      events = await log.events(id, { kinds: [this.#item, this.#history], last: limit });
      const start = events.findLastIndex((event) => event.kind === this.#history);
      if (start > 0) events = events.slice(start);
    }
    const items: { seq: number | null; item: Item }[] = [];
    for (const event of events) {
      if (event.kind === this.#history) items.push(...(event.value as { items: Item[] }).items.map((item) => ({ seq: null, item })));
      else items.push({ seq: event.seq, item: event.value as Item });
    }
    return limit === undefined ? items : items.slice(-limit);
  }

  /** Starts the effective history anew with a history event: `{ reason, items }`. */
  async #startHistory(log: SessionLog, id: string, reason: string, items: Item[]): Promise<void> {
    await log.append(id, [{ kind: this.#history, value: { reason, items } }]);
  }

  async #drop(log: SessionLog, id: string, seqs: number[]): Promise<void> {
    await log.rekind(id, { kind: this.#item, seqs }, { kind: this.#dropped });
  }
}
