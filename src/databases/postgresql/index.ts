// PostgreSQL, through node-postgres and Prisma's pg adapter (both optional peer dependencies).
import type { PrismaTx } from '../../engine/store-client.js';
import { adapterFailureOf } from '../../engine/db-errors.js';
import { redactText } from '../../engine/redact.js';
import { optionalDriver } from '../../engine/optional-driver.js';
import { requireHost } from '../../engine/server-url.js';
import { insertIfMissing, onConflictDo, lockSubtreeForUpdate, selectForUpdate, tombstoneExists, upsertReturning } from '../../engine/portable-sql.js';
import type { PrismaClientClass, ProviderKit } from '../../engine/provider-kit.js';
import { failoverAdapterFactory, NoPrimaryError } from './failover.js';
import { postgresFastPaths, postgresHostFastPaths, TOMBSTONE_PROBE } from './fast-paths.js';
import { lockMigrations } from './migration-lock.js';
import { replicaPositions } from './replica-positions.js';

// Serialization failure, deadlock, lock not available.
const TRANSIENT = new Set(['40001', '40P01', '55P03']);
// Admin shutdown, crash shutdown, cannot connect now, and the connection exceptions of class 08 but its protocol
// violation (08P01): a statement the server could not take (a bind of more than 65,535 parameters), which no retry mends.
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '08007']);
// node-postgres says in words that the connection went away or never came: pg-pool's timeout (a plain Error),
// a broken client. 55000 is no connection code, so its text tells a database that refuses connections.
const CONNECTION_LOST = /timeout exceeded when trying to connect|Connection terminated|is not queryable|is not currently accepting connections/;
// PgBouncer says in words of its own, under the code of a protocol violation (08P01), that it has no server to
// give: none came free within its query_wait_timeout, the server cannot be reached or went away, it takes no more clients.
const POOLER_UNAVAILABLE =
  /^(query_wait_timeout|client_login_timeout|server login has been failing|pgbouncer cannot connect to server|server conn crashed\?|no more connections allowed|no such database)/;
/** The name Prisma's pg adapter gives itself. */
const PG_ADAPTER = '@prisma/adapter-pg';

/** TOMBSTONE_PROBE through Prisma's transaction client. */
async function deletedSinceAnySnapshot(tx: PrismaTx, id: string): Promise<boolean> {
  if ((await tx.$queryRawUnsafe<unknown[]>(TOMBSTONE_PROBE.insert, id, new Date())).length === 0) return true;
  await tx.$executeRawUnsafe(TOMBSTONE_PROBE.undo, id);
  return false;
}

export const postgresql: ProviderKit = {
  provider: 'postgresql',
  label: 'PostgreSQL',
  schemes: ['postgresql:', 'postgres:'],
  urlStart: 'postgresql://',
  failover: true,
  replicas: replicaPositions,

  checkUrl: requireHost('postgresql://user:password@host:port/database'),

  loadClient: async () => (await import('../../generated/postgresql/client.js')).PrismaClient as unknown as PrismaClientClass,

  async adapterFactory(options, logger) {
    const { PrismaPg } = await optionalDriver('PostgreSQL', ['@prisma/adapter-pg', 'pg'], () => import('@prisma/adapter-pg'));
    const config = { max: options.pool.max, connectionTimeoutMillis: options.pool.connectionTimeoutMs };
    // An unhandled pool error would kill the process when the server restarts.
    const adapterOptions = { onPoolError: (error: Error) => logger.warn(`PostgreSQL pool error: ${redactText(error.message)}`) };
    if (options.failover.length === 0) return new PrismaPg({ connectionString: options.url, ...config }, adapterOptions);
    const { default: pg } = await optionalDriver('PostgreSQL', ['@prisma/adapter-pg', 'pg'], () => import('pg'));
    return failoverAdapterFactory(PrismaPg, pg.Pool, [options.url, ...options.failover], config, adapterOptions);
  },

  // Through failover, a connection may come from the last server after each one before it took the pool's
  // connection timeout to connect (or to free one), and as long again to answer its check.
  maxWaitMs: (options) => options.pool.connectionTimeoutMs * (options.failover.length === 0 ? 1 : 2 * (1 + options.failover.length)),

  serialWrites: false,
  dialect: {
    writeIsolation: 'ReadCommitted',
    readIsolation: 'RepeatableRead',
    // Read committed after the row's lock; at a host's higher level, a delete since its snapshot fails the upsert (40001).
    reserveSeqs: upsertReturning,
    // In the application's transaction, above READ COMMITTED its snapshot may predate the delete: see deletedSinceAnySnapshot.
    isDeleted: (tx, id, inHost) => (inHost ? deletedSinceAnySnapshot(tx, id) : tombstoneExists(tx, id)),
    lockThreads: selectForUpdate((i) => `$${i + 1}`),
    lockSubtree: lockSubtreeForUpdate,
    ensureThread: insertIfMissing,
    onConflict: onConflictDo,
    placeholder: (i) => `$${i + 1}`,
  },

  // Their rows are read as Prisma's pg adapter returns them.
  fastPaths: (adapter) => (adapter.adapterName === PG_ADAPTER ? postgresFastPaths(adapter) : undefined),
  hostFastPaths: (tx, assertOpen) => (tx.adapterName === PG_ADAPTER ? postgresHostFastPaths(tx, assertOpen) : undefined),

  classify(error) {
    if (error instanceof NoPrimaryError || CONNECTION_LOST.test(String((error as Error)?.message ?? ''))) return 'unavailable';
    const failure = adapterFailureOf(error);
    if (failure?.kind !== 'postgres') return undefined;
    const code = String(failure.code);
    if (TRANSIENT.has(code)) return 'transient';
    if (code === '08P01' && POOLER_UNAVAILABLE.test(String(failure.originalMessage))) return 'unavailable';
    return UNAVAILABLE.has(code) ? 'unavailable' : undefined;
  },

  migrations: {
    bookkeepingTable: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`,
    now: 'now()',
    isolation: undefined,
    ddlCommits: false,
    // A transaction-scoped advisory lock: it ends with the transaction.
    lock: lockMigrations,
    unlock: async () => {},
  },
};
