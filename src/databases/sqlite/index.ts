// SQLite, the embedded default: better-sqlite3 behind the store's serialized adapter.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Transaction } from '@prisma/driver-adapter-utils';
import { adapterFailureOf } from '../../engine/db-errors.js';
import { StoreConfigurationError, StoreDatabaseError } from '../../store.errors.js';
import { insertIfMissing, onConflictDo, tombstoneExists, upsertReturning } from '../../engine/portable-sql.js';
import type { PrismaClientClass, ProviderKit } from '../../engine/provider-kit.js';
import { sqliteErasure } from './erasure.js';
import { directStatements, sqliteFastPaths, sqliteHostFastPaths } from './fast-paths.js';
import { SerializedSqliteAdapter, SerializedSqliteAdapterFactory, SqliteTransaction } from './sqlite-adapter.js';

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const BUSY_CODE = /^SQLITE_(BUSY|LOCKED)/;

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
    placeholder: () => '?',
  },

  erasure: sqliteErasure,

  // Prisma's stock better-sqlite3 adapter has no connection of its own to run them on.
  fastPaths: (adapter) => (adapter instanceof SerializedSqliteAdapter ? sqliteFastPaths(adapter) : undefined),
  hostFastPaths: (tx, assertOpen) => (tx instanceof SqliteTransaction ? sqliteHostFastPaths(tx, assertOpen) : undefined),
  statementsOn: (tx) => (tx instanceof SqliteTransaction ? directStatements(tx) : undefined),

  // Busy and locked, as the adapter reports them (kind sqlite, or SocketTimeout with the driver's code) or better-sqlite3 throws them.
  classify(error) {
    const failure = adapterFailureOf(error);
    const code = failure ? failure.originalCode : (error as { code?: unknown })?.code;
    if (typeof code === 'string' && BUSY_CODE.test(code)) return 'transient';
    // better-sqlite3's own code on the fast paths: a unique key (a message id the thread holds) that is taken.
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'conflict';
    if (failure?.kind === 'sqlite' && [SQLITE_BUSY, SQLITE_LOCKED].includes((failure.extendedCode ?? 0) & 0xff)) return 'transient';
    return undefined;
  },

  migrations: {
    bookkeepingTable: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
    now: 'current_timestamp',
    // BEGIN IMMEDIATE: the file's write lock is the migration lock.
    isolation: 'SERIALIZABLE',
    ddlCommits: false,
    lock: async (_tx: Transaction) => {},
    unlock: async (_tx: Transaction) => {},
    // A migration that redefines a table drops the old one: with foreign keys on, that deletes
    // its rows and cascades into the tables that refer to it. PRAGMA foreign_keys is a no-op in a transaction.
    around: { before: 'PRAGMA foreign_keys = OFF', after: 'PRAGMA foreign_keys = ON' },
    verify: async (tx: Transaction) => {
      const broken = await tx.queryRaw({ sql: 'PRAGMA foreign_key_check', args: [], argTypes: [] });
      if (broken.rows.length > 0)
        throw new StoreDatabaseError(
          `the migrated database breaks ${broken.rows.length} foreign key reference(s), first in table ${String(broken.rows[0][0])}`,
        );
    },
  },
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
