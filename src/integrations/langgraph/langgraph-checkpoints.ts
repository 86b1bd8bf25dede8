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
import type { StoreDatabase } from '../../engine/database.js';
import { runPlan } from '../../engine/adapter-transactions.js';
import type { ReadPlan, Run, Statement } from '../../engine/adapter-statement.js';
import type { ProviderKit } from '../../engine/provider-kit.js';
import { spelled } from '../../engine/adapter-statement.js';
import { deltaOf, ValueBases } from './langgraph-deltas.js';
import type { BlobRow, CheckpointRow, LaneKey, WriteRow } from './langgraph-rows.js';
import { checkpointPlans, putStatements, type PutBlob, type RowKeys, type TupleRows } from './langgraph-statements.js';

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
/** The bytes in an ArrayBuffer of their own, as Prisma takes them. */
const own = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

export class LangGraphCheckpoints {
  readonly #keys: RowKeys;
  /** The read plans on this view's rows. */
  readonly plans: ReturnType<typeof checkpointPlans>;

  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's checkpoints exist, and new ones are written in it. */
    private readonly tenantId: string | undefined,
    /** LangGraph's channel of a task's sends, kept in its checkpoint's writes before checkpoint format 4. */
    sendsChannel: string,
    /** The values last written or read, which puts store deltas against (see langgraph-deltas.ts). */
    private readonly bases: ValueBases = new ValueBases(),
  ) {
    this.#keys = { lane: (key) => this.#lane(key), threadKey: (threadId) => this.#threadKey(threadId), tenantId: tenantId ?? null };
    this.plans = checkpointPlans(this.#keys, sendsChannel, (lane, channel) => this.bases.get(lane, channel));
  }

  /**
   * Two writers may both find a write missing and insert it (a retried task): the second's insert
   * skips what the first stored. SQLite has no such option, and runs one write transaction at a
   * time, so its check cannot be raced.
   */
  get #skipDuplicates(): object {
    return this.db.kit.serialWrites ? {} : { skipDuplicates: true };
  }

  /**
   * SQLite runs one write transaction at a time: a delta's base, found there by its put, cannot be
   * deleted before the put commits. Elsewhere a deleteThread racing the put could delete the base
   * and keep the delta, so values are stored whole.
   */
  get #deltas(): boolean {
    return this.db.kit.serialWrites;
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
    const statements = putStatements(this.db.kit.dialect, this.#keys, row, rows);
    const fast = await this.db.fastPaths();
    if (fast?.writeAll) await fast.writeAll(statements);
    else
      await this.db.write(async (tx) => {
        for (const statement of statements) await tx.prisma.$executeRawUnsafe(...rawQuery(this.db.kit, statement));
      }, blobs.length + 1);
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
    const threadKey = this.#threadKey(key.threadId);
    const at = (write: { taskId: string; idx: number }) => JSON.stringify([write.taskId, write.idx]);
    await this.db.write(async (tx) => {
      const replaced = writes.filter((write) => write.idx < 0).map(({ taskId, idx }) => ({ taskId, idx }));
      if (replaced.length > 0) await tx.prisma.agentLgWrite.deleteMany({ where: { lane, checkpointId, OR: replaced } });
      const kept = writes.filter((write) => write.idx >= 0).map(({ taskId, idx }) => ({ taskId, idx }));
      const held = new Set(
        kept.length === 0
          ? []
          : (await tx.prisma.agentLgWrite.findMany({ where: { lane, checkpointId, OR: kept }, select: { taskId: true, idx: true } })).map(at),
      );
      // Within the batch, the last write at a special channel's place and the first at any other.
      const last = new Map(writes.filter((write) => write.idx < 0).map((write) => [at(write), write]));
      const fresh = writes.filter((write) => (write.idx < 0 ? last.get(at(write)) === write : !held.has(at(write)) && held.add(at(write))));
      if (fresh.length === 0) return;
      await tx.prisma.agentLgWrite.createMany({
        ...this.#skipDuplicates,
        data: fresh.map((write) => ({
          lane,
          checkpointId,
          taskId: write.taskId,
          idx: write.idx,
          threadKey,
          tenantId: this.tenantId ?? null,
          taskPath: write.taskPath,
          channel: write.channel,
          valueType: write.value.type,
          value: own(write.value.bytes),
        })),
      });
    }, writes.length);
  }

  /**
   * Deletes the thread's checkpoints, values and writes in every namespace, atomically. At
   * RepeatableRead, where writes run at ReadCommitted: a put committed between two of the DELETEs
   * would otherwise lose its checkpoint and keep its values (which a later put of the same version
   * would then read). PostgreSQL's three DELETEs see one snapshot (the put is kept whole, or it
   * conflicts and the delete runs again); MariaDB's lock the thread's key ranges, gaps included.
   */
  async deleteThread(threadId: string): Promise<void> {
    const threadKey = this.#threadKey(threadId);
    const level = this.db.kit.dialect.writeIsolation === 'ReadCommitted' ? 'RepeatableRead' : this.db.kit.dialect.writeIsolation;
    await this.db.write(
      async (tx) => {
        await tx.prisma.agentLgWrite.deleteMany({ where: { threadKey } });
        await tx.prisma.agentLgBlob.deleteMany({ where: { threadKey } });
        await tx.prisma.agentLgCheckpoint.deleteMany({ where: { threadKey } });
      },
      0,
      level,
    );
  }

  /**
   * The checkpoint `checkpointId` of the lane (its newest when absent) and the rest of its tuple, in one snapshot; null when there is none.
   * Its values' bytes are the store's, held as the next put's bases (and given to later reads): nobody may change them.
   */
  async tuple(key: LaneKey, checkpointId?: string): Promise<TupleRows | null> {
    const fast = await this.db.fastPaths();
    const plan = () => this.plans.tuple(key, checkpointId);
    const rows = await (fast?.readAll ? fast.readAll(plan) : this.read((reads) => reads(plan)));
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
  async read<T>(work: (reads: Reads) => Promise<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    const readsOn =
      (run: Run): Reads =>
      (plan) =>
        runPlan(plan(), run);
    if (fast?.transaction) return fast.transaction(false, (run) => work(readsOn(run)));
    return this.db.read((tx) =>
      work(
        readsOn(async (text, args) =>
          (await tx.prisma.$queryRawUnsafe<Record<string, unknown>[]>(...rawQuery(this.db.kit, { text, args }))).map(Object.values),
        ),
      ),
    );
  }

  #lane(key: LaneKey): string {
    return digest([this.tenantId ?? null, key.threadId, key.checkpointNs]);
  }

  #threadKey(threadId: string): string {
    return digest([this.tenantId ?? null, threadId]);
  }
}

/** A statement as Prisma's raw queries take it: its `?` spelled as the database's placeholders. */
function rawQuery(kit: ProviderKit, { text, args }: Statement): [string, ...unknown[]] {
  return [spelled(text, kit.dialect.placeholder), ...args];
}
