// Opens the database the options name: the driver adapter for its url, the
// Prisma client generated for its provider, and pending migrations if asked.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from '@nestjs/common';
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { appendPath } from './append-path.js';
import { onPoolError } from './mariadb-pool.js';
import { readPath } from './read-path.js';
import { StoreConfigurationError } from '../store.errors.js';
import type { ResolvedStoreOptions } from '../store.options.js';
import { StoreDatabase } from './database.js';
import { DIALECTS, type Provider } from './dialect.js';
import { toStoreError } from './db-errors.js';
import { shippedMigrations } from './migration-files.js';
import { applyMigrations, type MigrationReport } from './migrator.js';
import { SerializedSqliteAdapterFactory } from './sqlite-adapter.js';
import type { StoreClient } from './store-client.js';

type UrlOptions = Extract<ResolvedStoreOptions, { source: 'url' }>;

export async function openDatabase(options: ResolvedStoreOptions, logger: Logger): Promise<StoreDatabase> {
  if (options.source === 'client') return new StoreDatabase(options.client as StoreClient, DIALECTS[options.provider], false);

  const factory = await adapterFactory(options, logger);
  if (options.migrate) {
    const report = await migrate(factory, options.provider);
    if (report.applied.length > 0) logger.log(`applied migrations: ${report.applied.join(', ')}`);
    if (report.modified.length > 0) logger.warn(`migrations changed after they were applied (not re-run): ${report.modified.join(', ')}`);
  }
  const { PrismaClient } = await clientModule(options.provider);
  // One adapter (one pool) for the client and for the append and read paths, which talk to it (on MariaDB, to its pool) directly.
  const adapter = await factory.connect().catch((error: unknown) => Promise.reject(toStoreError(error)));
  const client = new PrismaClient({ adapter: connected(adapter) as never }) as unknown as StoreClient;
  // A transaction waits for a connection as long as the pool lets any call wait (on SQLite, for the write lock).
  const maxWait = options.provider === 'sqlite' ? options.sqliteBusyTimeoutMs : options.pool.connectionTimeoutMs;
  return new StoreDatabase(client, DIALECTS[options.provider], true, { maxWait, timeout: Math.max(30_000, maxWait) }, appendPath(adapter, options.provider), readPath(adapter, options.provider));
}

/** Applies the shipped migrations of `provider` on a connection of its own. */
export async function migrate(factory: SqlDriverAdapterFactory, provider: Provider): Promise<MigrationReport> {
  const adapter = await factory.connect().catch((error: unknown) => Promise.reject(toStoreError(error)));
  try {
    return await applyMigrations(adapter, provider, shippedMigrations(provider));
  } catch (error) {
    throw toStoreError(error);
  } finally {
    await adapter.dispose();
  }
}

export async function adapterFactory(options: UrlOptions, logger: Logger): Promise<SqlDriverAdapterFactory> {
  switch (options.provider) {
    case 'sqlite': {
      const path = options.url.slice('file:'.length);
      if (path !== ':memory:') ensureDirectory(dirname(resolve(path)));
      return new SerializedSqliteAdapterFactory(options.url, { busyTimeoutMs: options.sqliteBusyTimeoutMs });
    }
    case 'postgresql': {
      const { PrismaPg } = await import('@prisma/adapter-pg');
      return new PrismaPg(
        { connectionString: options.url, max: options.pool.max, connectionTimeoutMillis: options.pool.connectionTimeoutMs },
        // An unhandled pool error would kill the process when the server restarts.
        { onPoolError: (error) => logger.warn(`PostgreSQL pool error: ${error.message}`) },
      );
    }
    case 'mysql': {
      const { PrismaMariaDb } = await import('@prisma/adapter-mariadb');
      const factory = new PrismaMariaDb(
        {
          ...mariadbConnection(options.url),
          connectionLimit: options.pool.max,
          acquireTimeout: options.pool.connectionTimeoutMs,
          // The connector would append a failed statement's parameters (messages, ids) to its error message.
          logParam: false,
        },
        // The binary protocol prepares and closes a server-side statement for every query (the adapter caches none); text sends it once.
        { useTextProtocol: true },
      );
      return {
        provider: factory.provider,
        adapterName: factory.adapterName,
        async connect() {
          const adapter = await factory.connect();
          // Each failed attempt of the pool to open a connection is an 'error' event: logged, as PostgreSQL's pool errors are.
          onPoolError(adapter, (error) => logger.warn(`MariaDB pool error: ${error.message}`));
          return adapter;
        },
      };
    }
  }
}

/** A factory that hands Prisma an adapter already connected; Prisma disposes it on $disconnect. */
const connected = (adapter: SqlDriverAdapter): SqlDriverAdapterFactory => ({
  provider: adapter.provider,
  adapterName: adapter.adapterName,
  connect: async () => adapter,
});

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

function clientModule(provider: Provider): Promise<{ PrismaClient: new (options: { adapter: never }) => unknown }> {
  switch (provider) {
    case 'sqlite':
      return import('../generated/sqlite/client.js');
    case 'postgresql':
      return import('../generated/postgresql/client.js');
    case 'mysql':
      return import('../generated/mysql/client.js');
  }
}

/**
 * Creates the SQLite file's directory one level at a time. Node's recursive
 * mkdirSync never returns for some paths (under /proc it retries forever).
 */
function ensureDirectory(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at); at = dirname(at)) missing.unshift(at);
  try {
    for (const level of missing) mkdirSync(level);
  } catch (error) {
    throw new StoreConfigurationError(`cannot create ${dir} for the SQLite file: ${(error as Error).message}`, { cause: error });
  }
}
