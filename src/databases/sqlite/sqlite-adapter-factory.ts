// The factory of the SQLite adapter (sqlite-adapter.ts) that the store opens files
// with, and that an app may give its own PrismaClient. Apart from the adapter so
// that the public declarations name no better-sqlite3 type: an app compiled with
// skipLibCheck off needs no @types/better-sqlite3.
import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { whenNotBusy } from './busy-wait.js';
import { FileLocks, SerializedSqliteAdapter } from './sqlite-adapter.js';

/** Options of SerializedSqliteAdapterFactory. */
export interface SqliteOptions {
  /** How long a statement waits for another process's write lock, on timers, in milliseconds. Default 10,000. */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/** A driver adapter factory for `new PrismaClient({ adapter })` that is safe to share within a process and across processes. */
export class SerializedSqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  /** Prisma's name of the database: `'sqlite'`. */
  readonly provider = 'sqlite';
  /** The adapter's name, `'nestjs-agent-store-sqlite'`. */
  readonly adapterName = 'nestjs-agent-store-sqlite';
  readonly #url: string;
  readonly #busyTimeoutMs: number;

  /** `url` names the file, `file:<path>` as in Prisma's SQLite urls; nothing is opened until Prisma connects. */
  constructor(url: string, options: SqliteOptions = {}) {
    this.#url = url;
    this.#busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  }

  /**
   * Opens a connection to the file (creating it if missing), behind the file's lock, with the store's pragmas
   * (WAL, foreign keys, secure_delete).
   */
  connect(): Promise<SqlDriverAdapter> {
    return this.#open(this.#url);
  }

  /** Opens a connection to a new in-memory database, for Prisma's shadow database. */
  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.#open(':memory:');
  }

  async #open(url: string): Promise<SqlDriverAdapter> {
    // Opening creates the file, so the lock can be the file's.
    const inner = await new PrismaBetterSqlite3({ url, timeout: 0 }).connect();
    try {
      await whenNotBusy(() => inner.executeScript(PRAGMAS), this.#busyTimeoutMs);
      return new SerializedSqliteAdapter(inner, FileLocks.take(pathOf(url)), () => this.#direct(url), this.#busyTimeoutMs);
    } catch (error) {
      await inner.dispose();
      throw error;
    }
  }

  #direct(url: string): Database.Database {
    const db = new Database(pathOf(url), { timeout: 0 });
    try {
      db.exec(PRAGMAS);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }
}

/**
 * Every connection to the file runs with these. busy_timeout = 0: SQLite never sleeps inside a call, whenNotBusy waits.
 * secure_delete: a delete overwrites what it deleted with zeros (see erasure.ts).
 */
const PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 0; PRAGMA secure_delete = ON;';

const pathOf = (url: string) => url.replace(/^file:/, '');
