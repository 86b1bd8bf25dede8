// The append path. An agent appends a message per step, so an append to a thread
// that exists is one atomic unit sent straight to the driver adapter: the
// sequence numbers are assigned in SQL, under the thread row's lock, with no
// interactive transaction. On PostgreSQL that is one statement, one round trip.
//
// It only ever updates the thread row, never inserts it: when the thread is
// missing, deleted (its row is gone) or another tenant's, nothing is written and
// the caller takes the full path, which creates the thread or says why it cannot.
// A delete that commits while an append waits for the row leaves no row to
// update, so an append can never bring a deleted thread back.
import { DriverAdapterError, type SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import type { Message } from '../message.types.js';
import { sql, type Arg } from './adapter-statement.js';
import { inMariaDbTransaction, mariadbPoolOf, type Query } from './mariadb-pool.js';
import { assertSeqInRange } from './message.repository.js';
import type { Provider } from './dialect.js';
import type { SerializedSqliteAdapter } from './sqlite-adapter.js';

/** A message's columns after (thread_id, seq), as Prisma would write them. */
const columnsOf = (message: Message): Arg[] => [
  message.role,
  JSON.stringify(message.content),
  message.id ?? null,
  message.metadata === undefined ? null : JSON.stringify(message.metadata),
  message.createdAt,
];

/**
 * Appends `messages` (at least one) to the existing thread `threadId` (with
 * `tenantId`: only when it is that tenant's) and returns the last sequence
 * number handed out, or null when no such thread exists and nothing was written.
 */
export type AppendToExisting = (threadId: string, messages: Message[], now: Date, tenantId?: string) => Promise<number | null>;

export function appendPath(adapter: SqlDriverAdapter, provider: Provider): AppendToExisting {
  switch (provider) {
    case 'postgresql':
      return (...args) => appendPostgres(adapter, ...args);
    case 'mysql': {
      // A plain START TRANSACTION: the UPDATE's row lock is what orders appends, whatever the level.
      const pool = mariadbPoolOf(adapter);
      return (...args) => inMariaDbTransaction(pool, (query) => appendMysql(query, ...args));
    }
    case 'sqlite':
      return sqliteAppend(adapter as SerializedSqliteAdapter);
  }
}

/** One statement: a CTE bumps the counter (locking the row) and the INSERT reads the new value. */
async function appendPostgres(adapter: SqlDriverAdapter, threadId: string, messages: Message[], now: Date, tenantId?: string): Promise<number | null> {
  const args: Arg[] = [threadId, messages.length, now];
  const tenant = tenantId === undefined ? '' : ` AND tenant_id = $${args.push(tenantId)}`;
  const rows = messages.map((message, i) => {
    const at = args.length;
    args.push(...columnsOf(message));
    return `(${i + 1}, $${at + 1}, $${at + 2}::jsonb, $${at + 3}, $${at + 4}::jsonb, $${at + 5}::timestamp(3))`;
  });
  const result = await adapter.queryRaw(
    sql(
      `WITH bumped AS (UPDATE agent_thread SET last_seq = last_seq + $2, updated_at = $3 WHERE id = $1${tenant} RETURNING last_seq)
       INSERT INTO agent_message (thread_id, seq, role, content, message_id, metadata, created_at)
       SELECT $1, bumped.last_seq - $2 + m.ord, m.role, m.content, m.message_id, m.metadata, m.created_at
       FROM bumped, (VALUES ${rows.join(', ')}) AS m (ord, role, content, message_id, metadata, created_at)
       RETURNING seq`,
      args,
    ),
  );
  return result.rows.length === 0 ? null : Math.max(...result.rows.map((row) => Number(row[0])));
}

/** LAST_INSERT_ID(expr) hands the bumped counter back in the UPDATE's own reply. */
async function appendMysql(query: Query, threadId: string, messages: Message[], now: Date, tenantId?: string): Promise<number | null> {
  const tenant = tenantId === undefined ? [] : [tenantId];
  const bumped = await query(
    `UPDATE agent_thread SET last_seq = LAST_INSERT_ID(last_seq + ?), updated_at = ? WHERE id = ?${tenantId === undefined ? '' : ' AND tenant_id = ?'}`,
    [messages.length, now, threadId, ...tenant],
  );
  // No row matched: the reply carries no id (a bumped counter is at least 1).
  const last = Number(bumped.insertId ?? 0);
  if (last === 0) return null;
  const first = last - messages.length + 1;
  await query(insertSql(messages.length), messages.flatMap((message, i): Arg[] => [threadId, first + i, ...columnsOf(message)]));
  return last;
}

/**
 * SQLite runs in process: the append is a synchronous better-sqlite3
 * transaction (BEGIN IMMEDIATE) with statements prepared once, on the store
 * adapter's own connection and behind its lock.
 */
function sqliteAppend(adapter: SerializedSqliteAdapter): AppendToExisting {
  return (threadId, messages, now, tenantId) =>
    adapter
      .direct((db, prepared) =>
        db
          .transaction((): number | null => {
            const bump = `UPDATE agent_thread SET last_seq = last_seq + ?, updated_at = ? WHERE id = ?${tenantId === undefined ? '' : ' AND tenant_id = ?'} RETURNING last_seq`;
            const bumped = prepared(bump).get(messages.length, sqliteDate(now), threadId, ...(tenantId === undefined ? [] : [tenantId])) as
              | { last_seq: number }
              | undefined;
            if (!bumped) return null;
            assertSeqInRange(threadId, bumped.last_seq);
            const first = bumped.last_seq - messages.length + 1;
            const args = messages.flatMap((message, i) => [threadId, first + i, ...columnsOf(message).map(sqliteValue)]);
            prepared(insertSql(messages.length)).run(...args);
            return bumped.last_seq;
          })
          .immediate(),
      )
      .catch((error: unknown) => {
        throw sqliteFailure(error);
      });
}

/** How Prisma's SQLite adapter writes dates (its default "iso8601" format), so rows read back alike. */
const sqliteDate = (date: Date) => date.toISOString().replace('Z', '+00:00');
const sqliteValue = (arg: Arg) => (arg instanceof Date ? sqliteDate(arg) : arg);

/** better-sqlite3's errors in the adapter's shape, which the retry and error mapping read. */
function sqliteFailure(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const message = (error as Error).message;
  return new DriverAdapterError({ kind: 'sqlite', extendedCode: 0, message, originalCode: code, originalMessage: message });
}

const insertSql = (rows: number) =>
  `INSERT INTO agent_message (thread_id, seq, role, content, message_id, metadata, created_at) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
