// The read path. Agents reload the effective history every turn, so getHistory
// and count are each one statement sent straight to the driver adapter: the
// latest boundary and the messages after it are read together, from the one
// snapshot a statement sees, instead of through a read transaction of Prisma's.
import type { SqlDriverAdapter, SqlQuery } from '@prisma/driver-adapter-utils';
import type { HistoryMessage, JsonObject, Message, MessageRole } from '../message.types.js';
import type { Provider } from './dialect.js';
import type { SerializedSqliteAdapter } from './sqlite-adapter.js';

export interface ReadPath {
  /** The effective history of the thread (`[]` when it does not exist). */
  history(threadId: string): Promise<HistoryMessage[]>;
  /** Its length, counted in the database. */
  count(threadId: string): Promise<number>;
}

type Row = unknown[];
type Run = (sql: string, args: string[]) => Promise<Row[]>;

// PostgreSQL numbers its placeholders and types the NULLs of a union's first branch.
const placeholders = (provider: Provider) => (provider === 'postgresql' ? (i: number) => `$${i}` : () => '?');
const NULLS: Record<Provider, string> = {
  postgresql: 'NULL::integer, NULL::text, b.messages, NULL::text, NULL::jsonb, NULL::timestamp(3)',
  mysql: 'NULL, NULL, b.messages, NULL, NULL, NULL',
  sqlite: 'NULL, NULL, b.messages, NULL, NULL, NULL',
};

function statements(provider: Provider) {
  const p = placeholders(provider);
  const latest = `WITH b AS (SELECT cut_seq, message_count, messages FROM agent_boundary WHERE thread_id = ${p(1)} ORDER BY seq DESC LIMIT 1)`;
  const after = `thread_id = ${p(2)} AND event_type IS NULL AND seq > COALESCE((SELECT cut_seq FROM b), 0)`;
  return {
    // The boundary's messages first (part 0), then the log after its cut.
    history: `${latest}
      SELECT 0 AS part, ${NULLS[provider]} FROM b
      UNION ALL
      SELECT 1, seq, role, content, message_id, metadata, created_at FROM agent_message WHERE ${after}
      ORDER BY 1, 2`,
    count: `${latest} SELECT COALESCE((SELECT message_count FROM b), 0) + (SELECT COUNT(*) FROM agent_message WHERE ${after})`,
  };
}

export function readPath(adapter: SqlDriverAdapter, provider: Provider): ReadPath {
  const sql = statements(provider);
  const run: Run =
    provider === 'sqlite'
      ? sqliteRun(adapter as SerializedSqliteAdapter)
      : async (text, args) => (await adapter.queryRaw({ sql: text, args, argTypes: args.map(() => ({ scalarType: 'string', arity: 'scalar' })) } satisfies SqlQuery)).rows;
  return {
    async history(threadId) {
      const rows = await run(sql.history, [threadId, threadId]);
      return rows.flatMap((row) => (Number(row[0]) === 0 ? boundaryMessages(row[3]) : [logMessage(row)]));
    },
    async count(threadId) {
      const [[count]] = await run(sql.count, [threadId, threadId]);
      return Number(count);
    },
  };
}

/** SQLite: the store adapter's own connection, statements prepared once, behind its lock. */
function sqliteRun(adapter: SerializedSqliteAdapter): Run {
  const prepared = new Map<string, ReturnType<import('better-sqlite3').Database['prepare']>>();
  return (text, args) =>
    adapter.direct((db) => {
      let statement = prepared.get(text);
      if (!statement) prepared.set(text, (statement = db.prepare(text).raw()));
      return statement.all(args) as Row[];
    });
}

// The adapters hand JSON back as text and dates as ISO strings (MySQL's, in a
// union, may come without their zone: they are UTC, as the store writes them).
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
const date = (value: unknown) =>
  value instanceof Date ? value : new Date(/(Z|[+-]\d\d:?\d\d)$/.test(String(value)) ? String(value) : `${String(value).replace(' ', 'T')}Z`);

function logMessage([, seq, role, content, messageId, metadata, createdAt]: Row): HistoryMessage {
  const message: HistoryMessage = { seq: Number(seq), role: role as MessageRole, content: json(content), createdAt: date(createdAt) };
  if (messageId !== null) message.id = messageId as string;
  if (metadata !== null) message.metadata = json(metadata) as JsonObject;
  return message;
}

/** A boundary's messages, stored with ISO dates; they were never appended: seq null. */
function boundaryMessages(messages: unknown): HistoryMessage[] {
  return (json(messages) as (Omit<Message, 'createdAt'> & { createdAt: string })[]).map((message) => ({ ...message, createdAt: new Date(message.createdAt), seq: null }));
}
