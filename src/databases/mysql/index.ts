// MySQL and MariaDB, through Prisma's MariaDB adapter and the mariadb connector (both optional peer dependencies).
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { adapterFailureOf } from '../../engine/db-errors.js';
import { redactText } from '../../values/redact.js';
import type { PrismaTx } from '../../engine/store-client.js';
import { optionalDriver } from '../../engine/optional-driver.js';
import { requireHost } from '../../engine/server-url.js';
import { lockSubtreeForUpdate, selectForUpdate } from '../../engine/portable-sql.js';
import type { PrismaClientClass, ProviderKit } from '../../engine/provider-kit.js';
import { classifyMysql } from './errors.js';
import { mysqlFastPaths, mysqlHostFastPaths } from './fast-paths.js';
import { mysqlMigrations } from './migrations.js';
import { assertSnapshotCurrent, type ThreadRowReads } from './snapshot-check.js';
import { placeholder, SQL } from './sql.js';
import { onPoolError } from './mariadb-pool.js';
import { refusingAtOnce } from './refusals.js';
import { failingOver } from './failover.js';
import { GALERA_RETRY, galeraAware, isGaleraNode, SYNC_WAIT } from './galera.js';

const lastSeqOf = async (tx: PrismaTx, threadId: string, locking = false) =>
  (await tx.$queryRawUnsafe<{ last_seq: number | bigint }[]>(SQL.lastSeq(locking), threadId)).map((row) => Number(row.last_seq))[0];

/** The snapshot check's statements through Prisma's transaction client. */
const throughPrisma = (tx: PrismaTx): ThreadRowReads => ({
  lockUnchanged: async (threadId, now) => void (await tx.$executeRawUnsafe(SQL.lockUnchanged, threadId, now, now)),
  lastSeq: (threadId, locking) => lastSeqOf(tx, threadId, locking),
});

/** Whether a connection found the server behind an adapter the kit made (one of its nodes) to be a Galera node. */
const galeraOf = new WeakMap<SqlDriverAdapter, () => boolean>();

/** The name Prisma's MariaDB adapter gives itself. */
const MARIADB_ADAPTER = '@prisma/adapter-mariadb';

/** A pool error's message on one line, with the server's refusal it wraps ("Error during pool initialization: … Access denied …"). */
const withCause = (error: Error) =>
  [error.message, (error.cause as Error | undefined)?.message]
    .filter(Boolean)
    .join(': ')
    .replace(/\s*\n\s*/g, ' ');

/** The MariaDB connector's connection options for a mysql:// url. */
export function mariadbConnection(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.slice(1)) || undefined,
  };
}

export const mysql: ProviderKit = {
  provider: 'mysql',
  label: 'MySQL/MariaDB',
  schemes: ['mysql:', 'mariadb:'],
  urlStart: 'mysql://',
  failover: true,

  checkUrl: requireHost('mysql://user:password@host:port/database'),

  loadClient: async () => (await import('../../generated/mysql/client.js')).PrismaClient as unknown as PrismaClientClass,

  async adapterFactory(options, logger) {
    const [{ PrismaMariaDb }, mariadb] = await optionalDriver('MySQL/MariaDB', ['@prisma/adapter-mariadb', 'mariadb'], () =>
      Promise.all([import('@prisma/adapter-mariadb'), import('mariadb')]),
    );
    const connection = mariadbConnection(options.url);
    const poolConfig = {
      ...connection,
      connectionLimit: options.pool.max,
      acquireTimeout: options.pool.connectionTimeoutMs,
      // The connector would append a failed statement's parameters (messages, ids) to its error message.
      logParam: false,
      // The fast paths' transactions rely on REPEATABLE READ, whatever the server's default: a read's two
      // statements share a snapshot, and an append's tombstone check is a locking read. Prisma's
      // transactions set their own level each time.
      initSql: 'SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ',
      // What the adapter sets on a pool of its own: it caches no prepared statement.
      prepareCacheLength: 0,
    };
    // The binary protocol prepares and closes a server-side statement for every query (the adapter caches none); text sends it once.
    const adapterOptions = { useTextProtocol: true, disposeExternalPool: true };
    // Each connect makes a pool and an adapter factory on it: the pool is ours to create, so that a refusal fails
    // the calls at once, and the adapter ends it on dispose. This factory only tells the names; it never connects.
    const { provider, adapterName } = new PrismaMariaDb(poolConfig, adapterOptions);
    return {
      provider,
      adapterName,
      async connect() {
        // On a Galera node, every connection reads at the cluster's latest commit (see galera.ts); with failover urls, a pool per node.
        const nodes = [options.url, ...options.failover].map((url) => {
          const node = { ...poolConfig, ...mariadbConnection(url) };
          return galeraAware(refusingAtOnce(mariadb.createPool(node), () => mariadb.createConnection(mariadbConnection(url))));
        });
        const pool = nodes.length === 1 ? nodes[0].pool : failingOver(nodes.map((node) => node.pool));
        const galera = () => nodes.some((node) => node.galera() === true);
        // Each failed attempt of the pool to open a connection is an 'error' event: logged, as PostgreSQL's pool errors are.
        onPoolError(pool, (error) => logger.warn(`MariaDB pool error: ${redactText(withCause(error))}`));
        // The pool is the app's mariadb (the peer dependency); the adapter, which pins a copy of its own, reads a pool by its methods.
        const adapter = await new PrismaMariaDb(pool as unknown as ConstructorParameters<typeof PrismaMariaDb>[0], adapterOptions).connect();
        galeraOf.set(adapter, galera);
        return adapter;
      },
    };
  },

  maxWaitMs: (options) => options.pool.connectionTimeoutMs,

  serialWrites: false,
  dialect: {
    writeIsolation: 'ReadCommitted',
    readIsolation: 'RepeatableRead',
    lockThreads: selectForUpdate(placeholder),
    lockSubtree: lockSubtreeForUpdate,
    onConflict: SQL.onConflict,
    counted: (statement) => [statement, 'SELECT ROW_COUNT()'],
    tombstoneLockingRead: SQL.tombstone,
    placeholder,
    // A racing insert of the same id makes ours a duplicate, which (MySQL keeps the transaction) means it exists.
    async ensureThread(tx, id, now) {
      try {
        const inserted = await tx.$executeRawUnsafe(SQL.ensureThread, id, now, now, id);
        return inserted > 0;
      } catch (error) {
        if (adapterFailureOf(error)?.kind !== 'UniqueConstraintViolation' && (error as { code?: string }).code !== 'P2002') throw error;
        return false;
      }
    },
    // MySQL has no RETURNING on upserts; its own write is visible to the read that follows.
    async reserveSeqs(tx, threadId, count, now, inHost) {
      if (inHost) await assertSnapshotCurrent(throughPrisma(tx), threadId, now);
      await tx.$executeRawUnsafe(SQL.reserveSeqs, threadId, count, now, now);
      return (await lastSeqOf(tx, threadId))!;
    },
    // A locking read sees the latest committed row at any level.
    isDeleted: async (tx, id) => (await tx.$queryRawUnsafe<unknown[]>(SQL.tombstone, id)).length > 0,
  },

  // They run on the connector pool under Prisma's MariaDB adapter.
  fastPaths: (adapter, ownPool) => (adapter.adapterName === MARIADB_ADAPTER ? mysqlFastPaths(adapter, ownPool) : undefined),
  // On the connection under the adapter's transaction.
  hostFastPaths: (tx, assertOpen) => (tx.adapterName === MARIADB_ADAPTER ? mysqlHostFastPaths(tx, assertOpen) : undefined),

  // A Galera node: more retries of the conflicts its certification finds.
  retryPolicyOn: (adapter) => () => (galeraOf.get(adapter)?.() ? GALERA_RETRY : undefined),
  // The same on an application's pool, with a warning when its reads may miss other nodes' commits.
  async retryPolicy(query, logger) {
    if (!(await isGaleraNode(query))) return undefined;
    if ((Number((await query('SELECT @@SESSION.wsrep_sync_wait'))[0]?.[0]) & 1) === 0) {
      logger.warn(
        `the database is a Galera node and your pool's connections read without waiting for the cluster: a read may miss what another node just committed. Set initSql: '${SYNC_WAIT}' in your PrismaMariaDb options`,
      );
    }
    return GALERA_RETRY;
  },

  classify: classifyMysql,

  migrations: mysqlMigrations,
};
