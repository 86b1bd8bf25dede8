// The raw minimum of an agent turn (bench/turn.ts), written by hand for each
// driver: the fewest statements that keep what the store keeps. The history
// is one statement, the store's own (each reference's getHistory). Each write is atomic and assigns its sequence numbers from the thread's
// counter, creating the thread on its first write: one statement on
// PostgreSQL (a CTE upserts the thread and the INSERT reads its counter),
// BEGIN, the upsert, one INSERT … SELECT and COMMIT on SQLite and MariaDB,
// which have no writing CTE. The header rides on the answer's upsert. It
// checks no tombstone and validates nothing, as the other raw rows.
import type Database from 'better-sqlite3';
import type { Pool as MariaDbPool } from 'mariadb';
import type pg from 'pg';
import type { AgentTurn, TurnMessage } from '../turn.js';

/** The writes of a turn: the user's message, each step, the answer with the header. */
function writesOf(turn: AgentTurn): { messages: TurnMessage[]; header?: AgentTurn['header'] }[] {
  return [{ messages: [turn.user] }, ...turn.steps.map((step) => ({ messages: step })), { messages: [turn.answer], header: turn.header }];
}

/** `count` rows of (ord, role, content) as a derived table, with `?` placeholders (SQLite and MariaDB). */
const selectedRows = (count: number) =>
  Array.from({ length: count }, (_, i) => (i === 0 ? 'SELECT 1 AS ord, ? AS role, ? AS content' : `SELECT ${i + 1}, ?, ?`)).join(' UNION ALL ');

const rowArgs = (messages: TurnMessage[]) => messages.flatMap((message) => [message.role, JSON.stringify(message.content)]);

/** PostgreSQL: the writes, each one named statement (prepared once per connection, as the store's are). */
export async function postgresTurnWrites(
  pool: pg.Pool,
  threadId: string,
  turn: AgentTurn,
  now: string,
  named: (text: string) => { name: string; text: string },
): Promise<void> {
  for (const { messages, header } of writesOf(turn)) {
    const values = messages.map((_, i) => `(${i + 1}, $${i * 2 + 4}::text, $${i * 2 + 5}::text)`).join(', ');
    const at = messages.length * 2 + 4;
    const setHeader = header ? `, title = $${at}, metadata = $${at + 1}` : '';
    await pool.query(
      named(`WITH t AS (INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES ($1, $2, $3::timestamp(3), $3::timestamp(3))
         ON CONFLICT (id) DO UPDATE SET last_seq = agent_thread.last_seq + EXCLUDED.last_seq, updated_at = EXCLUDED.updated_at${setHeader} RETURNING last_seq)
       INSERT INTO agent_message (thread_id, seq, role, content, created_at)
       SELECT $1, t.last_seq - $2 + m.ord, m.role, m.content, $3::timestamp(3) FROM t, (VALUES ${values}) AS m (ord, role, content)`),
      [threadId, messages.length, now, ...rowArgs(messages), ...(header ? [header.title, JSON.stringify(header.metadata)] : [])],
    );
  }
}

/** SQLite: the writes; `sql` prepares a statement once; `now` is the store's timestamp text. */
export function sqliteTurnWrites(db: Database.Database, sql: (text: string) => Database.Statement, threadId: string, turn: AgentTurn, now: string): void {
  for (const { messages, header } of writesOf(turn)) {
    db.transaction(() => {
      const setHeader = header ? ', title = ?, metadata = ?' : '';
      sql(
        `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + excluded.last_seq, updated_at = excluded.updated_at${setHeader}`,
      ).run(threadId, messages.length, now, now, ...(header ? [header.title, JSON.stringify(header.metadata)] : []));
      sql(
        `INSERT INTO agent_message (thread_id, seq, role, content, created_at)
         SELECT t.id, t.last_seq - ? + m.ord, m.role, m.content, ? FROM agent_thread t, (${selectedRows(messages.length)}) m WHERE t.id = ?`,
      ).run(messages.length, now, ...rowArgs(messages), threadId);
    }).immediate();
  }
}

/** MariaDB: the writes; `now` is the store's DATETIME(3) text. */
export async function mariadbTurnWrites(pool: MariaDbPool, threadId: string, turn: AgentTurn, now: string): Promise<void> {
  for (const { messages, header } of writesOf(turn)) {
    const connection = await pool.getConnection();
    try {
      await connection.beginTransaction();
      const setHeader = header ? ', title = ?, metadata = ?' : '';
      await connection.query(
        `INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE last_seq = last_seq + VALUES(last_seq), updated_at = VALUES(updated_at)${setHeader}`,
        [threadId, messages.length, now, now, ...(header ? [header.title, JSON.stringify(header.metadata)] : [])],
      );
      await connection.query(
        `INSERT INTO agent_message (thread_id, seq, role, content, created_at)
         SELECT t.id, t.last_seq - ? + m.ord, m.role, m.content, ? FROM agent_thread t, (${selectedRows(messages.length)}) m WHERE t.id = ?`,
        [messages.length, now, ...rowArgs(messages), threadId],
      );
      await connection.commit();
    } catch (error) {
      await connection.rollback().catch(() => {});
      throw error;
    } finally {
      await connection.release();
    }
  }
}
