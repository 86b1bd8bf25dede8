// The reference on SQLite: better-sqlite3 with the store adapter's pragmas,
// prepared statements, the store's tables. "atomic" assigns the sequence
// number in the insert's transaction (BEGIN IMMEDIATE; UPDATE counter; INSERT;
// COMMIT); "plain" is the floor: a bare INSERT with a sequence counted in memory.
// forTenant gives the same statements with the tenant condition, on the same connection.
import Database from 'better-sqlite3';
import { SQLITE_PRAGMAS } from '../databases.js';
import {
  historyFromRows,
  contentJson,
  EMPTY_REPAIRS,
  FORK_BOUNDARY,
  FORK_MESSAGES,
  FORK_THREAD,
  LATEST_CUT,
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
import { sqliteTurnWrites } from './raw-turns.js';
import { SQL as SQLITE_SQL } from '../../src/databases/sqlite/sql.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

type Mode = 'atomic' | 'plain';
type Cursor = { createdAt: string; id: string };

/** The store's SQLite timestamp format (Prisma's adapter): ISO 8601 with +00:00. */
const timestamp = (date: Date) => date.toISOString().replace('Z', '+00:00');

export class RawSqlite implements Target {
  readonly #db: Database.Database;
  readonly #mode: Mode;
  /** Set: a tenant's view on another target's connection, which it leaves open. */
  readonly #tenant?: string;
  readonly #nextSeq = new Map<string, number>();
  readonly #statements: Map<string, Database.Statement>;
  readonly #bump: Database.Statement;
  readonly #atomic: Database.Transaction<(threadId: string, messages: BenchMessage[]) => void>;
  readonly #first: Database.Transaction<(threadId: string, message: BenchMessage) => void>;

  constructor(connection: string | { db: Database.Database; statements: Map<string, Database.Statement> }, mode: Mode, tenant?: string) {
    if (typeof connection === 'string') {
      this.#db = new Database(connection);
      this.#db.exec(SQLITE_PRAGMAS);
      this.#statements = new Map();
    } else {
      ({ db: this.#db, statements: this.#statements } = connection);
    }
    this.#mode = mode;
    this.#tenant = tenant;
    const scoped = tenant === undefined ? '' : ' AND tenant_id = ?';
    this.#bump = this.#sql(`UPDATE agent_thread SET last_seq = last_seq + ?, updated_at = ? WHERE id = ?${scoped} RETURNING last_seq`);
    this.#atomic = this.#db.transaction((threadId: string, messages: BenchMessage[]) => {
      const now = timestamp(new Date());
      const bumped = this.#bump.get(messages.length, now, threadId, ...(tenant === undefined ? [] : [tenant])) as { last_seq: number } | undefined;
      if (!bumped) throw new Error(`no thread ${threadId}${tenant === undefined ? '' : ` of tenant ${tenant}`}`);
      this.#insert(threadId, bumped.last_seq - messages.length + 1, messages, now);
    });
    this.#first = this.#db.transaction((threadId: string, message: BenchMessage) => this.#insertFirst(threadId, message));
  }

  forTenant(tenantId: string): Target {
    return new RawSqlite({ db: this.#db, statements: this.#statements }, this.#mode, tenantId);
  }

  async prepareThread(threadId: string): Promise<void> {
    const now = timestamp(new Date());
    this.#sql(THREAD_INSERT('?, ?, 0, ?, ?')).run(threadId, this.#tenant ?? null, now, now);
    this.#nextSeq.set(threadId, 1);
  }

  /** Atomic: BEGIN IMMEDIATE; INSERT the thread; INSERT the message; COMMIT. Plain: the same two INSERTs, each autocommitted. */
  async appendFirst(threadId: string, message: BenchMessage): Promise<void> {
    if (this.#mode === 'atomic') this.#first.immediate(threadId, message);
    else this.#insertFirst(threadId, message);
  }

  async append(threadId: string, message: BenchMessage): Promise<void> {
    this.#write(threadId, [message]);
  }

  async appendMany(threadId: string, messages: BenchMessage[]): Promise<void> {
    this.#write(threadId, messages);
  }

  async stored(threadId: string): Promise<number> {
    return (this.#sql('SELECT COUNT(*) AS n FROM agent_message WHERE thread_id = ?').get(threadId) as { n: number }).n;
  }

  /** The raw minimum of a turn (raw-turns.ts). */
  async turn(threadId: string, turn: AgentTurn): Promise<void> {
    await this.getHistory(threadId);
    sqliteTurnWrites(this.#db, (text: string) => this.#sql(text), threadId, turn, timestamp(new Date()));
  }

  /** The store's history statement (one: the latest boundary's messages and the log after its cut). */
  async getHistory(threadId: string): Promise<unknown[]> {
    const scoped = this.#tenant !== undefined;
    const rows = (
      scoped
        ? this.#sql(SQLITE_SQL.scopedHistory).raw().all({ thread: threadId, tenant: this.#tenant })
        : this.#sql(SQLITE_SQL.history).raw().all({ thread: threadId })
    ) as unknown[][];
    return historyFromRows(rows, threadId, this.#tenant, (value) => new Date(value as string));
  }

  /** The store's count statement (one). */
  async count(threadId: string): Promise<number> {
    const scoped = this.#tenant !== undefined;
    const [owned, total] = (
      scoped
        ? this.#sql(SQLITE_SQL.scopedCount).raw().get({ thread: threadId, tenant: this.#tenant })
        : this.#sql(SQLITE_SQL.count).raw().get({ thread: threadId })
    ) as unknown[];
    if (Number(owned) === 0) throw new Error(`thread ${threadId} is not tenant ${this.#tenant}'s`);
    return Number(total);
  }

  /** The store's statements, each sent on its own so that a statement count sees them all. */
  async deleteTranscript(rootId: string): Promise<void> {
    const now = timestamp(new Date());
    this.#sql('BEGIN IMMEDIATE').run();
    try {
      this.#sql(`INSERT INTO agent_tombstone (id, deleted_at) ${subtree('agent_thread')} SELECT id, ? FROM down`).run(rootId, now);
      this.#sql(`DELETE FROM agent_thread WHERE id IN (${subtree('agent_tombstone')} SELECT id FROM down)`).run(rootId);
      this.#sql('COMMIT').run();
    } catch (error) {
      this.#sql('ROLLBACK').run();
      throw error;
    }
    this.#erased();
  }

  /** The rows the store's prune deletes, in one transaction: no batches. */
  async pruneTranscript(threadId: string): Promise<{ messages: number; boundaries: number }> {
    const report = this.#db
      .transaction(() => {
        const latest = this.#sql(LATEST_CUT()).get(threadId) as { seq: number; cut_seq: number } | undefined;
        if (!latest) return { messages: 0, boundaries: 0 };
        const messages = this.#sql(PRUNE_MESSAGES()).run(threadId, latest.cut_seq).changes;
        const boundaries = this.#sql(PRUNE_BOUNDARIES()).run(threadId, latest.seq).changes;
        this.#sql(EMPTY_REPAIRS()).run(threadId, latest.seq);
        return { messages, boundaries };
      })
      .immediate();
    this.#erased();
    return report;
  }

  /** What the store's erasing calls end with by default (sqliteVacuum): the file rebuilt, its log checkpointed and truncated. */
  #erased(): void {
    this.#db.exec('VACUUM');
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** The rows SessionStore.fork copies, by INSERT … SELECT in one transaction, after reading the source's latest boundary. */
  async fork(sourceId: string, forkId: string): Promise<void> {
    const now = timestamp(new Date());
    this.#db
      .transaction(() => {
        const latest = this.#sql(LATEST_CUT()).get(sourceId) as { seq: number; cut_seq: number } | undefined;
        this.#sql(FORK_THREAD('?', '?', '?')).run(forkId, now, now, sourceId);
        if (latest) this.#sql(FORK_BOUNDARY('?', '?', '?')).run(forkId, sourceId, latest.seq);
        this.#sql(FORK_MESSAGES('?', '?', '?')).run(forkId, sourceId, latest?.cut_seq ?? 0);
      })
      .immediate();
  }

  async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
    const after = cursor as Cursor | undefined;
    const where = after ? ' WHERE t.created_at < ? OR (t.created_at = ? AND t.id < ?)' : '';
    const rows = this.#sql(`${SESSION_SELECT}${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ?`).all(
      ...(after ? [after.createdAt, after.createdAt, after.id] : []),
      limit + 1,
    ) as (Omit<SessionRow, 'created_at' | 'updated_at'> & {
      created_at: string;
      updated_at: string;
    })[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      sessions: page.map((row) => toSession({ ...row, created_at: new Date(row.created_at), updated_at: new Date(row.updated_at) }, parseJson)),
      next: rows.length > limit && last ? { createdAt: last.created_at, id: last.id } : null,
    };
  }

  /** For seeding: one statement with its parameters. */
  async run(sql: string, params: unknown[] = []): Promise<void> {
    this.#db.prepare(sql).run(...params);
  }

  /** For measuring: the rows of one statement. */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    return this.#db.prepare(sql).all() as Record<string, unknown>[];
  }

  async close(): Promise<void> {
    if (this.#tenant === undefined) this.#db.close();
  }

  #insertFirst(threadId: string, message: BenchMessage): void {
    const now = timestamp(new Date());
    this.#sql(THREAD_INSERT('?, ?, 1, ?, ?')).run(threadId, this.#tenant ?? null, now, now);
    this.#insert(threadId, 1, [message], now);
  }

  #write(threadId: string, messages: BenchMessage[]): void {
    if (this.#mode === 'atomic') return this.#atomic.immediate(threadId, messages);
    const first = this.#nextSeq.get(threadId) ?? 1;
    this.#nextSeq.set(threadId, first + messages.length);
    this.#insert(threadId, first, messages, timestamp(new Date()));
  }

  /** One INSERT of all the messages (a multi-row statement for a batch). */
  #insert(threadId: string, firstSeq: number, messages: BenchMessage[], now: string): void {
    const rows = messages.map(() => '(?, ?, ?, ?, ?)').join(', ');
    const params = messages.flatMap((message, i) => [threadId, firstSeq + i, message.role, contentJson(message), now]);
    this.#sql(`INSERT INTO agent_message (thread_id, seq, role, content, created_at) VALUES ${rows}`).run(params);
  }

  /** Prepared once, as an application on the raw driver would. */
  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }
}
