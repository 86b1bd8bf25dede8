// LangGraph checkpoints (nestjs-agent-store/langgraph), laid out as LangGraph's
// PostgreSQL saver lays them out: a checkpoint row without its channel values,
// each channel's value stored once per version (by the checkpoint whose
// newVersions brought it) and read back through the checkpoint's
// channel_versions, and the tasks' pending writes. Values are bytes as the
// saver's serde wrote them; this layer never decodes them. Rows are keyed by
// digests of (tenant, thread, namespace), the lane, and of (tenant, thread), so
// that ids of any length fit the keys and one tenant's threads are never another's.
// Reads and puts run as SQL on the driver where the store's fast paths run
// (langgraph-statements.ts), through Prisma elsewhere.
import { createHash } from 'node:crypto';
import type { StoreDatabase } from './database.js';
import { putStatements, statementReader, type RowKeys } from './langgraph-statements.js';
import type { StoreTx } from './store-client.js';

/** A value as the serde wrote it: its type and its bytes. */
export interface Typed {
  type: string;
  bytes: Uint8Array;
}

/** Where a checkpoint lives: its thread and namespace. */
export interface LaneKey {
  threadId: string;
  checkpointNs: string;
}

export interface CheckpointRow extends LaneKey {
  checkpointId: string;
  parentCheckpointId: string | null;
  checkpoint: Typed;
  metadata: Typed;
}

/** A channel's value at a version; `value` null for "empty" (the channel was versioned without a value). */
export interface BlobRow {
  channel: string;
  version: string;
  value: Typed | null;
}

export interface WriteRow {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: Typed;
}

export interface CheckpointQuery {
  /** Absent: every thread (of the tenant). */
  threadId?: string;
  /** Absent: every namespace. */
  checkpointNs?: string;
  /** Only this checkpoint. */
  checkpointId?: string;
  /** Only checkpoints whose id sorts before this one. */
  before?: string;
}

/** The reads of one snapshot (see LangGraphCheckpoints.read). */
export interface CheckpointReader {
  /** The checkpoint `checkpointId` of the lane, or its newest when absent; null when there is none. */
  checkpoint(key: LaneKey, checkpointId?: string): Promise<CheckpointRow | null>;
  /** The checkpoints that match, newest (greatest id) first, `take` of them at most. */
  checkpoints(query: CheckpointQuery, take?: number): Promise<CheckpointRow[]>;
  /** The lane's values of these channel versions (those stored). */
  blobs(key: LaneKey, versions: Record<string, string>): Promise<BlobRow[]>;
  /** The pending writes against a checkpoint, of `channel` only when given, in no particular order. */
  writes(key: LaneKey, checkpointId: string, channel?: string): Promise<WriteRow[]>;
}

const EMPTY = 'empty';
const digest = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
/** The bytes in an ArrayBuffer of their own, as Prisma takes them. */
const own = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);
const typed = (type: string, bytes: Uint8Array | null): Typed | null => (type === EMPTY || bytes === null ? null : { type, bytes: new Uint8Array(bytes) });

export class LangGraphCheckpoints {
  constructor(
    private readonly db: StoreDatabase,
    /** Set: only this tenant's checkpoints exist, and new ones are written in it. */
    private readonly tenantId?: string,
  ) {}

  /**
   * Two writers may both find a value or write missing and insert it (a retried task, two puts
   * bringing one version): the second's insert skips what the first stored. SQLite has no such
   * option, and runs one write transaction at a time, so its check cannot be raced.
   */
  get #skipDuplicates(): object {
    return this.db.kit.provider === 'sqlite' ? {} : { skipDuplicates: true };
  }

  /**
   * Writes the checkpoint (replacing one of the same id in its lane) and the values of
   * `blobs`, its new channel versions: a version the lane holds already is kept as it is.
   */
  async put(row: CheckpointRow, blobs: BlobRow[]): Promise<void> {
    const fast = await this.db.fastPaths();
    if (fast?.writeAll) return fast.writeAll(putStatements(this.db.kit.dialect, this.#keys, row, blobs));
    const lane = this.#lane(row);
    const threadKey = this.#threadKey(row.threadId);
    await this.db.write(async (tx) => {
      if (blobs.length > 0) {
        const held = await tx.prisma.agentLgBlob.findMany({ where: { lane, OR: blobs.map(({ channel, version }) => ({ channel, version })) }, select: { channel: true, version: true } });
        const known = new Set(held.map((blob) => JSON.stringify([blob.channel, blob.version])));
        const fresh = blobs.filter((blob) => !known.has(JSON.stringify([blob.channel, blob.version])));
        if (fresh.length > 0) {
          await tx.prisma.agentLgBlob.createMany({
            ...this.#skipDuplicates,
            data: fresh.map((blob) => ({ lane, threadKey, channel: blob.channel, version: blob.version, valueType: blob.value?.type ?? EMPTY, value: blob.value ? own(blob.value.bytes) : null })),
          });
        }
      }
      const data = {
        parentCheckpointId: row.parentCheckpointId,
        checkpoint: own(row.checkpoint.bytes),
        checkpointType: row.checkpoint.type,
        metadata: own(row.metadata.bytes),
        metadataType: row.metadata.type,
      };
      await tx.prisma.agentLgCheckpoint.upsert({
        where: { lane_checkpointId: { lane, checkpointId: row.checkpointId } },
        create: { lane, checkpointId: row.checkpointId, threadKey, tenantId: this.tenantId ?? null, threadId: row.threadId, checkpointNs: row.checkpointNs, ...data },
        update: data,
      });
    }, blobs.length + 1);
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
        kept.length === 0 ? [] : (await tx.prisma.agentLgWrite.findMany({ where: { lane, checkpointId, OR: kept }, select: { taskId: true, idx: true } })).map(at),
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
          taskPath: write.taskPath,
          channel: write.channel,
          valueType: write.value.type,
          value: own(write.value.bytes),
        })),
      });
    }, writes.length);
  }

  /** Deletes the thread's checkpoints, values and writes in every namespace, atomically. */
  async deleteThread(threadId: string): Promise<void> {
    const threadKey = this.#threadKey(threadId);
    await this.db.write(async (tx) => {
      await tx.prisma.agentLgWrite.deleteMany({ where: { threadKey } });
      await tx.prisma.agentLgBlob.deleteMany({ where: { threadKey } });
      await tx.prisma.agentLgCheckpoint.deleteMany({ where: { threadKey } });
    });
  }

  /** Runs `work`'s reads in one snapshot. */
  async read<T>(work: (reader: CheckpointReader) => Promise<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    if (fast?.transaction) return fast.transaction(false, (run) => work(statementReader(run, this.#keys)));
    return this.db.read((tx) => work(this.#reader(tx)));
  }

  /** The keys of this view's rows, for the statements on the driver. */
  get #keys(): RowKeys {
    return { lane: (key) => this.#lane(key), threadKey: (threadId) => this.#threadKey(threadId), tenantId: this.tenantId ?? null };
  }

  #reader(tx: StoreTx): CheckpointReader {
    const select = {
      threadId: true,
      checkpointNs: true,
      checkpointId: true,
      parentCheckpointId: true,
      checkpoint: true,
      checkpointType: true,
      metadata: true,
      metadataType: true,
    } as const;
    type Selected = { threadId: string; checkpointNs: string; checkpointId: string; parentCheckpointId: string | null; checkpoint: Uint8Array; checkpointType: string; metadata: Uint8Array; metadataType: string };
    const rowOf = (row: Selected): CheckpointRow => ({
      threadId: row.threadId,
      checkpointNs: row.checkpointNs,
      checkpointId: row.checkpointId,
      parentCheckpointId: row.parentCheckpointId,
      checkpoint: { type: row.checkpointType, bytes: new Uint8Array(row.checkpoint) },
      metadata: { type: row.metadataType, bytes: new Uint8Array(row.metadata) },
    });
    return {
      checkpoint: async (key, checkpointId) => {
        const lane = this.#lane(key);
        const row = checkpointId === undefined
          ? await tx.prisma.agentLgCheckpoint.findFirst({ where: { lane }, orderBy: { checkpointId: 'desc' }, select })
          : await tx.prisma.agentLgCheckpoint.findUnique({ where: { lane_checkpointId: { lane, checkpointId } }, select });
        return row && rowOf(row);
      },
      checkpoints: async (query, take) => {
        const rows = await tx.prisma.agentLgCheckpoint.findMany({
          where: {
            tenantId: this.tenantId ?? null,
            ...(query.threadId !== undefined && (query.checkpointNs !== undefined ? { lane: this.#lane({ threadId: query.threadId, checkpointNs: query.checkpointNs }) } : { threadKey: this.#threadKey(query.threadId) })),
            ...(query.threadId === undefined && query.checkpointNs !== undefined && { checkpointNs: query.checkpointNs }),
            ...((query.checkpointId !== undefined || query.before !== undefined) && {
              checkpointId: { ...(query.checkpointId !== undefined && { equals: query.checkpointId }), ...(query.before !== undefined && { lt: query.before }) },
            }),
          },
          orderBy: [{ checkpointId: 'desc' }, { lane: 'asc' }],
          ...(take !== undefined && { take }),
          select,
        });
        return rows.map(rowOf);
      },
      blobs: async (key, versions) => {
        const wanted = Object.entries(versions).map(([channel, version]) => ({ channel, version }));
        if (wanted.length === 0) return [];
        const rows = await tx.prisma.agentLgBlob.findMany({ where: { lane: this.#lane(key), OR: wanted }, select: { channel: true, version: true, valueType: true, value: true } });
        return rows.map((row) => ({ channel: row.channel, version: row.version, value: typed(row.valueType, row.value) }));
      },
      writes: async (key, checkpointId, channel) => {
        const rows = await tx.prisma.agentLgWrite.findMany({
          where: { lane: this.#lane(key), checkpointId, ...(channel !== undefined && { channel }) },
          select: { taskId: true, taskPath: true, idx: true, channel: true, valueType: true, value: true },
        });
        return rows.map((row) => ({ taskId: row.taskId, taskPath: row.taskPath, idx: row.idx, channel: row.channel, value: { type: row.valueType, bytes: new Uint8Array(row.value) } }));
      },
    };
  }

  #lane(key: LaneKey): string {
    return digest([this.tenantId ?? null, key.threadId, key.checkpointNs]);
  }

  #threadKey(threadId: string): string {
    return digest([this.tenantId ?? null, threadId]);
  }
}
