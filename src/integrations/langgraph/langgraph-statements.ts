// LangGraph's checkpoints in SQL, one spelling for every path: the reads as
// plans (IntegrationStore.readPlan: synchronous on SQLite's own connection, an
// await between statements elsewhere, Prisma's raw queries where the store
// cannot reach the driver) and the writes as statements run all or nothing.
import {
  insertRuns,
  type IntegrationDatabase,
  type ReadPlan,
  type SqlRow as Row,
  type SqlStatement as Statement,
  type SqlValue as Value,
} from '../../contract/index.js';
import { StoreDatabaseError } from '../../contract/index.js';
import type { BlobRow, CheckpointQuery, CheckpointRow, LaneKey, WriteRow } from './langgraph-rows.js';
import { MAX_DEPTH, rebuild, type Delta, type StoredPart, type ValueBase } from './langgraph-deltas.js';

/** How LangGraphCheckpoints keys its rows: digests of (tenant, thread, namespace) and of (tenant, thread). */
export interface RowKeys {
  lane(key: LaneKey): string;
  threadKey(threadId: string): string;
  tenantId: string | null;
}

/** A value as a read found it, rebuilt when stored as a delta: with its row's nonce (null in rows written before nonces) and its chain's depth. */
export interface ReadBlob extends BlobRow {
  nonce: number | null;
  depth: number;
}

/** A value as a put writes it: with its row's nonce, and as a delta when it has one. */
export interface PutBlob extends BlobRow {
  nonce: number;
  delta?: Delta;
}

/** What a checkpoint's tuple is made of, read in one snapshot. */
export interface TupleRows {
  row: CheckpointRow;
  /** Its channels' values at its versions (those stored); null when the row does not name its versions (written before channel_versions). */
  blobs: ReadBlob[] | null;
  /** The pending writes against it. */
  writes: WriteRow[];
  /** Its parent's writes to `sendsChannel` (the sends of checkpoints before format 4). */
  sends: WriteRow[];
}

const EMPTY = 'empty';
const EMPTY_BYTES = new Uint8Array(0);
const CHECKPOINT_COLUMNS =
  'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_data, checkpoint_type, metadata, metadata_type, channel_versions';
/** Channel versions one statement asks for: far below SQLite's 1,000 terms of an expression and any database's bound values. */
const MAX_VERSIONS_PER_READ = 200;
const WRITE_COLUMNS = 'checkpoint_id, task_id, task_path, idx, channel_name, payload_type, payload';
const BLOB_COLUMNS = ['lane', 'channel_name', 'channel_version', 'thread_key', 'payload_type', 'payload', 'nonce'];
const DELTA_COLUMNS = [...BLOB_COLUMNS, 'base_version', 'prefix_length'];
/** What a read of values takes of each row of their chains. */
const CHAIN_COLUMNS = ['channel_name', 'channel_version', 'payload_type', 'payload', 'base_version', 'prefix_length', 'nonce'];
const CHECKPOINT_KEY = ['thread_key', 'lane', 'checkpoint_id'];
const BLOB_KEY = ['thread_key', 'lane', 'channel_name', 'channel_version'];
/** A lane's rows: a range of the checkpoints' and values' keys, which lead with the thread's. */
const IN_LANE = 'thread_key = ? AND lane = ?';
const CHECKPOINT_DATA = ['parent_checkpoint_id', 'checkpoint_data', 'checkpoint_type', 'metadata', 'metadata_type', 'channel_versions'];

/**
 * The text `make` gives for `key` (in a dialect's SQL, or any), made once: a step's statements
 * are the same few texts each time, and the drivers' statement caches look them up by text.
 */
const texts = new WeakMap<object, Map<string, string>>();
const ANY_DIALECT = {};
function textOf(dialect: object, key: string, make: () => string): string {
  let known = texts.get(dialect);
  if (known === undefined) texts.set(dialect, (known = new Map()));
  let text = known.get(key);
  if (text === undefined) known.set(key, (text = make()));
  return text;
}
const LATEST_CHECKPOINT = `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${IN_LANE} ORDER BY checkpoint_id DESC LIMIT 1`;
const CHECKPOINT_BY_ID = `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${IN_LANE} AND checkpoint_id = ?`;
const WRITES = `SELECT ${WRITE_COLUMNS} FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ?`;
const WRITES_AND_PARENTS_SENDS = `${WRITES} UNION ALL SELECT ${WRITE_COLUMNS} FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ? AND channel_name = ?`;

/** A blob column as the driver gives it (a Buffer, a Uint8Array, or an array of bytes), in an ArrayBuffer of its own (copied only when shared). */
function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array)
    return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? new Uint8Array(value.buffer) : new Uint8Array(value);
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
  return {
    taskId: String(taskId),
    taskPath: String(taskPath),
    idx: Number(idx),
    channel: String(channel),
    value: { type: String(type), bytes: bytesOf(payload) },
  };
}

/** The reads of LangGraphCheckpoints on the rows of `keys`, as plans; `held` gives the values a read may take instead of their rows' payloads. */
export function checkpointPlans(keys: RowKeys, sendsChannel: string, held: (lane: string, channel: string) => ValueBase | undefined = () => undefined) {
  const inLane = (key: LaneKey): Value[] => [keys.threadKey(key.threadId), keys.lane(key)];

  /** The checkpoint `checkpointId` of the lane, or its newest when absent; null when there is none. */
  function* checkpoint(key: LaneKey, checkpointId?: string): ReadPlan<CheckpointRow | null> {
    const [row] =
      checkpointId === undefined
        ? yield { text: LATEST_CHECKPOINT, args: inLane(key) }
        : yield { text: CHECKPOINT_BY_ID, args: [...inLane(key), checkpointId] };
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
    const rows = yield {
      text: `SELECT ${CHECKPOINT_COLUMNS} FROM agent_lg_checkpoint WHERE ${where.join(' AND ')} ORDER BY checkpoint_id DESC, lane ASC${limit}`,
      args,
    };
    return rows.map(checkpointOf);
  }

  /** The lane's rows of these (channel, version) pairs, as stored; without their payload (null) where `held` says so. */
  function* rowsOf(key: LaneKey, pairs: [string, string][], held: (pair: [string, string]) => boolean = () => false): ReadPlan<Row[]> {
    const rows: Row[] = [];
    const select = (count: number, payload: string) =>
      `SELECT ${CHAIN_COLUMNS.map((column) => (column === 'payload' ? payload : column)).join(', ')} FROM agent_lg_blob WHERE ${IN_LANE} AND (${Array(count).fill('(channel_name = ? AND channel_version = ?)').join(' OR ')})`;
    const lane = inLane(key);
    // SQLite refuses an expression of more than 1,000 terms: many values are read in several statements.
    for (let at = 0; at < pairs.length; at += MAX_VERSIONS_PER_READ) {
      const some = pairs.slice(at, at + MAX_VERSIONS_PER_READ);
      const [whole, bare] = [some.filter((pair) => !held(pair)), some.filter(held)];
      // The rows read whole first: their payload column's type is the statement's.
      const text = textOf(ANY_DIALECT, `values ${whole.length} ${bare.length}`, () =>
        [whole.length > 0 && select(whole.length, 'payload'), bare.length > 0 && select(bare.length, 'NULL')].filter(Boolean).join(' UNION ALL '),
      );
      const args = [...(whole.length > 0 ? [...lane, ...whole.flat()] : []), ...(bare.length > 0 ? [...lane, ...bare.flat()] : [])];
      rows.push(...(yield { text, args }));
    }
    return rows;
  }

  /**
   * The lane's values of these channel versions (those stored), rebuilt from their delta chains. One
   * statement, unless a value is a delta (SQLite's puts write them): then one more for each level of
   * bases under the values. (A recursive join would read the chains in one, but carries every row
   * through a temporary table: slower than SQLite's lookups, which cost no round trip.) A value `held`
   * at the version is taken from there, its payload unread, when its row has the held nonce still.
   */
  function* blobs(key: LaneKey, versions: Record<string, string>): ReadPlan<ReadBlob[]> {
    const wanted = Object.entries(versions);
    const lane = keys.lane(key);
    const heldAt = (channel: string, version: string) => {
      const base = held(lane, channel);
      return base?.version === version ? base : undefined;
    };
    const pairKey = (channel: unknown, version: unknown) => JSON.stringify([String(channel), String(version)]);
    const listed = yield* rowsOf(key, wanted, ([channel, version]) => heldAt(channel, version) !== undefined);
    const found: ReadBlob[] = [];
    const unread: [string, string][] = [];
    const tops: Row[] = [];
    for (const row of listed) {
      const [channel, version, type, payload] = [String(row[0]), String(row[1]), String(row[2]), row[3]];
      const nonce = row[6] === null ? null : Number(row[6]);
      const base = heldAt(channel, version);
      if (type === EMPTY) found.push({ channel, version, value: null, nonce, depth: 0 });
      else if (payload !== null) tops.push(row);
      else if (base !== undefined && base.nonce === nonce) found.push({ channel, version, value: { type, bytes: base.bytes }, nonce, depth: base.depth });
      else unread.push([channel, version]);
    }
    if (unread.length > 0) tops.push(...(yield* rowsOf(key, unread)));
    const rows = [...tops];
    const asked = new Set(wanted.map(([channel, version]) => pairKey(channel, version)));
    // A chain the store wrote is at most MAX_DEPTH deep: a deeper one is read no further (and refused below).
    for (let level = tops, depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
      const bases = level
        .filter((row) => row[4] !== null && !asked.has(pairKey(row[0], row[4])))
        .map((row): [string, string] => [String(row[0]), String(row[4])]);
      for (const [channel, version] of bases) asked.add(pairKey(channel, version));
      level = bases.length === 0 ? [] : yield* rowsOf(key, bases);
      rows.push(...level);
    }
    const parts = new Map(rows.map((row) => [pairKey(row[0], row[1]), row]));
    const partOf = (row: Row): StoredPart => ({
      bytes: row[3] === null ? EMPTY_BYTES : bytesOf(row[3]),
      baseVersion: text(row[4]),
      prefixLength: row[5] === null ? null : Number(row[5]),
    });
    for (const row of tops) {
      const [channel, version] = [String(row[0]), String(row[1])];
      const value = rebuild(partOf(row), (base) => {
        const part = parts.get(pairKey(channel, base));
        return part && partOf(part);
      });
      if (value === undefined)
        throw new StoreDatabaseError(
          `the value of channel ${channel} at version ${version} is a delta whose chain is broken: a base is missing, shorter than the prefix taken from it, or more than ${MAX_DEPTH} deltas down`,
        );
      found.push({ channel, version, value: { type: String(row[2]), bytes: value.bytes }, nonce: row[6] === null ? null : Number(row[6]), depth: value.depth });
    }
    return found;
  }

  /** The rest of `row`'s tuple: its values (when the row names its versions), its pending writes and its parent's sends. */
  function* rest(row: CheckpointRow): ReadPlan<Omit<TupleRows, 'row'>> {
    const key = { threadId: row.threadId, checkpointNs: row.checkpointNs };
    const values = row.versions === null ? null : yield* blobs(key, row.versions);
    const parent = row.parentCheckpointId;
    // Two lookups on the key, one statement: an OR of them would scan the lane's writes.
    const lane = keys.lane(key);
    const ofParent = parent !== null && parent !== row.checkpointId;
    const rows = yield ofParent
      ? { text: WRITES_AND_PARENTS_SENDS, args: [lane, row.checkpointId, lane, parent, sendsChannel] }
      : { text: WRITES, args: [lane, row.checkpointId] };
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
 * holds is kept), then the checkpoint (one of the same id in the lane replaced). A delta is stored
 * as one only if its base is still there with the nonce it had; the whole value otherwise. Long
 * lists of whole values go in several INSERTs.
 */
export function putStatements(dialect: IntegrationDatabase, keys: RowKeys, row: CheckpointRow, blobs: PutBlob[]): Statement[] {
  const lane = keys.lane(row);
  const threadKey = keys.threadKey(row.threadId);
  const whole = (blob: PutBlob): Value[] => [lane, blob.channel, blob.version, threadKey, blob.value?.type ?? EMPTY, blob.value?.bytes ?? null, blob.nonce];
  const statements: Statement[] = blobs.flatMap(({ channel, version, value, nonce, delta }) =>
    delta === undefined || value === null
      ? []
      : [
          {
            text: textOf(
              dialect,
              'delta',
              () => `INSERT INTO agent_lg_blob (${DELTA_COLUMNS.join(', ')})
               SELECT ?, ?, ?, ?, ?, CASE WHEN based THEN ? ELSE ? END, ?, CASE WHEN based THEN ? END, CASE WHEN based THEN ? END
               FROM (SELECT EXISTS (SELECT 1 FROM agent_lg_blob WHERE ${IN_LANE} AND channel_name = ? AND channel_version = ? AND nonce = ?) AS based) base
               WHERE true ${dialect.onConflict(BLOB_KEY, [])}`,
            ),
            args: [
              lane,
              channel,
              version,
              threadKey,
              value.type,
              delta.tail,
              value.bytes,
              nonce,
              delta.baseVersion,
              delta.prefixLength,
              threadKey,
              lane,
              channel,
              delta.baseVersion,
              delta.baseNonce,
            ],
          },
        ],
  );
  const placeholders = `(${BLOB_COLUMNS.map(() => '?').join(', ')})`;
  const insert = (count: number) =>
    textOf(
      dialect,
      `values ${count}`,
      () => `INSERT INTO agent_lg_blob (${BLOB_COLUMNS.join(', ')}) VALUES ${Array(count).fill(placeholders).join(', ')} ${dialect.onConflict(BLOB_KEY, [])}`,
    );
  statements.push(
    ...insertRuns(blobs.filter((blob) => blob.delta === undefined || blob.value === null).map(whole), (blob) => (blob[5] as Uint8Array | null)?.byteLength ?? 0)
      .filter((chunk) => chunk.length > 0)
      .map((chunk) => ({ text: insert(chunk.length), args: chunk.flat() })),
  );
  statements.push({
    text: textOf(
      dialect,
      'checkpoint',
      () => `INSERT INTO agent_lg_checkpoint (lane, checkpoint_id, thread_key, tenant_id, thread_id, checkpoint_ns, ${CHECKPOINT_DATA.join(', ')}, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${dialect.onConflict(CHECKPOINT_KEY, CHECKPOINT_DATA)}`,
    ),
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

/** A pending write's place: its task and index. */
type Place = Pick<WriteRow, 'taskId' | 'idx'>;
const WRITE_KEY = ['lane', 'checkpoint_id', 'task_id', 'idx'];
const WRITE_ROW = ['lane', 'checkpoint_id', 'task_id', 'idx', 'thread_key', 'tenant_id', 'task_path', 'channel_name', 'payload_type', 'payload'];
/** Places per statement: two values each, far below any database's limit. */
const PLACES_PER_STATEMENT = 500;

/** `places` in runs of PLACES_PER_STATEMENT, each as a condition on (task_id, idx) with its arguments. */
function placesIn(places: Place[]): { condition: string; args: Value[] }[] {
  const runs: { condition: string; args: Value[] }[] = [];
  for (let at = 0; at < places.length; at += PLACES_PER_STATEMENT) {
    const run = places.slice(at, at + PLACES_PER_STATEMENT);
    runs.push({ condition: `(${run.map(() => '(task_id = ? AND idx = ?)').join(' OR ')})`, args: run.flatMap(({ taskId, idx }) => [taskId, idx]) });
  }
  return runs;
}

/** The statements on a checkpoint's pending writes (LangGraphCheckpoints.putWrites). */
export const writeStatements = {
  /** Reads which of `places` hold a write: rows of (task_id, idx). */
  held: (lane: string, checkpointId: string, places: Place[]): Statement[] =>
    placesIn(places).map(({ condition, args }) => ({
      text: `SELECT task_id, idx FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ? AND ${condition}`,
      args: [lane, checkpointId, ...args],
    })),

  /** Deletes the writes at `places`. */
  deleted: (lane: string, checkpointId: string, places: Place[]): Statement[] =>
    placesIn(places).map(({ condition, args }) => ({
      text: `DELETE FROM agent_lg_write WHERE lane = ? AND checkpoint_id = ? AND ${condition}`,
      args: [lane, checkpointId, ...args],
    })),

  /**
   * Inserts `writes`; a place another writer filled meanwhile (a retried task) keeps its write.
   * SQLite runs one write transaction at a time: its check cannot have been raced, and a taken place is an error there.
   */
  inserted(dialect: IntegrationDatabase, keys: RowKeys, key: LaneKey, checkpointId: string, writes: WriteRow[]): Statement[] {
    const [lane, threadKey] = [keys.lane(key), keys.threadKey(key.threadId)];
    if (writes.length === 0) return [];
    const rows = writes.map((write): Value[] => [
      lane,
      checkpointId,
      write.taskId,
      write.idx,
      threadKey,
      keys.tenantId,
      write.taskPath,
      write.channel,
      write.value.type,
      write.value.bytes,
    ]);
    const skipTaken = dialect.serialWrites ? '' : ` ${dialect.onConflict(WRITE_KEY, [])}`;
    const placeholders = `(${WRITE_ROW.map(() => '?').join(', ')})`;
    return insertRuns(rows, (row) => (row[6] as string).length + (row[7] as string).length + (row[9] as Uint8Array).byteLength).map((run) => ({
      text: `INSERT INTO agent_lg_write (${WRITE_ROW.join(', ')}) VALUES ${Array(run.length).fill(placeholders).join(', ')}${skipTaken}`,
      args: run.flat(),
    }));
  },

  /** Deletes a thread's writes, values and checkpoints, in every namespace. */
  threadDeleted: (threadKey: string): Statement[] =>
    ['agent_lg_write', 'agent_lg_blob', 'agent_lg_checkpoint'].map((table) => ({ text: `DELETE FROM ${table} WHERE thread_key = ?`, args: [threadKey] })),
};
