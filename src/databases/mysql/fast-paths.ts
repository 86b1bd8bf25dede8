// MySQL's and MariaDB's fast paths, in transactions on the connector pool under
// Prisma's adapter (see mariadb-pool.ts). The history is one statement (one
// snapshot), which bounds the log's index range with a cut read from a one-row
// derived table; a count is two statements in one repeatable-read transaction
// (MySQL's default level), one snapshot.
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import { assertSeqInRange } from '../../engine/tables/message-rows.js';
import { historyOf } from '../../engine/row-codec.js';
import { sessionOf } from '../../engine/tables/session-list.js';
import { StoreNotFoundError } from '../../store.errors.js';
import { listSessionsSql, messageInserts, updateHeaderSql } from '../../engine/portable-sql.js';
import type { Row } from '../../engine/adapter-statement.js';
import type { FastPaths } from '../../engine/provider-kit.js';
import { appendInHost } from './host-append.js';
import { historyOrder, placeholder, SQL } from './sql.js';
import {
  inMariaDbTransaction,
  mariadbConnectionOf,
  mariadbPoolOf,
  pipelinedTransaction,
  queryOn,
  queryPool,
  type Query,
  type Statement,
} from './mariadb-pool.js';

/** Where the reads and the header's update run: on the pool, each call a transaction of its own, or in an application's transaction. */
interface Connection {
  /** Runs reads of several statements in one snapshot. */
  read<T>(work: (query: Query) => Promise<T>): Promise<T>;
  /** One statement. */
  query: Query;
  /** A write, then a read that sees it, all or nothing: the read's rows. */
  writeThenRead(write: Statement, read: Statement): Promise<Row[]>;
}

/**
 * `ownPool`: the store's pool, whose sessions run at REPEATABLE READ (see the kit); an
 * application's pool is not set up so, and each transaction asks for the level.
 */
export function mysqlFastPaths(adapter: SqlDriverAdapter, ownPool: boolean): FastPaths {
  const pool = mariadbPoolOf(adapter);
  const inTransaction = <T>(work: (query: Query) => Promise<T | null>) => inMariaDbTransaction(pool, work, !ownPool);
  return {
    // One transaction, as the raw driver's: the thread's counter bumped (unscoped: the thread created,
    // unless it was deleted), then the messages inserted (a long batch in several INSERTs). The row lock the first
    // takes orders appends. The pool's sessions run at REPEATABLE READ (see the kit), where the
    // tombstone check of an INSERT … SELECT is a locking read: it waits for a delete in flight and sees it.
    append: (threadId, messages, now, tenantId) =>
      inTransaction(async (query) => {
        const last =
          tenantId === undefined
            ? await upsertThread(query, threadId, messages.length, now)
            : await bumpTenantsThread(query, threadId, messages.length, now, tenantId);
        if (last === null) return null;
        assertSeqInRange(threadId, last);
        for (const { text, args } of messageInserts(threadId, last - messages.length + 1, messages)) await query(text, args);
        return last;
      }),
    ...readsOn({
      read: inTransaction as Connection['read'],
      query: queryPool(pool),
      writeThenRead: (write, read) => pipelinedTransaction(pool, write, read),
    }),
  };
}

/**
 * The fast paths in the application's transaction `tx` (the driver's transaction under Prisma's, on one
 * connection of its pool): the same reads, which see its own writes, and the append of host-append.ts.
 * `assertOpen` before each statement (see ProviderKit).
 * Undefined when `tx` holds no connection where Prisma's MariaDB adapter keeps it.
 */
export function mysqlHostFastPaths(tx: Transaction, assertOpen: () => void): FastPaths | undefined {
  const connection = mariadbConnectionOf(tx);
  if (!connection) return undefined;
  const onConnection = queryOn(connection);
  // Before each statement (see ProviderKit): the connection goes back to the pool when the transaction ends.
  const query: Query = async (text, args) => (assertOpen(), onConnection(text, args));
  return {
    append: (threadId, messages, now, tenantId) => appendInHost(query, threadId, messages, now, tenantId),
    ...readsOn({
      read: (work) => work(query),
      query,
      async writeThenRead(write, read) {
        await query(write.text, write.args);
        return query(read.text, read.args);
      },
    }),
  };
}

/**
 * SessionStore.update: MariaDB's UPDATE returns no rows, so the header is read after it in the same
 * transaction; whether the session is there (and the tenant's) is that read's answer, not a count of rows.
 */
function headerUpdate(connection: Connection): FastPaths['updateHeader'] {
  return async (id, changes, now, tenantId) => {
    const [row] = await connection.writeThenRead(updateHeaderSql(id, changes, now, tenantId, placeholder), {
      text: SQL.header(tenantId !== undefined),
      args: tenantId === undefined ? [id] : [id, tenantId],
    });
    return row ? sessionOf(row) : null;
  };
}

function readsOn(connection: Connection): Omit<FastPaths, 'append'> {
  /** The latest boundary's columns (`cut_seq` last), or null when scoped and the thread is not the tenant's; [] when it has no boundary. */
  const latest = async (query: Query, columns: string, threadId: string, tenantId: string | undefined) => {
    const [row] =
      tenantId === undefined
        ? await query(`SELECT ${columns} ${SQL.latest}`, [threadId])
        : await query(`SELECT ${columns} ${SQL.ownedLatest}`, [threadId, threadId, tenantId]);
    if (!row) return tenantId === undefined ? [] : null;
    return row.at(-1) === null ? [] : row;
  };
  return {
    updateHeader: headerUpdate(connection),
    // One statement: one snapshot, one round trip; its parts in order here (see SQL.history).
    async history(threadId, tenantId) {
      const { text, args } = SQL.history(threadId, tenantId);
      const rows = (await connection.query(text, args)).sort(historyOrder);
      if (tenantId === undefined) return historyOf(rows);
      return Number(rows[0]?.[0]) === -1 ? historyOf(rows.slice(1)) : null;
    },

    count: (threadId, tenantId) =>
      connection.read(async (query) => {
        const boundary = await latest(query, 'message_count, cut_seq', threadId, tenantId);
        if (boundary === null) return null;
        const [[count]] = await query(SQL.countAfterCut, [threadId, boundary.length > 0 ? Number(boundary[1]) : 0]);
        return (boundary.length > 0 ? Number(boundary[0]) : 0) + Number(count);
      }),

    async listSessions(query) {
      const { text, args } = listSessionsSql(query, placeholder);
      return (await connection.query(text, args)).map(sessionOf);
    },
  };
}

/** Bumps the thread's counter by `count`, or creates the thread holding `count`, unless it was deleted; returns its last sequence number. */
async function upsertThread(query: Query, threadId: string, count: number, now: Date): Promise<number> {
  const result = await query(SQL.upsertThread, [threadId, count, now, now, threadId]);
  // 1: inserted; 2: an existing row was bumped; 0: no row to insert, the thread was deleted.
  if (result.affectedRows === 0) throw new StoreNotFoundError(`thread ${threadId} was deleted`);
  return result.affectedRows === 1 ? count : Number(result.insertId);
}

/** Scoped, only the tenant's existing thread is bumped; null when there is none. */
async function bumpTenantsThread(query: Query, threadId: string, count: number, now: Date, tenantId: string): Promise<number | null> {
  const bumped = await query(SQL.bumpTenantsThread, [count, now, threadId, tenantId]);
  // No row matched: the reply carries no id (a bumped counter is at least 1).
  const last = Number(bumped.insertId ?? 0);
  return last === 0 ? null : last;
}
