// The OpenAI Agents SDK's Session on the store: the SDK's items in the
// session's log as they were given (see ItemLog), with a tail read for
// getItems(limit), a pop that renames one row, compaction that keeps the
// transcript, and history transactions applied once per operation id.
import type { AgentInputItem, SessionHistoryTransactionArgs, SessionHistoryTransactionAwareSession } from '@openai/agents-core';
import type { Item, ItemLog } from './item-log.js';
import { StoreValidationError } from '../../contract/index.js';
import { isAgentItem } from './item-log.js';
import { countOf, dataCopyOf } from '../../contract/index.js';
import { snapshotTransaction } from './history-transaction.js';

/**
 * The SDK's Session for one session id, from OpenAIAgentsSessions.forSession: give it to run() as
 * `{ session }`. Its items are events of the session's log (`openai-agents.item`), kept as given; nothing
 * is deleted (a pop, a clear or a compaction keeps what it removes in the transcript). The session is
 * created on its first write.
 */
export class StoreAgentSession implements SessionHistoryTransactionAwareSession {
  /**
   * OpenAIAgentsSessions.forSession constructs it.
   *
   * @internal
   */
  constructor(
    private readonly log: ItemLog,
    private readonly sessionId: string,
  ) {}

  /** The session id. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The history's last `limit` items (all without one), oldest first; reads only those. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const count = limit === undefined ? undefined : countOf(limit, 'limit');
    return (await this.log.items(this.sessionId, count)) as AgentInputItem[];
  }

  /** Appends the items, all or none. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    await this.log.add(this.sessionId, itemsOf(items, 'items'));
  }

  /** Removes the last item and returns it (the transcript keeps it); undefined when the history is empty. */
  async popItem(): Promise<AgentInputItem | undefined> {
    return (await this.log.pop(this.sessionId)) as AgentInputItem | undefined;
  }

  /** Empties the history (the transcript keeps it); operation ids applied before may be applied again. */
  async clearSession(): Promise<void> {
    await this.log.clear(this.sessionId);
  }

  /** A compaction's output becomes the whole history; what it replaces stays in the transcript. */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    await this.log.replace(this.sessionId, itemsOf(items, 'items'));
  }

  /** Applies the transaction once per operation id, atomically with the record of it. */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, operation } = snapshotTransaction(args);
    await this.log.apply(this.sessionId, operationId, operation);
  }
}

/**
 * A copy of the SDK's items (objects with a `type` or a `role`), read once: a getter or a Proxy
 * cannot hand the check one value and the write another. Anything else is a StoreValidationError
 * that quotes nothing of it, and nothing is written.
 */
function itemsOf(items: unknown, name: string): Item[] {
  if (!Array.isArray(items)) throw new StoreValidationError(`${name} must be an array of the SDK's items`);
  return items.map((item: unknown, i) => {
    const copy = dataCopyOf(item, `${name}[${i}]`);
    if (!isAgentItem(copy)) throw new StoreValidationError(`${name}[${i}] must be an item of the SDK (an object with a type or a role)`);
    return copy as Item;
  });
}
