// Opens the database the options name: its kit's driver adapter, the Prisma
// client generated for it, pending migrations if asked, and the fast paths.
import type { Logger } from '@nestjs/common';
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { sql } from './adapter-statement.js';
import { clientFastPaths, ownPoolFastPaths } from './fast-path-source.js';
import type { ProviderKit, Query, RetryPolicy, UrlOptions } from './provider-kit.js';
import { redactUrl } from '../values/redact.js';
import { StoreConfigurationError } from '../store.errors.js';
import type { ResolvedStoreOptions, TransactionHostLike } from './resolved-options.js';
import { StoreDatabase } from './database.js';
import { toStoreError } from './db-errors.js';
import { shippedMigrations } from './migration-files.js';
import { applyMigrations, type MigrationReport } from './migrator.js';
import { watchClientAdapter, isTransactionOf } from './client-adapter.js';
import { ReplicaReads, type ReplicaServer } from './replica-reads.js';
import { checkStoreSchema } from './schema-check.js';
import type { PrismaTx, StoreClient } from './store-client.js';

export async function openDatabase(options: ResolvedStoreOptions, logger: Logger): Promise<StoreDatabase> {
  const { kit } = options;
  if (options.source === 'client') return openClient(options, logger);

  const factory = await kit.adapterFactory(options, logger);
  if (options.migrate) {
    const report = await migrate(factory, kit);
    if (report.applied.length > 0) logger.log(`applied migrations: ${report.applied.join(', ')}`);
    if (report.modified.length > 0) logger.warn(`migrations changed after they were applied (not re-run): ${report.modified.join(', ')}`);
  }
  const primary = await openPool(factory, options);
  const replicas: ReplicaServer<StoreDatabase>[] = [];
  try {
    for (const url of options.replicas) {
      const replica = await openPool(await kit.adapterFactory({ ...options, url, failover: [] }, logger), options);
      replicas.push({ name: redactUrl(url), db: replica.db(), query: replica.query });
    }
  } catch (error) {
    await Promise.all([primary.close(), ...replicas.map((replica) => replica.db.close())]);
    throw error;
  }
  const reads = replicas.length > 0 ? new ReplicaReads(primary.query, replicas, kit.replicas!, options.maxReplicaLagMs, logger) : undefined;
  return primary.db(reads, async () => {
    reads?.close();
    await Promise.all(replicas.map((replica) => replica.db.close()));
  });
}

/** The store's own pool on the server `factory` connects to, with a Prisma client and the fast paths on it. */
async function openPool(factory: SqlDriverAdapterFactory, options: Extract<ResolvedStoreOptions, { source: 'url' }>) {
  const { kit } = options;
  const PrismaClient = await kit.loadClient();
  // One adapter (one pool) for the client and for the fast paths, which talk to it (on MariaDB, to its pool) directly.
  const adapter = await factory.connect().catch((error: unknown) => Promise.reject(toStoreError(error, kit)));
  const shared = sharedWithPrisma(adapter);
  const client = new PrismaClient({ adapter: shared.factory }) as StoreClient;
  // A transaction waits for a connection as long as the pool lets any call wait (on SQLite, for the write lock).
  const maxWait = kit.maxWaitMs(options);
  const fastPathSource = ownPoolFastPaths(kit, adapter);
  const close = async () => {
    await client.$disconnect();
    await shared.disposeUnlessTaken();
  };
  return {
    close,
    query: (async (statement) => (await adapter.queryRaw(sql(statement, []))).rows) as Query,
    /** The database on this pool; `replicas`, and `closeToo`, which closes with it. */
    db: (replicas?: ReplicaReads<StoreDatabase>, closeToo?: () => Promise<void>) =>
      new StoreDatabase(client, kit, {
        retry: kit.retryPolicyOn?.(adapter),
        limits: { maxWait, timeout: Math.max(30_000, maxWait) },
        fastPathSource,
        replicas,
        rebuildAfter: options.sqliteVacuum,
        close: async () => {
          try {
            await close();
          } finally {
            await closeToo?.();
          }
        },
      }),
  };
}

/**
 * The application's own client: the fast paths on the adapter it runs on, and
 * its host transactions joined when a TransactionHost was given.
 */
async function openClient(options: Extract<ResolvedStoreOptions, { source: 'client' }>, logger: Logger): Promise<StoreDatabase> {
  const { kit, transactionHost } = options;
  const client = options.client as StoreClient;
  // Watched before the check's first query connects the client.
  const adapter = await watchClientAdapter(client).catch((error: unknown) => Promise.reject(toStoreError(error, kit)));
  await checkStoreSchema(client, kit);
  if (!adapter) {
    logger.warn(
      "the store cannot reach your PrismaClient's driver adapter (its adapter factory cannot be wrapped): every call goes through Prisma, without the fast paths",
    );
  } else if (!(await adapter())) {
    logger.warn(
      'the store cannot reach the driver adapter under your PrismaClient (it connected before the store started): every call goes through Prisma, without the fast paths',
    );
  }
  const hostTransaction = transactionHost && (() => hostTransactionOf(transactionHost, client));
  const retry = await retryPolicyOf(kit, async (statement) => (await client.$queryRawUnsafe<Record<string, unknown>[]>(statement)).map(Object.values), logger);
  return new StoreDatabase(client, kit, {
    retry,
    fastPathSource: adapter && clientFastPaths(kit, adapter),
    hostTransaction,
    checkTables: (part) => checkStoreSchema(client, kit, part),
    rebuildAfter: options.sqliteVacuum,
  });
}

/** The kit's retries for the database `query` reaches (see ProviderKit.retryPolicy); a failure to ask is a StoreError. */
async function retryPolicyOf(kit: ProviderKit, query: Query, logger: Logger): Promise<RetryPolicy | undefined> {
  try {
    return await kit.retryPolicy?.(query, logger);
  } catch (error) {
    throw toStoreError(error, kit);
  }
}

/** The TransactionHost's open transaction, which must be one of the store's client: another client's runs on another connection. */
function hostTransactionOf(host: TransactionHostLike, client: StoreClient): PrismaTx | undefined {
  if (!host.isTransactionActive()) return undefined;
  const tx = host.tx;
  if (!isTransactionOf(tx, client)) {
    throw new StoreConfigurationError(
      "the TransactionHost's transaction is not one of the PrismaClient given to StoreModule: give its Prisma adapter (prismaInjectionToken) and StoreModule the same client",
    );
  }
  return tx as PrismaTx;
}

/** Applies the shipped migrations of `kit`'s database on a connection of its own. */
export async function migrate(factory: SqlDriverAdapterFactory, kit: ProviderKit): Promise<MigrationReport> {
  const adapter = await factory.connect().catch((error: unknown) => Promise.reject(toStoreError(error, kit)));
  try {
    return await applyMigrations(adapter, kit, shippedMigrations(kit.provider));
  } catch (error) {
    throw toStoreError(error, kit);
  } finally {
    await adapter.dispose();
  }
}

/** Applies the shipped migrations to the database `options` name (what `npm run db:migrate` does). */
export async function migrateUrl(options: { kit: ProviderKit } & UrlOptions, logger: Logger): Promise<MigrationReport> {
  return migrate(await options.kit.adapterFactory(options, logger), options.kit);
}

/**
 * Hands Prisma an adapter already connected. Prisma connects it on its first
 * query and disposes it on $disconnect, but only then: a store whose every call
 * took a fast path must dispose it itself, or its pool stays open.
 */
function sharedWithPrisma(adapter: SqlDriverAdapter): { factory: SqlDriverAdapterFactory; disposeUnlessTaken(): Promise<void> } {
  let taken = false;
  return {
    factory: {
      provider: adapter.provider,
      adapterName: adapter.adapterName,
      connect: async () => {
        taken = true;
        return adapter;
      },
    },
    disposeUnlessTaken: async () => {
      if (!taken) await adapter.dispose();
    },
  };
}
