// Bulk data for the read workloads, written by the raw driver in a few
// INSERT … SELECT statements over generated integers (recursive CTEs on
// SQLite, generate_series on PostgreSQL, the Sequence engine's seq_M_to_N
// tables on MariaDB). The rows are the ones the store writes for the same
// calls: the thread's last_seq is its last sequence number, content is the
// message's JSON, timestamps are UTC in each provider's format (Prisma's),
// absent fields are NULL.
import { FILLER } from './messages.js';
import type { Engine } from './targets/target.js';

export interface SqlRunner {
  run(sql: string, params?: unknown[]): Promise<void>;
}

/** A runner that reads, for measuring. */
export interface SqlReader extends SqlRunner {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/** Seeded rows are dated from here on, a millisecond apart. */
const BASE_MS = Date.UTC(2026, 0, 1);
const BASE_DATETIME = new Date(BASE_MS).toISOString().replace('T', ' ').replace('Z', '');

type Range = [column: string, from: number, to: number];

interface Dialect {
  /** A WITH clause (SQLite) and a FROM list that give each range's integers in its column, cross-joined. */
  numbers(ranges: Range[]): { with: string; from: string };
  /** The timestamp `ms` milliseconds after BASE. */
  at(ms: string): string;
  /** String concatenation. */
  concat(...parts: string[]): string;
  /** A JSON string value of a text. */
  jsonString(text: string): string;
}

const DIALECTS: Record<Engine, Dialect> = {
  sqlite: {
    numbers: (ranges) => ({
      with: `WITH RECURSIVE ${ranges.map(([c, from, to]) => `n_${c}(${c}) AS (SELECT ${from} UNION ALL SELECT ${c} + 1 FROM n_${c} WHERE ${c} < ${to})`).join(', ')}`,
      from: ranges.map(([c]) => `n_${c}`).join(' CROSS JOIN '),
    }),
    at: (ms) => `strftime('%Y-%m-%dT%H:%M:%f+00:00', ${BASE_MS / 1000} + ${ms} / 1000.0, 'unixepoch')`,
    concat: (...parts) => parts.map((part) => `(${part})`).join(' || '),
    jsonString: (text) => `json_quote(${text})`,
  },
  postgresql: {
    numbers: (ranges) => ({ with: '', from: ranges.map(([c, from, to]) => `generate_series(${from}, ${to}) AS ${c}`).join(' CROSS JOIN ') }),
    at: (ms) => `TIMESTAMP '${BASE_DATETIME}' + ${ms} * INTERVAL '1 millisecond'`,
    concat: (...parts) => parts.map((part) => `(${part})::text`).join(' || '),
    jsonString: (text) => `to_json(${text})::text`,
  },
  mysql: {
    numbers: (ranges) => ({ with: '', from: ranges.map(([c, from, to]) => `(SELECT seq AS ${c} FROM seq_${from}_to_${to}) AS n_${c}`).join(' CROSS JOIN ') }),
    at: (ms) => `TIMESTAMP '${BASE_DATETIME}' + INTERVAL ${ms} * 1000 MICROSECOND`,
    concat: (...parts) => `CONCAT(${parts.join(', ')})`,
    jsonString: (text) => `JSON_QUOTE(${text})`,
  },
};

/** INSERT INTO `into` SELECT `columns` over the ranges' integers. */
function insertSelect(engine: Engine, into: string, columns: string[], ranges: Range[], orderBy = ''): string {
  const { with: withClause, from } = DIALECTS[engine].numbers(ranges);
  return `${withClause} INSERT INTO ${into} SELECT ${columns.join(', ')} FROM ${from} ${orderBy}`.trim();
}

/** The seeded text of message `i`, as benchMessage(i) has it. */
function messageColumns(engine: Engine, i: string): string[] {
  const d = DIALECTS[engine];
  return [`CASE WHEN ${i} % 2 = 1 THEN 'user' ELSE 'assistant' END`, d.jsonString(d.concat(`'message '`, i, `' ${FILLER}'`))];
}

/** A thread of `count` messages, seq 1..count, as `count` appends leave it. */
export async function seedThread(engine: Engine, sql: SqlRunner, threadId: string, count: number): Promise<void> {
  const d = DIALECTS[engine];
  await sql.run(`INSERT INTO agent_thread (id, last_seq, created_at, updated_at) VALUES ('${threadId}', ${count}, ${d.at('0')}, ${d.at(String(count))})`);
  await insertMessages(engine, sql, threadId, count);
}

/**
 * `count` messages, seq 1..count, in the empty session `threadId` that the store created
 * (SessionStore.create), as `count` appends leave it. The session is dated as seedThread
 * dates its threads, so that the session list's newest pages are still the seeded sessions.
 */
export async function seedSessionMessages(engine: Engine, sql: SqlRunner, threadId: string, count: number): Promise<void> {
  const d = DIALECTS[engine];
  await sql.run(
    `UPDATE agent_thread SET last_seq = ${count}, created_at = ${d.at('0')}, updated_at = ${d.at(String(count))} WHERE id = '${threadId}' AND last_seq = 0`,
  );
  await insertMessages(engine, sql, threadId, count);
}

async function insertMessages(engine: Engine, sql: SqlRunner, threadId: string, count: number): Promise<void> {
  const at = DIALECTS[engine].at('i');
  await sql.run(
    insertSelect(
      engine,
      'agent_message (thread_id, seq, role, content, created_at)',
      [`'${threadId}'`, 'i', ...messageColumns(engine, 'i'), at],
      [['i', 1, count]],
    ),
  );
}

/** `count` sessions created a millisecond apart, ids `<prefix>000001`…, titled, as SessionStore.create({ id, title }) leaves them. */
export async function seedSessions(engine: Engine, sql: SqlRunner, prefix: string, count: number): Promise<void> {
  const d = DIALECTS[engine];
  const padded = engine === 'sqlite' ? `printf('%06d', i)` : `LPAD(${engine === 'postgresql' ? 'i::text' : 'i'}, 6, '0')`;
  await sql.run(
    insertSelect(
      engine,
      'agent_thread (id, title, last_seq, created_at, updated_at)',
      [d.concat(`'${prefix}'`, padded), d.concat(`'Session '`, 'i'), '0', d.at('i'), d.at('i')],
      [['i', 1, count]],
    ),
  );
}

/**
 * A tree of `sessions` sessions, `<prefix>-0` the root, ten children per session
 * registered in id order, each session holding `messages` messages. Returns the root's id.
 */
export async function seedTree(engine: Engine, sql: SqlRunner, prefix: string, sessions: number, messages: number): Promise<string> {
  const d = DIALECTS[engine];
  const id = (i: string) => d.concat(`'${prefix}-'`, i);
  const parent = engine === 'mysql' ? '(i - 1) DIV 10' : '(i - 1) / 10';
  await sql.run(
    insertSelect(engine, 'agent_thread (id, last_seq, created_at, updated_at)', [id('i'), String(messages), d.at('i'), d.at('i')], [['i', 0, sessions - 1]]),
  );
  if (sessions > 1) {
    await sql.run(
      insertSelect(engine, 'agent_subsession (parent_id, child_id, created_at)', [id(parent), id('i'), d.at('i')], [['i', 1, sessions - 1]], 'ORDER BY i'),
    );
  }
  if (messages > 0) {
    await sql.run(
      insertSelect(
        engine,
        'agent_message (thread_id, seq, role, content, created_at)',
        [id('i'), 'j', ...messageColumns(engine, 'j'), d.at('i')],
        [
          ['i', 0, sessions - 1],
          ['j', 1, messages],
        ],
      ),
    );
  }
  return `${prefix}-0`;
}

/** Brings the planner's statistics up to date after a bulk load, as the server's own background analysis soon would. */
export async function analyze(engine: Engine, sql: SqlRunner): Promise<void> {
  if (engine === 'postgresql') await sql.run('ANALYZE');
  if (engine === 'mysql') await sql.run('ANALYZE TABLE agent_thread, agent_message, agent_boundary, agent_subsession');
}

/** The log's tables, which a prune shrinks. */
const LOG_TABLES = ['agent_message', 'agent_boundary', 'agent_repair'];
/** Every text column of a thread's log rows (keys, numbers and timestamps aside). */
const TEXT_COLUMNS: [table: string, columns: string[]][] = [
  ['agent_message', ['role', 'event_type', 'content', 'message_id', 'metadata', 'provider_options', 'value_types']],
  ['agent_boundary', ['kind', 'messages']],
  ['agent_repair', ['message']],
];
const BYTE_LENGTH: Record<Engine, (column: string) => string> = {
  sqlite: (column) => `LENGTH(CAST(${column} AS BLOB))`,
  postgresql: (column) => `OCTET_LENGTH(${column})`,
  mysql: (column) => `LENGTH(${column})`,
};

export interface Storage {
  /** The bytes of the text columns of the thread's log rows (messages, events, boundaries, repairs). */
  text: number;
  /**
   * What the database itself takes, rebuilt first so that freed space counts as freed: SQLite, the
   * file's pages after VACUUM (the whole database); PostgreSQL, pg_total_relation_size of the log's
   * tables after VACUUM FULL; MariaDB, their data_length + index_length after OPTIMIZE TABLE.
   */
  database: number;
}

/** The thread's storage (see Storage), in a database that holds little else. */
export async function storageOf(engine: Engine, sql: SqlReader, threadId: string): Promise<Storage> {
  const length = BYTE_LENGTH[engine];
  const sums = TEXT_COLUMNS.map(
    ([table, columns]) =>
      `(SELECT COALESCE(SUM(${columns.map((column) => `COALESCE(${length(column)}, 0)`).join(' + ')}), 0) FROM ${table} WHERE thread_id = '${threadId}')`,
  );
  const text = Number((await sql.query(`SELECT ${sums.join(' + ')} AS bytes`))[0].bytes);
  const database = Number((await sql.query(await rebuilt(engine, sql)))[0].bytes);
  return { text, database };
}

/** Rebuilds the log's tables (the whole database on SQLite) and returns the statement that reads their size. */
async function rebuilt(engine: Engine, sql: SqlReader): Promise<string> {
  const list = LOG_TABLES.map((table) => `'${table}'`).join(', ');
  switch (engine) {
    case 'sqlite':
      await sql.run('VACUUM');
      return 'SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()';
    case 'postgresql':
      await sql.run(`VACUUM FULL ${LOG_TABLES.join(', ')}`);
      return `SELECT ${LOG_TABLES.map((table) => `pg_total_relation_size('${table}')`).join(' + ')} AS bytes`;
    case 'mysql':
      await sql.query(`OPTIMIZE TABLE ${LOG_TABLES.join(', ')}`);
      return `SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (${list})`;
  }
}
