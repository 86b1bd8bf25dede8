// LangGraph's checkpoints in SQL straight on the driver (see
// databases/adapter-transactions.ts): the reads and the put of
// langgraph-checkpoints.ts without the Prisma client in between, on the same rows.
import type { Run, Statement, Value } from '../databases/adapter-transactions.js';
import type { Dialect } from '../databases/provider-kit.js';
import type { Row } from '../databases/adapter-statement.js';
import { insertRuns } from './insert-runs.js';
import type { BlobRow, CheckpointReader, CheckpointRow, LaneKey } from './langgraph-checkpoints.js';

/** How LangGraphCheckpoints keys its rows: digests of (tenant, thread, namespace) and of (tenant, thread). */
export interface RowKeys {
  lane(key: LaneKey): string;
  threadKey(threadId: string): string;
  tenantId: string | null;
}

const EMPTY = 'empty';
const CHECKPOINT_COLUMNS = 'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_data, checkpoint_type, metadata, metadata_type';
const BLOB_COLUMNS = ['lane', 'channel_name', 'channel_version', 'thread_key', 'payload_type', 'payload'];
const CHECKPOINT_KEY = ['lane', 'checkpoint_id'];
const CHECKPOINT_DATA = ['parent_checkpoint_id', 'checkpoint_data', 'checkpoint_type', 'metadata', 'metadata_type'];

/** A blob column as the adapter gives it (a Buffer, or an array of bytes), in an ArrayBuffer of its own. */
function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return Uint8Array.from(value);
  throw new TypeError(`a blob column came back as ${typeof value}`);
}

const text = (value: unknown) => (value === null ? null : String(value));

function checkpointOf(row: Row): CheckpointRow {
  const [threadId, checkpointNs, checkpointId, parentCheckpointId, checkpoint, checkpointType, metadata, metadataType] = row;
  return {
    threadId: String(threadId),
    checkpointNs: String(checkpointNs),
    checkpointId: String(checkpointId),
    parentCheckpointId: text(parentCheckpointId),
    checkpoint: { type: String(checkpointType), bytes: bytesOf(checkpoint) },
    metadata: { type: String(metadataType), bytes: bytesOf(metadata) },
  };
}

/** The reads of CheckpointReader on one transaction's statements. */
export function statementReader(run: Run, keys: RowKeys): CheckpointReader {
  return {
    async checkpoint(key, checkpointId) {
      const [row] =
        checkpointId === undefined
          ? await run(`SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE lane = ? ORDER BY checkpoint_id DESC LIMIT 1`, [keys.lane(key)])
          : await run(`SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE lane = ? AND checkpoint_id = ?`, [keys.lane(key), checkpointId]);
      return row === undefined ? null : checkpointOf(row);
    },

    async checkpoints(query, take) {
      const where: string[] = [keys.tenantId === null ? 'tenant_id IS NULL' : 'tenant_id = ?'];
      const args: Value[] = keys.tenantId === null ? [] : [keys.tenantId];
      const condition = (sql: string, value: Value) => (where.push(sql), args.push(value));
      if (query.threadId !== undefined) {
        if (query.checkpointNs !== undefined) condition('lane = ?', keys.lane({ threadId: query.threadId, checkpointNs: query.checkpointNs }));
        else condition('thread_key = ?', keys.threadKey(query.threadId));
      } else if (query.checkpointNs !== undefined) {
        condition('checkpoint_ns = ?', query.checkpointNs);
      }
      if (query.checkpointId !== undefined) condition('checkpoint_id = ?', query.checkpointId);
      if (query.before !== undefined) condition('checkpoint_id < ?', query.before);
      const limit = take === undefined ? '' : ' LIMIT ?';
      if (take !== undefined) args.push(take);
      const rows = await run(`SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${where.join(' AND ')} ORDER BY checkpoint_id DESC, lane ASC${limit}`, args);
      return rows.map(checkpointOf);
    },

    async blobs(key, versions) {
      const wanted = Object.entries(versions);
      if (wanted.length === 0) return [];
      const rows = await run(
        `SELECT channel_name, channel_version, payload_type, payload FROM agent_lg_blob WHERE lane = ? AND (${wanted.map(() => '(channel_name = ? AND channel_version = ?)').join(' OR ')})`,
        [keys.lane(key), ...wanted.flat()],
      );
      return rows.map(([channel, version, type, payload]): BlobRow => ({
        channel: String(channel),
        version: String(version),
        value: type === EMPTY || payload === null ? null : { type: String(type), bytes: bytesOf(payload) },
      }));
    },

    async writes(key, checkpointId, channel) {
      const rows = await run(
        `SELECT task_id, task_path, idx, channel_name, payload_type, payload FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ?${channel === undefined ? '' : ' AND channel_name = ?'}`,
        [keys.lane(key), checkpointId, ...(channel === undefined ? [] : [channel])],
      );
      return rows.map(([taskId, taskPath, idx, name, type, payload]) => ({
        taskId: String(taskId),
        taskPath: String(taskPath),
        idx: Number(idx),
        channel: String(name),
        value: { type: String(type), bytes: bytesOf(payload) },
      }));
    },
  };
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
      text: `INSERT INTO agent_lg_blob (${BLOB_COLUMNS.join(', ')}) VALUES ${chunk.map(() => placeholders).join(', ')} ${dialect.onConflict(['lane', 'channel_name', 'channel_version'], [])}`,
      args: chunk.flat(),
    }));
  statements.push({
    text: `INSERT INTO agent_lg_checkpoint (lane, checkpoint_id, thread_key, tenant_id, thread_id, checkpoint_ns, ${CHECKPOINT_DATA.join(', ')}, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${dialect.onConflict(CHECKPOINT_KEY, CHECKPOINT_DATA)}`,
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
      new Date(),
    ],
  });
  return statements;
}
