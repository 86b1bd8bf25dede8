// LangGraph's checkpoints in SQL, one spelling for every path: the reads as
// plans (databases/adapter-transactions.ts: synchronous on SQLite's own
// connection, an await between statements elsewhere, Prisma's raw queries where
// the store cannot reach the driver) and the put as statements run all or nothing.
import type { ReadPlan, Statement, Value } from '../databases/adapter-transactions.js';
import type { Dialect } from '../databases/provider-kit.js';
import type { Row } from '../databases/adapter-statement.js';
import { insertRuns } from './insert-runs.js';
import type { BlobRow, CheckpointQuery, CheckpointRow, LaneKey, WriteRow } from './langgraph-checkpoints.js';

/** How LangGraphCheckpoints keys its rows: digests of (tenant, thread, namespace) and of (tenant, thread). */
export interface RowKeys {
  lane(key: LaneKey): string;
  threadKey(threadId: string): string;
  tenantId: string | null;
}

/** What a checkpoint's tuple is made of, read in one snapshot. */
export interface TupleRows {
  row: CheckpointRow;
  /** Its channels' values at its versions (those stored); null when the row does not name its versions (written before channel_versions). */
  blobs: BlobRow[] | null;
  /** The pending writes against it. */
  writes: WriteRow[];
  /** Its parent's writes to `sendsChannel` (the sends of checkpoints before format 4). */
  sends: WriteRow[];
}

const EMPTY = 'empty';
const CHECKPOINT_COLUMNS = 'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_data, checkpoint_type, metadata, metadata_type, channel_versions';
/** Channel versions one statement asks for: far below SQLite's 1,000 terms of an expression and any database's bound values. */
const MAX_VERSIONS_PER_READ = 200;
const WRITE_COLUMNS = 'checkpoint_id, task_id, task_path, idx, channel_name, payload_type, payload';
const BLOB_COLUMNS = ['lane', 'channel_name', 'channel_version', 'thread_key', 'payload_type', 'payload'];
const CHECKPOINT_KEY = ['thread_key', 'lane', 'checkpoint_id'];
const BLOB_KEY = ['thread_key', 'lane', 'channel_name', 'channel_version'];
/** A lane's rows: a range of the checkpoints' and values' keys, which lead with the thread's. */
const IN_LANE = 'thread_key = ? AND lane = ?';
const CHECKPOINT_DATA = ['parent_checkpoint_id', 'checkpoint_data', 'checkpoint_type', 'metadata', 'metadata_type', 'channel_versions'];

/** A blob column as the driver gives it (a Buffer, a Uint8Array, or an array of bytes), in an ArrayBuffer of its own (copied only when shared). */
function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? new Uint8Array(value.buffer) : new Uint8Array(value);
  if (Array.isArray(value)) return Uint8Array.from(value);
  throw new TypeError(`a blob column came back as ${typeof value}`);
}

const text = (value: unknown) => (value === null ? null : String(value));

function checkpointOf(row: Row): CheckpointRow {
  const [threadId, checkpointNs, checkpointId, parentCheckpointId, checkpoint, checkpointType, metadata, metadataType, versions] = row;
  return {
    threadId: String(threadId),
    checkpointNs: String(checkpointNs),
    checkpointId: String(checkpointId),
    parentCheckpointId: text(parentCheckpointId),
    checkpoint: { type: String(checkpointType), bytes: bytesOf(checkpoint) },
    metadata: { type: String(metadataType), bytes: bytesOf(metadata) },
    versions: versions === null ? null : (JSON.parse(String(versions)) as Record<string, string>),
  };
}

function writeOf([, taskId, taskPath, idx, channel, type, payload]: Row): WriteRow {
  return { taskId: String(taskId), taskPath: String(taskPath), idx: Number(idx), channel: String(channel), value: { type: String(type), bytes: bytesOf(payload) } };
}

/** The reads of LangGraphCheckpoints on the rows of `keys`, as plans. */
export function checkpointPlans(keys: RowKeys, sendsChannel: string) {
  const inLane = (key: LaneKey): Value[] => [keys.threadKey(key.threadId), keys.lane(key)];

  /** The checkpoint `checkpointId` of the lane, or its newest when absent; null when there is none. */
  function* checkpoint(key: LaneKey, checkpointId?: string): ReadPlan<CheckpointRow | null> {
    const [row] =
      checkpointId === undefined
        ? yield { text: `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${IN_LANE} ORDER BY checkpoint_id DESC LIMIT 1`, args: inLane(key) }
        : yield { text: `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${IN_LANE} AND checkpoint_id = ?`, args: [...inLane(key), checkpointId] };
    return row === undefined ? null : checkpointOf(row);
  }

  /** The checkpoints that match, newest (greatest id) first, `take` of them at most. */
  function* checkpoints(query: CheckpointQuery, take?: number): ReadPlan<CheckpointRow[]> {
    const where: string[] = [keys.tenantId === null ? 'tenant_id IS NULL' : 'tenant_id = ?'];
    const args: Value[] = keys.tenantId === null ? [] : [keys.tenantId];
    const condition = (sql: string, value: Value) => (where.push(sql), args.push(value));
    if (query.threadId !== undefined) {
      condition('thread_key = ?', keys.threadKey(query.threadId));
      if (query.checkpointNs !== undefined) condition('lane = ?', keys.lane({ threadId: query.threadId, checkpointNs: query.checkpointNs }));
    } else if (query.checkpointNs !== undefined) {
      condition('checkpoint_ns = ?', query.checkpointNs);
    }
    if (query.checkpointId !== undefined) condition('checkpoint_id = ?', query.checkpointId);
    if (query.before !== undefined) condition('checkpoint_id < ?', query.before);
    const limit = take === undefined ? '' : ' LIMIT ?';
    if (take !== undefined) args.push(take);
    const rows = yield { text: `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${where.join(' AND ')} ORDER BY checkpoint_id DESC, lane ASC${limit}`, args };
    return rows.map(checkpointOf);
  }

  /** The lane's values of these channel versions (those stored). */
  function* blobs(key: LaneKey, versions: Record<string, string>): ReadPlan<BlobRow[]> {
    const wanted = Object.entries(versions);
    const rows: Row[] = [];
    // SQLite refuses an expression of more than 1,000 terms: a wide checkpoint's values are read in several statements.
    for (let at = 0; at < wanted.length; at += MAX_VERSIONS_PER_READ) {
      const some = wanted.slice(at, at + MAX_VERSIONS_PER_READ);
      rows.push(
        ...(yield {
          text: `SELECT channel_name, channel_version, payload_type, payload FROM agent_lg_blob WHERE ${IN_LANE} AND (${some.map(() => '(channel_name = ? AND channel_version = ?)').join(' OR ')})`,
          args: [...inLane(key), ...some.flat()],
        }),
      );
    }
    return rows.map(([channel, version, type, payload]): BlobRow => ({
      channel: String(channel),
      version: String(version),
      value: type === EMPTY || payload === null ? null : { type: String(type), bytes: bytesOf(payload) },
    }));
  }

  /** The rest of `row`'s tuple: its values (when the row names its versions), its pending writes and its parent's sends. */
  function* rest(row: CheckpointRow): ReadPlan<Omit<TupleRows, 'row'>> {
    const key = { threadId: row.threadId, checkpointNs: row.checkpointNs };
    const values = row.versions === null ? null : yield* blobs(key, row.versions);
    const parent = row.parentCheckpointId;
    // Two lookups on the key, one statement: an OR of them would scan the lane's writes.
    const lane = keys.lane(key);
    const ofParent = parent !== null && parent !== row.checkpointId;
    const rows = yield {
      text: `SELECT ${WRITE_COLUMNS} FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ?${ofParent ? ` UNION ALL SELECT ${WRITE_COLUMNS} FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ? AND channel_name = ?` : ''}`,
      args: [lane, row.checkpointId, ...(ofParent ? [lane, parent, sendsChannel] : [])],
    };
    return {
      blobs: values,
      writes: rows.filter((write) => String(write[0]) === row.checkpointId).map(writeOf),
      sends: rows.filter((write) => String(write[0]) === parent && String(write[4]) === sendsChannel).map(writeOf),
    };
  }

  /** The checkpoint `checkpointId` of the lane (its newest when absent) and the rest of its tuple; null when there is none. */
  function* tuple(key: LaneKey, checkpointId?: string): ReadPlan<TupleRows | null> {
    const row = yield* checkpoint(key, checkpointId);
    return row === null ? null : { row, ...(yield* rest(row)) };
  }

  return { checkpoints, blobs, rest, tuple };
}

/**
 * The put of LangGraphCheckpoints, to run all or nothing: the values of `blobs` (a version the lane
 * holds is kept), then the checkpoint (one of the same id in the lane replaced). Long lists of values
 * go in several INSERTs.
 */
export function putStatements(dialect: Dialect, keys: RowKeys, row: CheckpointRow, blobs: BlobRow[]): Statement[] {
  const lane = keys.lane(row);
  const threadKey = keys.threadKey(row.threadId);
  const values = blobs.map((blob): Value[] => [lane, blob.channel, blob.version, threadKey, blob.value?.type ?? EMPTY, blob.value?.bytes ?? null]);
  const placeholders = `(${BLOB_COLUMNS.map(() => '?').join(', ')})`;
  const statements = insertRuns(values, (blob) => (blob[5] as Uint8Array | null)?.byteLength ?? 0)
    .filter((chunk) => chunk.length > 0)
    .map((chunk) => ({
      text: `INSERT INTO agent_lg_blob (${BLOB_COLUMNS.join(', ')}) VALUES ${chunk.map(() => placeholders).join(', ')} ${dialect.onConflict(BLOB_KEY, [])}`,
      args: chunk.flat(),
    }));
  statements.push({
    text: `INSERT INTO agent_lg_checkpoint (lane, checkpoint_id, thread_key, tenant_id, thread_id, checkpoint_ns, ${CHECKPOINT_DATA.join(', ')}, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${dialect.onConflict(CHECKPOINT_KEY, CHECKPOINT_DATA)}`,
    args: [
      lane,
      row.checkpointId,
      threadKey,
      keys.tenantId,
      row.threadId,
      row.checkpointNs,
      row.parentCheckpointId,
      row.checkpoint.bytes,
      row.checkpoint.type,
      row.metadata.bytes,
      row.metadata.type,
      row.versions === null ? null : JSON.stringify(row.versions),
      new Date(),
    ],
  });
  return statements;
}
