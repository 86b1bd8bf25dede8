// The reference on SQLite: better-sqlite3 with the store adapter's pragmas,
// prepared statements, the store's tables. "atomic" assigns the sequence
// number in the insert's transaction (BEGIN IMMEDIATE; UPDATE counter; INSERT;
// COMMIT); "plain" is the floor: a bare INSERT with a sequence counted in memory.
import Database from 'better-sqlite3';
import { SQLITE_PRAGMAS } from '../databases.js';
import { boundaryMessages, contentJson, parseJson, SESSION_SELECT, subtree, toMessage, toSession, type MessageRow, type SessionRow } from './rows.js';
import type { BenchMessage, SessionPage, Target } from './target.js';

type Mode = 'atomic' | 'plain';
type Cursor = { createdAt: string; id: string };

/** The store's SQLite timestamp format (Prisma's adapter): ISO 8601 with +00:00. */
const timestamp = (date: Date) => date.toISOString().replace('Z', '+00:00');

export class RawSqlite implements Target {
  readonly #db: Database.Database;
  readonly #mode: Mode;
  readonly #nextSeq = new Map<string, number>();
  readonly #statements = new Map<string, Database.Statement>();
  readonly #bump: Database.Statement;
  readonly #atomic: Database.Transaction<(threadId: string, messages: BenchMessage[]) => void>;

  constructor(path: string, mode: Mode) {
    this.#db = new Database(path);
    this.#db.exec(SQLITE_PRAGMAS);
    this.#mode = mode;
    this.#bump = this.#db.prepare('UPDATE agent_thread SET last_seq = last_seq + ?, updated_at = ? WHERE id = ? RETURNING last_seq');
    this.#atomic = this.#db.transaction((threadId: string, messages: BenchMessage[]) => {
      const now = timestamp(new Date());
      const { last_seq: last } = this.#bump.get(messages.length, now, threadId) as { last_seq: number };
      this.#insert(threadId, last - messages.length + 1, messages, now);
    });
  }

  async prepareThread(threadId: string): Promise<void> {
    const now = timestamp(new Date());
    this.#sql('INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (?, 0, ?, ?)').run(threadId, now, now);
    this.#nextSeq.set(threadId, 1);
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

  /** The latest boundary and the messages after it, in one read transaction, parsed like the store's. */
  async getHistory(threadId: string): Promise<unknown[]> {
    return this.#read(() => {
      const boundary = this.#sql('SELECT cut_seq, messages FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1').get(threadId) as
        | { cut_seq: number; messages: string }
        | undefined;
      const rows = this.#sql('SELECT seq, role, content, message_id, metadata, created_at FROM agent_message WHERE thread_id = ? AND seq > ? AND event_type IS NULL ORDER BY seq')
        .all(threadId, boundary?.cut_seq ?? 0) as (Omit<MessageRow, 'created_at'> & { created_at: string })[];
      const messages = rows.map((row) => toMessage({ ...row, created_at: new Date(row.created_at) }, parseJson));
      return boundary ? [...boundaryMessages(boundary.messages, parseJson), ...messages] : messages;
    });
  }

  async count(threadId: string): Promise<number> {
    return this.#read(() => {
      const boundary = this.#sql('SELECT cut_seq, message_count FROM agent_boundary WHERE thread_id = ? ORDER BY seq DESC LIMIT 1').get(threadId) as
        | { cut_seq: number; message_count: number }
        | undefined;
      const after = this.#sql('SELECT COUNT(*) AS n FROM agent_message WHERE thread_id = ? AND seq > ? AND event_type IS NULL').get(threadId, boundary?.cut_seq ?? 0) as {
        n: number;
      };
      return (boundary?.message_count ?? 0) + after.n;
    });
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
  }

  async listSessions(limit: number, cursor?: unknown): Promise<SessionPage> {
    const after = cursor as Cursor | undefined;
    const where = after ? ' WHERE t.created_at < ? OR (t.created_at = ? AND t.id < ?)' : '';
    const rows = this.#sql(`${SESSION_SELECT}${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ?`)
      .all(...(after ? [after.createdAt, after.createdAt, after.id] : []), limit + 1) as (Omit<SessionRow, 'created_at' | 'updated_at'> & {
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

  async close(): Promise<void> {
    this.#db.close();
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

  #read<T>(work: () => T): T {
    return this.#db.transaction(work).deferred();
  }

  /** Prepared once, as an application on the raw driver would. */
  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }
}
