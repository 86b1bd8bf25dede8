// Transactions straight on the connector pool under Prisma's MariaDB adapter
// (which hands it out as `underlyingDriver()`: one pool, one connection limit).
// The append and read paths run here rather than through the adapter, which
// passes every value of every row through a conversion callback and a second
// mapping: on a reload of thousands of messages that costs more than the query.
// Here rows come back as arrays of the server's own text, which the paths decode
// themselves, and dates go out as UTC strings, as the adapter writes them.
import type { EventEmitter } from 'node:events';
import type { PrismaMariaDb } from '@prisma/adapter-mariadb';
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import type { Pool, PoolConnection, UpsertResult } from 'mariadb';
import type { Arg, Row } from '../../engine/adapter-statement.js';

/** The pool of a connected PrismaMariaDb adapter. */
export const mariadbPoolOf = (adapter: SqlDriverAdapter): Pool =>
  (adapter as Awaited<ReturnType<PrismaMariaDb['connect']>>).underlyingDriver() as unknown as Pool;

/** The connection under a transaction of Prisma's MariaDB adapter; undefined when it holds none where that adapter keeps it. */
export function mariadbConnectionOf(tx: Transaction): PoolConnection | undefined {
  const connection = (tx as { conn?: Partial<PoolConnection> }).conn;
  return typeof connection?.query === 'function' ? (connection as PoolConnection) : undefined;
}

/** Listens for the pool's 'error' events (failed attempts to open a connection), which the connector's typings leave out. */
export const onPoolError = (pool: Pool, listener: (error: Error) => void): void => {
  (pool as unknown as EventEmitter).on('error', listener);
};

/** Connections from a pool, for calls that can be failed while they wait (see waitingCalls). */
export interface WaitingCalls {
  getConnection(): Promise<PoolConnection>;
  /** Fails every call waiting now, unless the pool has a connection (a busy pool's calls may still get one that is released). */
  failWaiting(error: unknown): void;
  /** How many calls wait. */
  count(): number;
}

/**
 * Calls for connections of `pool` that `failWaiting` fails as they wait: such a call is never run, the
 * connection the pool hands it later goes straight back. `onWait` runs as each call starts waiting.
 */
export function waitingCalls(pool: Pool, onWait: () => void = () => undefined): WaitingCalls {
  const waiting = new Set<(error: unknown) => void>();
  return {
    count: () => waiting.size,
    failWaiting(error) {
      if (pool.totalConnections() > 0) return;
      for (const fail of waiting) fail(error);
    },
    getConnection: () =>
      new Promise((resolve, reject) => {
        let failed = false;
        const fail = (error: unknown) => {
          failed = true;
          waiting.delete(fail);
          reject(error);
        };
        waiting.add(fail);
        onWait();
        pool.getConnection().then(
          (connection) => {
            if (failed) return void connection.release().catch(() => undefined);
            waiting.delete(fail);
            resolve(connection);
          },
          (error: unknown) => {
            if (!failed) fail(error);
          },
        );
      }),
  };
}

/**
 * `pool`, whose every connection is taken through `getConnection`: a statement outside a transaction
 * takes its connection as the pool would, but through it.
 */
export function takingThrough(pool: Pool, getConnection: () => Promise<PoolConnection>): Pool {
  const onAConnection =
    (method: 'query' | 'execute') =>
    async (...args: Parameters<PoolConnection['query']>): Promise<unknown> => {
      const connection = await getConnection();
      try {
        return await connection[method](...args);
      } finally {
        await connection.release();
      }
    };
  const taking: Record<PropertyKey, unknown> = { getConnection, query: onAConnection('query'), execute: onAConnection('execute') };
  return new Proxy(pool, {
    get(target, key) {
      if (Object.hasOwn(taking, key)) return taking[key];
      const value: unknown = Reflect.get(target, key, target);
      // The connector keeps its state in private fields: its methods must run on the pool itself.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A statement on the transaction's connection: rows for a SELECT, the counts and insert id for a write. */
export type Query = (sql: string, args: Arg[]) => Promise<Row[] & Partial<UpsertResult>>;

const OPTIONS = {
  // Never a statement's parameters (messages) in an error, whatever the pool says (an application's own pool logs them by default).
  logParam: false,
  rowsAsArray: true,
  dateStrings: true,
  // JSON columns as the text stored, whatever the server says their type is.
  autoJsonMap: false,
  jsonStrings: true,
  // Counts, sequence numbers and milliseconds are far below 2^53.
  bigIntAsNumber: true,
  insertIdAsNumber: true,
};

/** DATETIME(3) holds UTC: the text a Date is written as. */
const utc = (date: Date) => date.toISOString().replace('T', ' ').replace('Z', '');
const valueOf = (arg: Arg) => (arg instanceof Date ? utc(arg) : arg);

/**
 * Runs `work` in a transaction on one connection of `pool` and commits it, or
 * rolls it back when `work` throws or returns null (nothing to keep). The
 * connector's errors are thrown as they are; db-errors reads them.
 * `repeatableRead`: set the transaction's level first (sent with BEGIN, no round trip of its own).
 */
export async function inMariaDbTransaction<T>(pool: Pool, work: (query: Query) => Promise<T | null>, repeatableRead = false): Promise<T | null> {
  const connection = await pool.getConnection();
  try {
    if (repeatableRead) await Promise.all([connection.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ'), connection.beginTransaction()]);
    else await connection.beginTransaction();
    const result = await work(queryOn(connection)).catch(async (error: unknown) => {
      // The work's error is the one to report; the connection goes back either way.
      await connection.rollback().catch(() => undefined);
      throw error;
    });
    await (result === null ? connection.rollback() : connection.commit());
    return result;
  } finally {
    await connection.release();
  }
}

export const queryOn =
  (connection: PoolConnection): Query =>
  (sql, args) =>
    connection.query({ sql, ...OPTIONS }, args.map(valueOf));

/**
 * Two statements in one transaction on one connection of `pool`, each sent without waiting for the
 * replies before it (the connector pipelines them: about one round trip in all): the second's rows.
 * A failure rolls back what a later COMMIT did not commit, and is the one reported.
 */
export async function pipelinedTransaction(pool: Pool, first: Statement, second: Statement): Promise<Row[]> {
  const connection = await pool.getConnection();
  try {
    const query = queryOn(connection);
    const replies = await Promise.allSettled([
      connection.beginTransaction(),
      query(first.text, first.args),
      query(second.text, second.args),
      connection.commit(),
    ]);
    const failed = replies.find((reply): reply is PromiseRejectedResult => reply.status === 'rejected');
    if (failed) {
      await connection.rollback().catch(() => undefined);
      throw failed.reason;
    }
    return (replies[2] as PromiseFulfilledResult<Row[]>).value;
  } finally {
    await connection.release();
  }
}

/** A statement with its `?` arguments. */
export interface Statement {
  text: string;
  args: Arg[];
}

/** One statement on any connection of `pool`, outside a transaction. */
export const queryPool =
  (pool: Pool): Query =>
  (sql, args) =>
    pool.query({ sql, ...OPTIONS }, args.map(valueOf));
