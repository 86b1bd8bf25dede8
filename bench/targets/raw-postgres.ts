// The reference on PostgreSQL: node-postgres with a pool of 10 (the store's
// default), the store's tables. "atomic" is BEGIN; UPDATE counter RETURNING;
// INSERT; COMMIT on one connection; "plain" is the floor: a bare INSERT with a
// sequence counted in memory. forTenant gives the same statements with the
// tenant condition, on the same pool.
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  historyFromRows,
  contentJson,
  EMPTY_REPAIRS,
  FORK_BOUNDARY,
  FORK_MESSAGES,
  FORK_THREAD,
  jsonlLines,
  LATEST_CUT,
  parseJson,
  PRUNE_BOUNDARIES,
  PRUNE_MESSAGES,
  SESSION_SELECT,
  subtree,
  THREAD_INSERT,
  toMessage,
  toSession,
  type BoundaryRow,
  type LogRow,
  type MessageRow,
  type SessionRow,
} from './rows.js';
import type { AgentTurn } from '../turn.js';
import { postgresTurnWrites } from './raw-turns.js';
import { SQL as PG_SQL } from '../../src/databases/postgresql/sql.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

type Mode = 'atomic' | 'plain';
type Cursor = { createdAt: string; id: string };

/** The store's columns are TIMESTAMP(3) holding UTC, as Prisma writes them. */
const timestamp = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');
const TIMESTAMP_OID = 1114;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID
      ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** A statement named by its text, so that each connection parses and plans it once (as the store names its hot statements). */
export const named = (text: string) => ({ name: `raw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`, text });

export class RawPostgres implements Target {
  readonly #pool: pg.Pool;
  readonly #mode: Mode;
  /** Set: a tenant's view on another target's pool, which it leaves open. */
  readonly #tenant?: string;
  readonly #nextSeq = new Map<string, number>();

  constructor(connection: string | pg.Pool, mode: Mode, tenant?: string) {
    this.#pool = typeof connection === 'string' ? new pg.Pool({ connectionString: connection, max: 10, types }) : connection;
    this.#mode = mode;
    this.#tenant = tenant;
  }

  forTenant(tenantId: string): Target {
    return new RawPostgres(this.#pool, this.#mode, tenantId);
  }

  async prepareThread(threadId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#pool.query(THREAD_INSERT('$1, $2, 0, $3, $4'), [threadId, this.#tenant ?? null, now, now]);
    this.#nextSeq.set(threadId, 1);
  }

  /** Atomic: BEGIN; INSERT the thread; INSERT the message; COMMIT. Plain: the same two INSERTs, each autocommitted. */
  async appendFirst(threadId: string, message: BenchMessage): Promise<void> {
    const now = timestamp(new Date());
    const work = async (client: pg.Pool | pg.PoolClient) => {
      await client.query(named(THREAD_INSERT('$1, $2, 1, $3, $4')), [threadId, this.#tenant ?? null, now, now]);
      await client.query(...insert(threadId, 1, [message], now));
    };
    if (this.#mode === 'plain') await work(this.#pool);
    else await this.#transaction('BEGIN', work);
  }

  append(threadId: string, message: BenchMessage): Promise<void> {
    return this.#write(threadId, [message]);
  }

  appendMany(threadId: string, messages: BenchMessage[]): Promise<void> {
    return this.#write(threadId, messages);
  }

  /** The raw minimum of a turn (raw-turns.ts). */
  async turn(threadId: string, turn: AgentTurn): Promise<void> {
    await this.getHistory(threadId);
    await postgresTurnWrites(this.#pool, threadId, turn, timestamp(new Date()), named);
  }

  async stored(threadId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM agent_message WHERE thread_id = $1', [threadId]);
    return rows[0].n;
  }

  /** The store's history statement (one: the latest boundary's messages and the log after its cut), named. */
  async getHistory(threadId: string): Promise<unknown[]> {
    const scoped = this.#tenant !== undefined;
    const { rows } = await this.#pool.query<unknown[]>({
      ...named(scoped ? PG_SQL.scopedHistory : PG_SQL.history),
      values: scoped ? [threadId, this.#tenant] : [threadId],
      rowMode: 'array',
    });
    return historyFromRows(rows, threadId, this.#tenant, (value) => value as Date);
  }

  /** The store's count statement (one), named. */
  async count(threadId: string): Promise<number> {
    const scoped = this.#tenant !== undefined;
    const { rows } = await this.#pool.query<unknown[]>({
      ...named(scoped ? PG_SQL.scopedCount : PG_SQL.count),
      values: scoped ? [threadId, this.#tenant] : [threadId],
      rowMode: 'array',
    });
    const [owned, total] = rows[0];
    if (Number(owned) === 0) throw new Error(`thread ${threadId} is not tenant ${this.#tenant}'s`);
    return Number(total);
  }

  /** The store's statements: lock the subtree, tombstones, delete (the cascades do the rest). */
  async deleteTranscript(rootId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#transaction('BEGIN', async (client) => {
      await client.query(`SELECT id FROM agent_thread WHERE id IN (${subtree('agent_thread', '$1')} SELECT id FROM down) ORDER BY id FOR UPDATE`, [rootId]);
      await client.query(`INSERT INTO agent_tombstone (id, deleted_at) ${subtree('agent_thread', '$1')} SELECT id, $2 FROM down`, [rootId, now]);
      await client.query(`DELETE FROM agent_thread WHERE id IN (${subtree('agent_tombstone', '$1')} SELECT id FROM down)`, [rootId]);
    });
  }

  /** The rows the store's prune deletes, in one transaction: no batches. */
  async pruneTranscript(threadId: string): Promise<{ messages: number; boundaries: number }> {
    return this.#transaction('BEGIN', async (client) => {
      const { rows } = await client.query<{ seq: number; cut_seq: number }>(LATEST_CUT('$1'), [threadId]);
      if (rows.length === 0) return { messages: 0, boundaries: 0 };
      const messages = (await client.query(PRUNE_MESSAGES('$1', '$2'), [threadId, rows[0].cut_seq])).rowCount ?? 0;
      const boundaries = (await client.query(PRUNE_BOUNDARIES('$1', '$2'), [threadId, rows[0].seq])).rowCount ?? 0;
      await client.query(EMPTY_REPAIRS('$1', '$2'), [threadId, rows[0].seq]);
      return { messages, boundaries };
    });
  }

  /** The rows SessionStore.fork copies, by INSERT … SELECT in one transaction, after reading the source's latest boundary. */
  async fork(sourceId: string, forkId: string): Promise<void> {
    const now = timestamp(new Date());
    await this.#transaction('BEGIN', async (client) => {
      const { rows } = await client.query<{ seq: number; cut_seq: number }>(LATEST_CUT('$1'), [sourceId]);
      await client.query(FORK_THREAD('$1::text', '$2::timestamp(3)', '$3'), [forkId, now, sourceId]);
      if (rows[0]) await client.query(FORK_BOUNDARY('$1::text', '$2', '$3'), [forkId, sourceId, rows[0].seq]);
      await client.query(FORK_MESSAGES('$1::text', '$2', '$3'), [forkId, sourceId, rows[0]?.cut_seq ?? 0]);
    });
  }

  async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
    const after = cursor as Cursor | undefined;
    const { rows } = after
      ? await this.#pool.query<SessionRow>(
          `${SESSION_SELECT} WHERE t.created_at < $1 OR (t.created_at = $1 AND t.id < $2) ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
          [after.createdAt, after.id, limit + 1],
        )
      : await this.#pool.query<SessionRow>(`${SESSION_SELECT} ORDER BY t.created_at DESC, t.id DESC LIMIT $1`, [limit + 1]);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      sessions: page.map((row) => toSession(row, parseJson)),
      next: rows.length > limit && last ? { createdAt: timestamp(last.created_at), id: last.id } : null,
    };
  }

  /** The session's row, its whole log, its boundaries and its subsessions in one repeatable-read snapshot, as JSONL lines. */
  exportJsonl(sessionId: string): Promise<string[]> {
    return this.#snapshot(async (client) => {
      const { rows: sessions } = await client.query<SessionRow>('SELECT id, tenant_id, title, metadata, created_at FROM agent_thread WHERE id = $1', [
        sessionId,
      ]);
      if (sessions.length === 0) throw new Error(`no session ${sessionId}`);
      const { rows: log } = await client.query<LogRow>(
        'SELECT seq, role, event_type, content, message_id, metadata, created_at FROM agent_message WHERE thread_id = $1 ORDER BY seq',
        [sessionId],
      );
      const { rows: boundaries } = await client.query<BoundaryRow>(
        'SELECT b.seq, b.kind, b.cut_seq, b.messages, b.source_count, b.retained_count, b.created_at, r.message AS repair_message ' +
          'FROM agent_boundary b LEFT JOIN agent_repair r ON r.thread_id = b.thread_id AND r.seq = b.seq WHERE b.thread_id = $1 ORDER BY b.seq',
        [sessionId],
      );
      const { rows: children } = await client.query<{ child_id: string }>('SELECT child_id FROM agent_subsession WHERE parent_id = $1 ORDER BY id', [
        sessionId,
      ]);
      return jsonlLines(
        sessions[0],
        log,
        boundaries,
        children.map((row) => row.child_id),
        parseJson,
      );
    });
  }

  /** In one snapshot: that the cursor's message exists (as the store checks it), then the page and one message more. */
  transcriptPage(threadId: string, limit: number, cursor?: unknown): Promise<{ messages: unknown[]; next: unknown }> {
    const after = (cursor as number | undefined) ?? 0;
    return this.#snapshot(async (client) => {
      if (after > 0 && (await client.query('SELECT 1 FROM agent_message WHERE thread_id = $1 AND seq = $2', [threadId, after])).rows.length === 0) {
        throw new Error(`no message ${after} in ${threadId}`);
      }
      const { rows } = await client.query<MessageRow>(
        'SELECT seq, role, content, message_id, metadata, created_at FROM agent_message WHERE thread_id = $1 AND seq > $2 AND event_type IS NULL ORDER BY seq LIMIT $3',
        [threadId, after, limit + 1],
      );
      const page = rows.slice(0, limit);
      return { messages: page.map((row) => toMessage(row, parseJson)), next: rows.length > limit ? page[limit - 1].seq : null };
    });
  }

  /** For seeding: one statement with its parameters. */
  async run(sql: string, params: unknown[] = []): Promise<void> {
    await this.#pool.query(sql, params);
  }

  /** For measuring: the rows of one statement. */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    return (await this.#pool.query(sql)).rows as Record<string, unknown>[];
  }

  async close(): Promise<void> {
    if (this.#tenant === undefined) await this.#pool.end();
  }

  async #write(threadId: string, messages: BenchMessage[]): Promise<void> {
    const now = timestamp(new Date());
    if (this.#mode === 'plain') {
      const first = this.#nextSeq.get(threadId) ?? 1;
      this.#nextSeq.set(threadId, first + messages.length);
      await this.#pool.query(...insert(threadId, first, messages, now));
      return;
    }
    await this.#transaction('BEGIN', async (client) => {
      const scoped = this.#tenant !== undefined;
      const { rows } = await client.query<{ last_seq: number }>(
        named(`UPDATE agent_thread SET last_seq = last_seq + $1, updated_at = $2 WHERE id = $3${scoped ? ' AND tenant_id = $4' : ''} RETURNING last_seq`),
        [messages.length, now, threadId, ...(scoped ? [this.#tenant] : [])],
      );
      if (rows.length === 0) throw new Error(`no thread ${threadId}${scoped ? ` of tenant ${this.#tenant}` : ''}`);
      await client.query(...insert(threadId, rows[0].last_seq - messages.length + 1, messages, now));
    });
  }

  #snapshot<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#transaction('BEGIN ISOLATION LEVEL REPEATABLE READ', work);
  }

  async #transaction<T>(begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}

/** One INSERT of all the messages (a multi-row statement for a batch), named. */
function insert(threadId: string, firstSeq: number, messages: BenchMessage[], now: string): [{ name: string; text: string }, unknown[]] {
  const rows = messages.map((_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`).join(', ');
  const params = messages.flatMap((message, i) => [threadId, firstSeq + i, message.role, contentJson(message), now]);
  return [named(`INSERT INTO agent_message (thread_id, seq, role, content, created_at) VALUES ${rows}`), params];
}
