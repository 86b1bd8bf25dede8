// PostgreSQL, through node-postgres and Prisma's pg adapter (both optional peer dependencies).
import type { PrismaTx } from '../../engine/store-client.js';
import { redactText } from '../../values/redact.js';
import { optionalDriver } from '../../engine/optional-driver.js';
import { requireHost } from '../../engine/server-url.js';
import { insertIfMissing, onConflictDo, lockSubtreeForUpdate, selectForUpdate, tombstoneExists, upsertReturning } from '../../engine/portable-sql.js';
import type { PrismaClientClass, ProviderKit } from '../../engine/provider-kit.js';
import { failoverAdapterFactory } from './failover.js';
import { statementNameGenerator } from './statement-names.js';
import { postgresFastPaths, postgresHostFastPaths } from './fast-paths.js';
import { placeholder, SQL } from './sql.js';
import { classifyPostgres } from './errors.js';
import { postgresMigrations } from './migrations.js';
import { replicaPositions } from './replica-positions.js';

/** The name Prisma's pg adapter gives itself. */
const PG_ADAPTER = '@prisma/adapter-pg';

/** SQL.tombstoneProbe through Prisma's transaction client. */
async function deletedSinceAnySnapshot(tx: PrismaTx, id: string): Promise<boolean> {
  if ((await tx.$queryRawUnsafe<unknown[]>(SQL.tombstoneProbe.insert, id, new Date())).length === 0) return true;
  await tx.$executeRawUnsafe(SQL.tombstoneProbe.undo, id);
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
    // The fast paths' hot statements named, so that each connection plans them once (statement-names.ts).
    const adapterOptions = { onPoolError: (error: Error) => logger.warn(`PostgreSQL pool error: ${redactText(error.message)}`), statementNameGenerator };
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
    lockThreads: selectForUpdate(placeholder),
    lockSubtree: lockSubtreeForUpdate,
    ensureThread: insertIfMissing,
    onConflict: onConflictDo,
    counted: (statement) => [`WITH changed AS (${statement} RETURNING 1) SELECT COUNT(*) FROM changed`],
    placeholder,
  },

  // Their rows are read as Prisma's pg adapter returns them.
  fastPaths: (adapter) => (adapter.adapterName === PG_ADAPTER ? postgresFastPaths(adapter) : undefined),
  hostFastPaths: (tx, assertOpen) => (tx.adapterName === PG_ADAPTER ? postgresHostFastPaths(tx, assertOpen) : undefined),

  classify: classifyPostgres,

  migrations: postgresMigrations,
};
