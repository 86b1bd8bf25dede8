// The SQLite driver adapter the store opens files with.
//
// Prisma's better-sqlite3 adapter has one connection per client and starts
// transactions with a deferred BEGIN. Two hazards follow: a query issued while
// an interactive transaction is open runs inside that transaction (and vanishes
// if it rolls back), and a deferred transaction that reads before it writes
// gets SQLITE_BUSY when another process wrote in between. This adapter puts
// every query and every transaction behind one FIFO lock, and takes the write
// lock up front (BEGIN IMMEDIATE) for transactions opened as Serializable; a
// transaction opened with no isolation level is a deferred read snapshot.
//
// The lock belongs to the file, not the connection or the path that named it
// (a symlink, `..`, another spelling): a second connection of this process
// would otherwise meet the first one's SQLite lock and fail. In-process
// connections queue here; another process's lock is waited for on timers
// (busy-wait.ts), never inside a call, so no store call blocks the event loop,
// and outside the queue, so the process's other calls go on meanwhile.
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { ConnectionInfo, IsolationLevel, SqlDriverAdapter, SqlQuery, SqlResultSet, Transaction } from '@prisma/driver-adapter-utils';
import { giveWay } from '../../engine/give-way.js';
import { isBusy, whenNotBusy } from './busy-wait.js';

const statement = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

export class SerializedSqliteAdapter implements SqlDriverAdapter {
  readonly provider = 'sqlite';
  readonly adapterName = 'nestjs-agent-store-sqlite';
  readonly #inner: SqlDriverAdapter;
  readonly #lock: FileLock;
  readonly #openDirect: () => Database.Database;
  readonly #busyTimeoutMs: number;
  #direct: Database.Database | undefined;

  constructor(inner: SqlDriverAdapter, lock: FileLock, openDirect: () => Database.Database, busyTimeoutMs: number) {
    this.#inner = inner;
    this.#lock = lock;
    this.#openDirect = openDirect;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  /**
   * Runs synchronous `work` on a better-sqlite3 connection of its own, behind
   * the same lock as everything else, with `prepared` preparing each statement
   * once: the append and read paths skip the round through Prisma's adapter.
   * `work` is one statement or one better-sqlite3 transaction, so a refusal
   * for another process's lock changed nothing and it can run again.
   */
  direct<T>(work: DirectWork<T>): Promise<T> {
    // After its turn the work runs: checking again could find the slice spent by another caller, every time.
    const turn = giveWay();
    return turn ? turn.then(() => this.#directNow(work)) : this.#directNow(work);
  }

  #directNow<T>(work: DirectWork<T>): Promise<T> {
    const run = () => {
      const db = (this.#direct ??= this.#openDirect());
      return work(db, preparerOf(db));
    };
    // Synchronous work needs the lock only against others: when it is free, no one can come between.
    if (this.#lock.isFree()) {
      try {
        return Promise.resolve(run());
      } catch (error) {
        if (!isBusy(error)) return Promise.reject(error);
      }
    }
    return this.#queued(async () => run());
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.#queued(() => this.#inner.queryRaw(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.#queued(() => this.#inner.executeRaw(query));
  }

  // Several statements, some of which may have committed before one was refused: never run again.
  executeScript(script: string): Promise<void> {
    return this.#lock.run(() => this.#inner.executeScript(script));
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    await giveWay();
    const begin = statement(isolationLevel === 'SERIALIZABLE' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    const release = await whenNotBusy(async () => {
      const release = await this.#lock.acquire();
      try {
        await this.#inner.executeRaw(begin);
        return release;
      } catch (error) {
        release();
        throw error;
      }
    }, this.#busyTimeoutMs);
    return new SqliteTransaction(this.#inner, release, this.#busyTimeoutMs);
  }

  /** `work` behind the lock; refused for another process's lock, it queues again after a pause, leaving the lock to the rest of the process meanwhile. */
  async #queued<T>(work: () => Promise<T>): Promise<T> {
    await giveWay();
    return whenNotBusy(() => this.#lock.run(work), this.#busyTimeoutMs);
  }

  getConnectionInfo(): ConnectionInfo {
    return this.#inner.getConnectionInfo?.() ?? { supportsRelationJoins: false };
  }

  dispose(): Promise<void> {
    return this.#lock
      .run(async () => {
        this.#direct?.close();
        await this.#inner.dispose();
      })
      .finally(() => this.#lock.give());
  }
}

/** Synchronous better-sqlite3 work, `prepared` preparing each statement once per connection. */
export type DirectWork<T> = (db: Database.Database, prepared: (sql: string) => Database.Statement) => T;

const PREPARED = new WeakMap<Database.Database, (sql: string) => Database.Statement>();

function preparerOf(db: Database.Database): (sql: string) => Database.Statement {
  let prepared = PREPARED.get(db);
  if (!prepared) {
    const statements = new Map<string, Database.Statement>();
    prepared = (sql) => {
      let statement = statements.get(sql);
      // Numbers, as the store's own connection reads them (Prisma's connection defaults to BigInts).
      if (!statement) statements.set(sql, (statement = db.prepare(sql).safeIntegers(false)));
      return statement;
    };
    PREPARED.set(db, prepared);
  }
  return prepared;
}

/** Stands for synchronous work in #run, which looks only for COMMIT. */
const DIRECT_WORK = statement('-- direct');

/** Runs on the connection while it holds the lock; Prisma sends COMMIT and ROLLBACK through executeRaw. */
export class SqliteTransaction implements Transaction {
  readonly provider = 'sqlite';
  readonly adapterName = 'nestjs-agent-store-sqlite';
  readonly options = { usePhantomQuery: false };
  readonly #inner: SqlDriverAdapter;
  readonly #release: () => void;
  readonly #busyTimeoutMs: number;
  #open = true;
  /** Whether a statement has run: the transaction holds its lock, read or write. */
  #locked = false;

  constructor(inner: SqlDriverAdapter, release: () => void, busyTimeoutMs: number) {
    this.#inner = inner;
    this.#release = release;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.#run(query, () => this.#inner.queryRaw(query));
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    const changes = await this.#run(query, () => this.#inner.executeRaw(query));
    if (query.sql === 'COMMIT' || query.sql === 'ROLLBACK') this.#open = false;
    return changes;
  }

  /**
   * Runs synchronous `work` on this transaction's connection, in it: the store's fast paths in an
   * application's transaction. A better-sqlite3 transaction function there runs in a savepoint.
   */
  direct<T>(work: DirectWork<T>): Promise<T> {
    if (!this.#open) return Promise.reject(new Error('the transaction was committed or rolled back'));
    const db = (this.#inner as unknown as { client: Database.Database }).client;
    return this.#run(DIRECT_WORK, async () => work(db, preparerOf(db)));
  }

  commit(): Promise<void> {
    return this.#end();
  }

  rollback(): Promise<void> {
    return this.#end();
  }

  async createSavepoint(name: string): Promise<void> {
    await this.#inner.executeRaw(statement(`SAVEPOINT ${name}`));
  }

  async rollbackToSavepoint(name: string): Promise<void> {
    await this.#inner.executeRaw(statement(`ROLLBACK TO ${name}`));
  }

  async releaseSavepoint(name: string): Promise<void> {
    await this.#inner.executeRaw(statement(`RELEASE SAVEPOINT ${name}`));
  }

  // Waiting helps where SQLite's own busy handler would wait: for the first statement, which takes the transaction's
  // lock, and for COMMIT. A later write refused busy found another writer after this transaction read: its snapshot
  // will be stale, only the whole transaction can run again (the store's retries do), and SQLite does not wait either.
  async #run<T>(query: SqlQuery, statement: () => Promise<T>): Promise<T> {
    // A long transaction gives way too: the process's other store calls wait for its lock, its timers and sockets do not.
    await giveWay();
    const waits = !this.#locked || query.sql === 'COMMIT';
    const result = await (waits ? whenNotBusy(statement, this.#busyTimeoutMs) : statement());
    this.#locked = true;
    return result;
  }

  // Prisma calls rollback() without sending ROLLBACK when COMMIT itself failed;
  // the connection must not stay inside the transaction for the next caller.
  async #end(): Promise<void> {
    try {
      if (this.#open) await this.#inner.executeRaw(statement('ROLLBACK'));
    } finally {
      this.#open = false;
      this.#release();
    }
  }
}

/** A FIFO lock shared by every connection of this process to one file. */
class FileLock {
  #tail: Promise<void> = Promise.resolve();
  #holders = 0;
  /** Acquired or waiting, not yet released. */
  #queued = 0;

  constructor(private readonly onUnused: () => void) {}

  take(): this {
    this.#holders++;
    return this;
  }

  give(): void {
    if (--this.#holders === 0) this.onUnused();
  }

  isFree(): boolean {
    return this.#queued === 0;
  }

  acquire(): Promise<() => void> {
    let release!: () => void;
    this.#queued++;
    const released = new Promise<void>((resolve) => (release = resolve)).then(() => {
      this.#queued--;
    });
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => released);
    return acquired;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/** The lock of each file this process has open, shared by the factory's connections. */
export const FileLocks = {
  byFile: new Map<string, FileLock>(),

  /** The lock of the file at `path`, which exists: its device and inode, however the path spells it. */
  take(path: string): FileLock {
    // Every in-memory database is a database of its own.
    if (path === ':memory:') return new FileLock(() => {}).take();
    const { dev, ino } = statSync(path, { bigint: true });
    const key = `${dev}:${ino}`;
    let lock = this.byFile.get(key);
    if (!lock) {
      lock = new FileLock(() => this.byFile.delete(key));
      this.byFile.set(key, lock);
    }
    return lock.take();
  },
};
