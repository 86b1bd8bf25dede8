// LangGraphCheckpointer: LangGraph JS's checkpoint saver on the store, for
// `compile({ checkpointer })`. Channel values are stored once per version,
// as LangGraph's PostgreSQL saver stores them (see integrations/langgraph/langgraph-checkpoints.ts);
// every value goes through the saver's serde, and the store keeps its bytes.
import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
} from '@langchain/langgraph-checkpoint';
import { IntegrationStore, idOf, keyTextOf } from '../../contract/index.js';
import { ValueBases } from './langgraph-deltas.js';
import { LangGraphCheckpoints, type Reads } from './langgraph-checkpoints.js';
import type { CheckpointRow, Typed, WriteRow } from './langgraph-rows.js';
import type { TupleRows } from './langgraph-statements.js';
import { StoreConfigurationError, StoreValidationError } from '../../contract/index.js';
import { dumpsFreshJson, loadStockJson, loadsStockJson } from './stock-serde.js';

/**
 * Give it to a graph as `compile({ checkpointer })`. getTuple, list (newest first; filters
 * on thread, namespace, `before`, `limit` and metadata), put, putWrites and deleteThread,
 * each one transaction. Threads are created by their first put and live until deleteThread.
 */
@Injectable()
export class LangGraphCheckpointer extends BaseCheckpointSaver implements OnModuleInit {
  #checkpoints: LangGraphCheckpoints;
  /** The values its puts store deltas against, shared with its copies (see integrations/langgraph/langgraph-deltas.ts). */
  #bases = new ValueBases();

  /** `store` scoped to a tenant: that tenant's threads only (see forTenant). */
  constructor(@Inject(IntegrationStore) private readonly store: IntegrationStore) {
    super();
    this.#checkpoints = new LangGraphCheckpoints(store, TASKS, this.#bases);
  }

  /** On your own PrismaClient, the boot fails naming the checkpointer's tables your database lacks (the store's boot asks only for its own). */
  async onModuleInit(): Promise<void> {
    await this.store.checkTables('langgraph');
  }

  /** The same, seeing only `tenantId`'s threads and writing new ones in it: the same thread id under two tenants is two threads. */
  forTenant(tenantId: string): LangGraphCheckpointer {
    if (this.store.tenantId !== undefined)
      throw new StoreConfigurationError(`this checkpointer is tenant ${this.store.tenantId}'s already: call forTenant on the injected LangGraphCheckpointer`);
    return this.#copy(this.store.forTenant(tenantId));
  }

  /** The same, every call of which runs in your transaction `tx` (see MessageStore.withTransaction). */
  withTransaction(tx: object): LangGraphCheckpointer {
    return this.#copy(this.store.withTransaction(tx));
  }

  /** The checkpoint `checkpoint_id` of the thread's namespace, or its newest; undefined when there is none, or no thread_id. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
    if (thread_id === undefined || thread_id === null || thread_id === '') return undefined;
    const key = { threadId: threadIdOf(thread_id), checkpointNs: namespaceOf(checkpoint_ns) };
    const id = checkpoint_id ? idOf(checkpoint_id, 'checkpoint_id') : undefined;
    // One snapshot, one call to the database; rows written before channel_versions was kept need their checkpoint decoded in between.
    const rows = await this.#checkpoints.tuple(key, id);
    if (rows?.blobs !== null) return rows ? this.#tuple(rows) : undefined;
    return this.#checkpoints.read(async (reads) => {
      const again = await reads(() => this.#checkpoints.plans.tuple(key, id));
      return again ? this.#tuple(await this.#withValues(reads, again)) : undefined;
    });
  }

  /**
   * The checkpoints of `config`'s thread and namespace (of every thread or namespace when absent; only
   * `checkpoint_id` when given), newest first: those before `before`'s checkpoint, whose metadata holds
   * every key of `filter` with an equal value, `limit` of them at most. Read in one snapshot.
   */
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { thread_id, checkpoint_ns, checkpoint_id } = config?.configurable ?? {};
    const { filter, before, limit } = options ?? {};
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) throw new StoreValidationError('limit must be a non-negative safe integer');
    const beforeId = before?.configurable?.checkpoint_id;
    const query = {
      ...(thread_id !== undefined && thread_id !== null && thread_id !== '' && { threadId: threadIdOf(thread_id) }),
      ...(checkpoint_ns !== undefined && checkpoint_ns !== null && { checkpointNs: namespaceOf(checkpoint_ns) }),
      ...(checkpoint_id && { checkpointId: idOf(checkpoint_id, 'checkpoint_id') }),
      ...(beforeId && { before: idOf(beforeId, 'before.configurable.checkpoint_id') }),
    };
    const wanted = Object.entries(filter ?? {});
    const tuples = await this.#checkpoints.read(async (reads) => {
      // A metadata filter is applied here, on the decoded metadata, so the limit is too.
      const rows = await reads(() => this.#checkpoints.plans.checkpoints(query, wanted.length === 0 ? limit : undefined));
      const kept: CheckpointRow[] = [];
      for (const row of rows) {
        if (limit !== undefined && kept.length >= limit) break;
        if (wanted.length > 0) {
          const metadata = (await this.#load(row.metadata)) as Record<string, unknown>;
          if (!wanted.every(([name, value]) => isDeepStrictEqual(metadata?.[name], value))) continue;
        }
        kept.push(row);
      }
      const out: CheckpointTuple[] = [];
      for (const row of kept) out.push(await this.#tuple(await this.#withValues(reads, { row, ...(await reads(() => this.#checkpoints.plans.rest(row))) })));
      return out;
    });
    yield* tuples;
  }

  /**
   * A channel's next version: the next whole number plus a random fraction below one half, as
   * LangGraph's Python savers add a random part to theirs. A value is stored once per version, so
   * two branches from one checkpoint (time travel, updateState on an old state) must never write
   * the same version with different values; versions still compare as numbers, as LangGraph does.
   */
  override getNextVersion(current: number | undefined): number {
    return Math.floor(current ?? 0) + 1 + randomInt(1, 2 ** 40) / 2 ** 41;
  }

  /**
   * Stores the checkpoint (one of the same id in the namespace is replaced) with the values of
   * `newVersions`' channels, each once per version. Returns the config of the stored checkpoint.
   */
  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (config?.configurable === undefined)
      throw new StoreValidationError('config.configurable is missing: put takes { configurable: { thread_id, checkpoint_ns?, checkpoint_id? } }');
    const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable;
    if (thread_id === undefined || thread_id === null || thread_id === '') throw new StoreValidationError('config.configurable.thread_id is missing');
    const key = { threadId: threadIdOf(thread_id), checkpointNs: namespaceOf(checkpoint_ns) };
    const { channel_values: values = {}, ...rest } = checkpoint;
    // Read back by every later read of the thread (and a listing of the tenant's): what the store cannot keep is refused now.
    const versions = Object.fromEntries(
      Object.entries(checkpoint.channel_versions ?? {}).map(([channel, version]) => [
        idOf(channel, 'a channel of channel_versions'),
        idOf(String(version), 'a version of channel_versions'),
      ]),
    );
    const [stored, storedMetadata, blobs] = await Promise.all([
      this.#dump(rest),
      this.#dump(metadata),
      Promise.all(
        Object.entries(newVersions ?? {}).map(async ([channel, version]) => ({
          channel: idOf(channel, 'channel'),
          version: idOf(String(version), 'channel version'),
          value: Object.hasOwn(values, channel) ? await this.#dump((values as Record<string, unknown>)[channel]) : null,
        })),
      ),
    ]);
    await this.#checkpoints.put(
      {
        ...key,
        checkpointId: idOf(checkpoint.id, 'checkpoint.id'),
        parentCheckpointId: checkpoint_id ? idOf(checkpoint_id, 'checkpoint_id') : null,
        checkpoint: stored,
        metadata: storedMetadata,
        versions,
      },
      blobs,
    );
    return { configurable: { thread_id, checkpoint_ns: key.checkpointNs, checkpoint_id: checkpoint.id } };
  }

  /**
   * Stores a task's writes against the checkpoint of `config`, all or none, as LangGraph's MemorySaver
   * does: a write to a special channel (error, interrupt, resume, scheduled) replaces the task's
   * earlier one; any other is stored once at its place in the task's writes.
   */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const { thread_id, checkpoint_ns, checkpoint_id } = config?.configurable ?? {};
    if (thread_id === undefined || thread_id === null || thread_id === '') throw new StoreValidationError('config.configurable.thread_id is missing');
    if (!checkpoint_id) throw new StoreValidationError('config.configurable.checkpoint_id is missing');
    if (!Array.isArray(writes)) throw new StoreValidationError('writes must be an array of [channel, value]');
    const key = { threadId: threadIdOf(thread_id), checkpointNs: namespaceOf(checkpoint_ns) };
    const task = idOf(taskId, 'taskId');
    const rows: WriteRow[] = await Promise.all(
      writes.map(async ([channel, value], idx) => ({
        taskId: task,
        taskPath: keyTextOf(taskPath, 'taskPath'),
        idx: Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel] : idx,
        channel: keyTextOf(channel, 'channel'),
        value: await this.#dump(value),
      })),
    );
    await this.#checkpoints.putWrites(key, idOf(checkpoint_id, 'checkpoint_id'), rows);
  }

  /** Deletes the thread's checkpoints and writes in every namespace, atomically. Nothing when there are none. */
  async deleteThread(threadId: string): Promise<void> {
    await this.#checkpoints.deleteThread(threadIdOf(threadId));
  }

  #copy(store: IntegrationStore): LangGraphCheckpointer {
    const copy = new LangGraphCheckpointer(store);
    copy.serde = this.serde;
    copy.#bases = this.#bases;
    copy.#checkpoints = new LangGraphCheckpoints(store, TASKS, this.#bases);
    return copy;
  }

  /** `rows` with its values, read in the snapshot of `reads` from the versions its decoded checkpoint names when the row does not name them. */
  async #withValues(reads: Reads, rows: TupleRows): Promise<TupleRows> {
    if (rows.blobs !== null) return rows;
    const { threadId, checkpointNs } = rows.row;
    const checkpoint = (await this.#load(rows.row.checkpoint)) as Checkpoint;
    const versions = Object.fromEntries(Object.entries(checkpoint.channel_versions ?? {}).map(([channel, version]) => [channel, String(version)]));
    return { ...rows, blobs: await reads(() => this.#checkpoints.plans.blobs({ threadId, checkpointNs }, versions)) };
  }

  async #tuple({ row, blobs, writes, sends }: TupleRows): Promise<CheckpointTuple> {
    const checkpoint = (await this.#load(row.checkpoint)) as Checkpoint;
    checkpoint.channel_versions ??= {};
    checkpoint.versions_seen ??= {};
    const values: Record<string, unknown> = {};
    for (const blob of blobs ?? []) {
      // Defined, not assigned: a channel named __proto__ is a channel, not the object's prototype.
      if (blob.value !== null)
        Object.defineProperty(values, blob.channel, { value: await this.#load(blob.value, KEPT), enumerable: true, writable: true, configurable: true });
    }
    checkpoint.channel_values = values;
    // Checkpoints before format 4 kept the sends of their parent's tasks in its writes.
    if (checkpoint.v < 4 && sends.length > 0) {
      values[TASKS] = await Promise.all(sorted(sends).map((send) => this.#load(send.value)));
      const held = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] = held.length > 0 ? maxChannelVersion(...held) : this.getNextVersion(undefined);
    }
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      sorted(writes).map(async (write): Promise<CheckpointPendingWrite> => [write.taskId, write.channel, await this.#load(write.value)]),
    );
    const configOf = (checkpointId: string) => ({ configurable: { thread_id: row.threadId, checkpoint_ns: row.checkpointNs, checkpoint_id: checkpointId } });
    return {
      config: configOf(row.checkpointId),
      checkpoint,
      metadata: (await this.#load(row.metadata)) as CheckpointMetadata,
      parentConfig: row.parentCheckpointId === null ? undefined : configOf(row.parentCheckpointId),
      pendingWrites,
    };
  }

  /**
   * The serde's bytes for `value`, the store's own: they are written after every value of the call is
   * encoded, and a channel value's are held as the next put's delta base and handed to later reads. The
   * stock serde's JSON is (it encodes each value anew); anything else is copied (LangGraph's serde passes
   * a Uint8Array value through as it is, a serde of yours may reuse a buffer).
   */
  async #dump(value: unknown): Promise<Typed> {
    // The serde that encodes is the one asked whether its bytes are fresh: `serde` may be replaced while it runs.
    const serde = this.serde;
    const [type, bytes] = await serde.dumpsTyped(value);
    // A serde that gives text would be stored as text by one database, as base64 by Prisma: refused before anything is written.
    if (!(bytes instanceof Uint8Array))
      throw new StoreValidationError(`the checkpointer's serde must give bytes (a Uint8Array); its dumpsTyped gave ${typeof bytes}`);
    return { type, bytes: type === 'json' && dumpsFreshJson(serde) ? bytes : new Uint8Array(bytes) };
  }

  /**
   * The value of the serde's bytes. `KEPT` bytes (a channel value's, which the store holds) reach a serde
   * of yours as a copy; the stock serde's JSON is decoded here, as it decodes it (see stock-serde.ts).
   */
  #load(value: Typed, kept = false): Promise<unknown> {
    if (value.type === 'json' && loadsStockJson(this.serde)) return loadStockJson(this.serde, value.bytes);
    return this.serde.loadsTyped(value.type, kept ? new Uint8Array(value.bytes) : value.bytes);
  }
}

/** Bytes the store holds on to: a channel value's. */
const KEPT = true;

/** Writes in the order the savers of @langchain/langgraph-checkpoint give them: by task path, task id, index. */
function sorted(writes: WriteRow[]): WriteRow[] {
  return [...writes].sort((a, b) => compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)));
}

/** A thread id: a non-empty string (or a number, as its decimal string), of any length. */
function threadIdOf(value: unknown): string {
  const id = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof id !== 'string' || id.length === 0) throw new StoreValidationError('thread_id must be a non-empty string');
  return keyTextOf(id, 'thread_id');
}

/** A checkpoint namespace; absent is the root namespace, "". Not ending in a space: MySQL's collations would find "x" in "x " (as for ids). */
function namespaceOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  const namespace = keyTextOf(value, 'checkpoint_ns');
  if (namespace.endsWith(' ')) throw new StoreValidationError('checkpoint_ns must not end with a space');
  return namespace;
}
