// LangGraph checkpoints (nestjs-agent-store/langgraph), laid out as LangGraph's
// PostgreSQL saver lays them out: a checkpoint row without its channel values,
// each channel's value stored once per version (by the checkpoint whose
// newVersions brought it) and read back through the checkpoint's
// channel_versions, and the tasks' pending writes. Values are bytes as the
// saver's serde wrote them; this layer never decodes them. Rows are keyed by
// digests of (tenant, thread, namespace), the lane, and of (tenant, thread), so
// that ids of any length fit the keys and one tenant's threads are never another's.
// Reads and puts are SQL (langgraph-statements.ts), run on the driver where
// the store's fast paths run, as Prisma's raw queries elsewhere.
import { createHash, randomInt } from 'node:crypto';
import { runPlan, type IntegrationStore, type ReadPlan, type SqlStatement as Statement } from '../../contract/index.js';
import { deltaOf, ValueBases } from './langgraph-deltas.js';
import type { BlobRow, CheckpointRow, LaneKey, WriteRow } from './langgraph-rows.js';
import { checkpointPlans, putStatements, writeStatements, type PutBlob, type RowKeys, type TupleRows } from './langgraph-statements.js';

/** Runs read plans in one snapshot (see LangGraphCheckpoints.read). */
export type Reads = <T>(plan: () => ReadPlan<T>) => Promise<T>;

/** The last keys digested: a step digests its thread's a few times over. Cleared when full. */
const digests = new Map<string, string>();
const MAX_DIGESTS = 1024;
const MAX_KEPT_LENGTH = 1024;
function digest(parts: unknown[]): string {
  const text = JSON.stringify(parts);
  const known = digests.get(text);
  if (known !== undefined) return known;
  const hex = createHash('sha256').update(text).digest('hex');
  // Ids of any length are keys: only short ones are kept.
  if (text.length <= MAX_KEPT_LENGTH) {
    if (digests.size >= MAX_DIGESTS) digests.clear();
    digests.set(text, hex);
  }
  return hex;
}

export class LangGraphCheckpoints {
  readonly #keys: RowKeys;
  /** The read plans on this view's rows. */
  readonly plans: ReturnType<typeof checkpointPlans>;

  /** Set: only this tenant's checkpoints exist, and new ones are written in it (`store` is scoped, see IntegrationStore.forTenant). */
  private readonly tenantId: string | undefined;

  constructor(
    private readonly store: IntegrationStore,
    /** LangGraph's channel of a task's sends, kept in its checkpoint's writes before checkpoint format 4. */
    sendsChannel: string,
    /** The values last written or read, which puts store deltas against (see langgraph-deltas.ts). */
    private readonly bases: ValueBases = new ValueBases(),
  ) {
    this.tenantId = store.tenantId;
    this.#keys = { lane: (key) => this.#lane(key), threadKey: (threadId) => this.#threadKey(threadId), tenantId: this.tenantId ?? null };
    this.plans = checkpointPlans(this.#keys, sendsChannel, (lane, channel) => this.bases.get(lane, channel));
  }

  /**
   * SQLite runs one write transaction at a time: a delta's base, found there by its put, cannot be
   * deleted before the put commits. Elsewhere a deleteThread racing the put could delete the base
   * and keep the delta, so values are stored whole.
   */
  get #deltas(): boolean {
    return this.store.database.serialWrites;
  }

  /**
   * Writes the checkpoint (replacing one of the same id in its lane) and the values of
   * `blobs`, its new channel versions: a version the lane holds already is kept as it is.
   * On SQLite a value that grew from the one last written or read is stored as a delta.
   * The values' bytes become the store's, held as the next put's bases: nobody may change them.
   */
  async put(row: CheckpointRow, blobs: BlobRow[]): Promise<void> {
    const lane = this.#lane(row);
    const rows = blobs.map((blob): PutBlob & { depth: number } => {
      const nonce = randomInt(1, 2 ** 47);
      const value = blob.value;
      const base = this.#deltas && value ? this.bases.get(lane, blob.channel) : undefined;
      const delta = base && value ? deltaOf(base, blob.version, value.bytes) : undefined;
      return { ...blob, value, nonce, ...(delta && { delta }), depth: delta ? base!.depth + 1 : 0 };
    });
    await this.store.writeAll(putStatements(this.store.database, this.#keys, row, rows), { rows: blobs.length + 1 });
    // A version the lane held already keeps its row and nonce: a later delta on this one finds no base and is stored whole.
    for (const blob of rows) {
      if (blob.value) this.bases.set(lane, blob.channel, { version: blob.version, nonce: blob.nonce, bytes: blob.value.bytes, depth: blob.depth });
    }
  }

  /**
   * Writes pending writes against a checkpoint, all or none. A write at a negative idx (a special
   * channel's) replaces the one held at its (task, idx); any other is kept when one is held there.
   */
  async putWrites(key: LaneKey, checkpointId: string, writes: WriteRow[]): Promise<void> {
    if (writes.length === 0) return;
    const lane = this.#lane(key);
    const at = (write: Pick<WriteRow, 'taskId' | 'idx'>) => JSON.stringify([write.taskId, write.idx]);
    await this.store.write(
      async (tx) => {
        const run = async (statements: Statement[]) => {
          const rows = [];
          for (const { text, args } of statements) rows.push(...(await tx.query(text, args)));
          return rows;
        };
        const replaced = writes.filter((write) => write.idx < 0);
        for (const { text, args } of writeStatements.deleted(lane, checkpointId, replaced)) await tx.execute(text, args);
        const kept = writes.filter((write) => write.idx >= 0);
        const held = new Set(
          (await run(writeStatements.held(lane, checkpointId, kept))).map(([taskId, idx]) => at({ taskId: String(taskId), idx: Number(idx) })),
        );
        // Within the batch, the last write at a special channel's place and the first at any other.
        const last = new Map(replaced.map((write) => [at(write), write]));
        const fresh = writes.filter((write) => (write.idx < 0 ? last.get(at(write)) === write : !held.has(at(write)) && held.add(at(write))));
        for (const { text, args } of writeStatements.inserted(this.store.database, this.#keys, key, checkpointId, fresh)) await tx.execute(text, args);
      },
      { rows: writes.length },
    );
  }

  /**
   * Deletes the thread's checkpoints, values and writes in every namespace, atomically. At
   * RepeatableRead, where writes run at ReadCommitted: a put committed between two of the DELETEs
   * would otherwise lose its checkpoint and keep its values (which a later put of the same version
   * would then read). PostgreSQL's three DELETEs see one snapshot (the put is kept whole, or it
   * conflicts and the delete runs again); MariaDB's lock the thread's key ranges, gaps included.
   */
  async deleteThread(threadId: string): Promise<void> {
    const statements = writeStatements.threadDeleted(this.#threadKey(threadId));
    await this.store.write(
      async (tx) => {
        for (const { text, args } of statements) await tx.execute(text, args);
      },
      { snapshot: true },
    );
  }

  /**
   * The checkpoint `checkpointId` of the lane (its newest when absent) and the rest of its tuple, in one snapshot; null when there is none.
   * Its values' bytes are the store's, held as the next put's bases (and given to later reads): nobody may change them.
   */
  async tuple(key: LaneKey, checkpointId?: string): Promise<TupleRows | null> {
    const rows = await this.store.readPlan(() => this.plans.tuple(key, checkpointId));
    const lane = this.#lane(key);
    for (const blob of rows?.blobs ?? []) {
      if (!blob.value || blob.nonce === null) continue;
      const held = this.bases.get(lane, blob.channel);
      // The same row's value (its nonce says so): held already.
      if (held?.version === blob.version && held.nonce === blob.nonce) continue;
      this.bases.set(lane, blob.channel, { version: blob.version, nonce: blob.nonce, bytes: blob.value.bytes, depth: blob.depth });
    }
    return rows;
  }

  /** Runs `work`'s read plans in one snapshot. */
  read<T>(work: (reads: Reads) => Promise<T>): Promise<T> {
    return this.store.read((tx) => work((plan) => runPlan(plan(), tx.query)));
  }

  #lane(key: LaneKey): string {
    return digest([this.tenantId ?? null, key.threadId, key.checkpointNs]);
  }

  #threadKey(threadId: string): string {
    return digest([this.tenantId ?? null, threadId]);
  }
}
