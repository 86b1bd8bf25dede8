// The reference on MariaDB: the mariadb connector with a pool of 10 (the
// store's default), the store's tables. "atomic" is START TRANSACTION; UPDATE
// counter; INSERT; COMMIT on one connection (MySQL's LAST_INSERT_ID(expr) hands
// the new counter back with the UPDATE, so no SELECT is needed); "plain" is the
// floor: a bare INSERT with a sequence counted in memory. forTenant gives the
// same statements with the tenant condition, on the same pool.
import mariadb, { type Pool, type PoolConnection } from 'mariadb';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import {
  historyFromRows,
  boundaryOf,
  contentJson,
  EMPTY_REPAIRS,
  FORK_BOUNDARY,
  FORK_MESSAGES,
  FORK_THREAD,
  LATEST_CUT,
  latestBoundary,
  parseJson,
  PRUNE_BOUNDARIES,
  PRUNE_MESSAGES,
  SESSION_SELECT,
  subtree,
  THREAD_INSERT,
  toSession,
  type SessionRow,
} from './rows.js';
import type { AgentTurn } from '../turn.js';
import { mariadbTurnWrites } from './raw-turns.js';
import { historyOrder, SQL as MYSQL_SQL } from '../../src/databases/mysql/sql.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

type Mode = 'atomic' | 'plain';
type Cursor = { createdAt: string; id: string };
type Row<T> = Omit<T, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

/** The store's columns are DATETIME(3) holding UTC, as Prisma writes them. */
const timestamp = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');
const dateOf = (value: string) => new Date(`${value.replace(' ', 'T')}Z`);

export class RawMariaDb implements Target {
  readonly #pool: Pool;
  readonly #mode: Mode;
  /** Set: a tenant's view on another target's pool, which it leaves open. */
  readonly #tenant?: string;
  readonly #nextSeq = new Map<string, number>();

  constructor(connection: string | Pool, mode: Mode, tenant?: string) {
    this.#pool =
      typeof connection === 'string'
        ? mariadb.createPool({
            ...mariadbConnection(connection),
            connectionLimit: 10,
            dateStrings: true,
            bigIntAsNumber: true,
            insertIdAsNumber: true,
          })
        : connection;
    this.#mode = mode;
    this.#tenant = tenant;
  }

  forTenant(tenantId: string): Target {
    return new RawMariaDb(this.#pool, this.#mode, tenantId);
  }

  async prepareThread(threadId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#pool.query(THREAD_INSERT('?, ?, 0, ?, ?'), [threadId, this.#tenant ?? null, now, now]);
    this.#nextSeq.set(threadId, 1);
  }

  /** Atomic: START TRANSACTION; INSERT the thread; INSERT the message; COMMIT. Plain: the same two INSERTs, each autocommitted. */
  async appendFirst(threadId: string, message: BenchMessage): Promise<void> {
    const now = timestamp(new Date());
    const work = async (connection: Pool | PoolConnection) => {
      await connection.query(THREAD_INSERT('?, ?, 1, ?, ?'), [threadId, this.#tenant ?? null, now, now]);
      await connection.query(...insert(threadId, 1, [message], now));
    };
    if (this.#mode === 'plain') await work(this.#pool);
    else await this.#transaction(work);
  }

  append(threadId: string, message: BenchMessage): Promise<void> {
    return this.#write(threadId, [message]);
  }

  appendMany(threadId: string, messages: BenchMessage[]): Promise<void> {
    return this.#write(threadId, messages);
  }

  async stored(threadId: string): Promise<number> {
    const [row] = (await this.#pool.query('SELECT COUNT(*) AS n FROM agent_message WHERE thread_id = ?', [threadId])) as { n: number }[];
    return Number(row.n);
  }

  /** The latest boundary and the messages after it in one repeatable-read snapshot, as the store reads them. */
  /** The raw minimum of a turn (raw-turns.ts). */
  async turn(threadId: string, turn: AgentTurn): Promise<void> {
    await this.getHistory(threadId);
    await mariadbTurnWrites(this.#pool, threadId, turn, timestamp(new Date()));
  }

  /** The store's history statement (one: the latest boundary's messages and the log after its cut), its parts put in order here. */
  async getHistory(threadId: string): Promise<unknown[]> {
    const { text, args } = MYSQL_SQL.history(threadId, this.#tenant);
    const rows = ((await this.#pool.query({ sql: text, rowsAsArray: true }, args)) as unknown[][]).sort(historyOrder);
    return historyFromRows(rows, threadId, this.#tenant, (value) => new Date(Number(value)));
  }

  count(threadId: string): Promise<number> {
    return this.#transaction(async (connection) => {
      const boundary = await this.#boundary<{ cut_seq: number; message_count: number }>(connection, 'cut_seq, message_count', threadId);
      const [after] = (await connection.query('SELECT COUNT(*) AS n FROM agent_message WHERE thread_id = ? AND seq > ? AND event_type IS NULL', [
        threadId,
        boundary?.cut_seq ?? 0,
      ])) as { n: number }[];
      return (boundary?.message_count ?? 0) + Number(after.n);
    });
  }

  /** The store's statements: lock the subtree, tombstones, delete (the cascades do the rest). */
  async deleteTranscript(rootId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#transaction(async (connection) => {
      await connection.query(`SELECT id FROM agent_thread WHERE id IN (${subtree('agent_thread')} SELECT id FROM down) ORDER BY id FOR UPDATE`, [rootId]);
      await connection.query(`INSERT INTO agent_tombstone (id, deleted_at) ${subtree('agent_thread')} SELECT id, ? FROM down`, [rootId, now]);
      await connection.query(`DELETE FROM agent_thread WHERE id IN (${subtree('agent_tombstone')} SELECT id FROM down)`, [rootId]);
    });
  }

  /** The rows the store's prune deletes, in one transaction: no batches. */
  async pruneTranscript(threadId: string): Promise<{ messages: number; boundaries: number }> {
    return this.#transaction(async (connection) => {
      const rows = (await connection.query(LATEST_CUT(), [threadId])) as { seq: number; cut_seq: number }[];
      if (rows.length === 0) return { messages: 0, boundaries: 0 };
      const messages = ((await connection.query(PRUNE_MESSAGES(), [threadId, rows[0].cut_seq])) as { affectedRows: number }).affectedRows;
      const boundaries = ((await connection.query(PRUNE_BOUNDARIES(), [threadId, rows[0].seq])) as { affectedRows: number }).affectedRows;
      await connection.query(EMPTY_REPAIRS(), [threadId, rows[0].seq]);
      return { messages, boundaries };
    });
  }

  /** The rows SessionStore.fork copies, by INSERT … SELECT in one transaction, after reading the source's latest boundary. */
  async fork(sourceId: string, forkId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#transaction(async (connection) => {
      const [latest] = (await connection.query(LATEST_CUT(), [sourceId])) as { seq: number; cut_seq: number }[];
      await connection.query(FORK_THREAD('?', '?', '?'), [forkId, now, now, sourceId]);
      if (latest) await connection.query(FORK_BOUNDARY('?', '?', '?'), [forkId, sourceId, latest.seq]);
      await connection.query(FORK_MESSAGES('?', '?', '?'), [forkId, sourceId, latest?.cut_seq ?? 0]);
    });
  }

  async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
    const after = cursor as Cursor | undefined;
    const rows = (
      after
        ? await this.#pool.query(`${SESSION_SELECT} WHERE t.created_at < ? OR (t.created_at = ? AND t.id < ?) ORDER BY t.created_at DESC, t.id DESC LIMIT ?`, [
            after.createdAt,
            after.createdAt,
            after.id,
            limit + 1,
          ])
        : await this.#pool.query(`${SESSION_SELECT} ORDER BY t.created_at DESC, t.id DESC LIMIT ?`, [limit + 1])
    ) as Row<SessionRow>[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      sessions: page.map((row) => toSession({ ...row, created_at: dateOf(row.created_at), updated_at: dateOf(row.updated_at) }, parseJson)),
      next: rows.length > limit && last ? { createdAt: last.created_at, id: last.id } : null,
    };
  }

  /** For seeding: one statement with its parameters. */
  async run(sql: string, params: unknown[] = []): Promise<void> {
    await this.#pool.query(sql, params);
  }

  /** For measuring: the rows of one statement. */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    return [...((await this.#pool.query(sql)) as Record<string, unknown>[])];
  }

  async close(): Promise<void> {
    if (this.#tenant === undefined) await this.#pool.end();
  }

  /** The latest boundary (scoped: joined to the thread under the tenant condition). */
  async #boundary<T extends { cut_seq: number }>(connection: PoolConnection, columns: string, threadId: string): Promise<T | undefined> {
    const scoped = this.#tenant !== undefined;
    const rows = (await connection.query(latestBoundary(columns, '?', scoped ? '?' : undefined), scoped ? [threadId, this.#tenant] : [threadId])) as T[];
    return boundaryOf(rows, threadId, this.#tenant);
  }

  async #write(threadId: string, messages: BenchMessage[]): Promise<void> {
    const now = timestamp(new Date());
    if (this.#mode === 'plain') {
      const first = this.#nextSeq.get(threadId) ?? 1;
      this.#nextSeq.set(threadId, first + messages.length);
      await this.#pool.query(...insert(threadId, first, messages, now));
      return;
    }
    await this.#transaction(async (connection) => {
      const scoped = this.#tenant !== undefined;
      const { affectedRows, insertId: last } = (await connection.query(
        `UPDATE agent_thread SET last_seq = LAST_INSERT_ID(last_seq + ?), updated_at = ? WHERE id = ?${scoped ? ' AND tenant_id = ?' : ''}`,
        [messages.length, now, threadId, ...(scoped ? [this.#tenant] : [])],
      )) as { affectedRows: number; insertId: number };
      if (affectedRows === 0) throw new Error(`no thread ${threadId}${scoped ? ` of tenant ${this.#tenant}` : ''}`);
      await connection.query(...insert(threadId, Number(last) - messages.length + 1, messages, now));
    });
  }

  async #transaction<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await this.#pool.getConnection();
    try {
      await connection.beginTransaction();
      const result = await work(connection);
      await connection.commit();
      return result;
    } catch (error) {
      await connection.rollback().catch(() => {});
      throw error;
    } finally {
      await connection.release();
    }
  }
}

/** One INSERT of all the messages (a multi-row statement for a batch). */
function insert(threadId: string, firstSeq: number, messages: BenchMessage[], now: string): [string, unknown[]] {
  const rows = messages.map(() => '(?, ?, ?, ?, ?)').join(', ');
  const params = messages.flatMap((message, i) => [threadId, firstSeq + i, message.role, contentJson(message), now]);
  return [`INSERT INTO agent_message (thread_id, seq, role, content, created_at) VALUES ${rows}`, params];
}
