// SQLite, the embedded default: better-sqlite3 behind the store's serialized adapter.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreConfigurationError } from '../../store.errors.js';
import { insertIfMissing, onConflictDo, tombstoneExists, upsertReturning } from '../../engine/portable-sql.js';
import type { PrismaClientClass, ProviderKit } from '../../engine/provider-kit.js';
import { sqliteErasure } from './erasure.js';
import { classifySqlite } from './errors.js';
import { sqliteMigrations } from './migrations.js';
import { directStatements, sqliteFastPaths, sqliteHostFastPaths } from './fast-paths.js';
import { placeholder } from './sql.js';
import { SerializedSqliteAdapter, SqliteTransaction } from './sqlite-adapter.js';
import { SerializedSqliteAdapterFactory } from './sqlite-adapter-factory.js';

export const sqlite: ProviderKit = {
  provider: 'sqlite',
  label: 'SQLite',
  schemes: ['file:'],
  urlStart: 'file:',

  checkUrl(url) {
    const path = url.slice('file:'.length);
    if (path.trim() === '') throw new StoreConfigurationError('a SQLite url needs a path, e.g. file:./data/agent-store.db');
    if (path.startsWith(':memory:')) {
      throw new StoreConfigurationError('an in-memory SQLite database lives and dies with one connection, and the store opens several: use a file');
    }
  },

  loadClient: async () => (await import('../../generated/sqlite/client.js')).PrismaClient as unknown as PrismaClientClass,

  async adapterFactory(options) {
    ensureDirectory(dirname(resolve(options.url.slice('file:'.length))));
    return new SerializedSqliteAdapterFactory(options.url, { busyTimeoutMs: options.sqliteBusyTimeoutMs });
  },

  // Prisma's wait for a transaction to start covers the process's queue and then the file's lock, which the adapter
  // waits for sqliteBusyTimeoutMs: it must be the longer, so a file that stays locked fails busy (and is retried),
  // not as "no connection came free in time".
  maxWaitMs: (options) => 2 * options.sqliteBusyTimeoutMs + 1_000,

  serialWrites: true,
  dialect: {
    // Serializable: BEGIN IMMEDIATE, the database's one write lock, so rows need no locks of their own.
    writeIsolation: 'Serializable',
    readIsolation: undefined,
    // One writer: a snapshot is taken under the write lock.
    reserveSeqs: upsertReturning,
    // One writer at a time: a write after another connection's refuses a stale snapshot (SQLITE_BUSY_SNAPSHOT).
    isDeleted: tombstoneExists,
    lockThreads: async () => {},
    lockSubtree: async () => {},
    ensureThread: insertIfMissing,
    onConflict: onConflictDo,
    counted: (statement) => [statement, 'SELECT changes()'],
    placeholder,
  },

  erasure: sqliteErasure,

  // Prisma's stock better-sqlite3 adapter has no connection of its own to run them on.
  fastPaths: (adapter) => (adapter instanceof SerializedSqliteAdapter ? sqliteFastPaths(adapter) : undefined),
  hostFastPaths: (tx, assertOpen) => (tx instanceof SqliteTransaction ? sqliteHostFastPaths(tx, assertOpen) : undefined),
  statementsOn: (tx) => (tx instanceof SqliteTransaction ? directStatements(tx) : undefined),

  classify: classifySqlite,

  migrations: sqliteMigrations,
};

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
