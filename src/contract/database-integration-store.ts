// The integration contract on the store's database: each call on the driver's
// fast paths where the kit has them, through Prisma's raw queries elsewhere,
// with the retries, host transactions and errors of every store call.
import { spelled } from '../engine/adapter-statement.js';
import { runPlan } from '../engine/adapter-transactions.js';
import type { StoreDatabase } from '../engine/database.js';
import type { StoreTx } from '../engine/dialect.js';
import type { ProviderKit } from '../engine/provider-kit.js';
import { StoreConfigurationError } from '../store.errors.js';
import { idOf } from '../values/validation.js';
import { DatabaseSessionLog, DatabaseSessionLogReads } from './database-session-log.js';
import {
  IntegrationStore,
  type IntegrationDatabase,
  type IntegrationReads,
  type IntegrationSessionReads,
  type IntegrationTransaction,
  type ReadPlan,
  type SqlStatement,
  type SqlValue,
  type WriteOptions,
} from './integration-store.js';

/** One per kit: a binding may key what it makes of its SQL on it (a store's copies share it). */
const DATABASES = new WeakMap<ProviderKit, IntegrationDatabase>();
function databaseOf(kit: ProviderKit): IntegrationDatabase {
  let database = DATABASES.get(kit);
  if (!database) {
    database = { provider: kit.provider, serialWrites: kit.serialWrites, onConflict: (keys, update) => kit.dialect.onConflict(keys, update) };
    DATABASES.set(kit, database);
  }
  return database;
}

export class DatabaseIntegrationStore extends IntegrationStore {
  readonly database: IntegrationDatabase;

  constructor(
    private readonly db: StoreDatabase,
    readonly tenantId: string | undefined = undefined,
  ) {
    super();
    this.database = databaseOf(db.kit);
  }

  forTenant(tenantId: string): IntegrationStore {
    if (this.tenantId !== undefined) throw new StoreConfigurationError(`this store is tenant ${this.tenantId}'s already`);
    return new DatabaseIntegrationStore(this.db, idOf(tenantId, 'tenantId'));
  }

  withTransaction(tx: object): IntegrationStore {
    return new DatabaseIntegrationStore(this.db.joining(tx), this.tenantId);
  }

  checkTables(part: 'langgraph'): Promise<void> {
    return this.db.checkTables(part);
  }

  async read<T>(work: (tx: IntegrationReads) => Promise<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    if (fast?.transaction) return fast.transaction(false, (run) => whileOpen(work, { query: (text: string, args: SqlValue[] = []) => run(text, args) }));
    return this.db.read((tx) => whileOpen(work, { query: this.#onPrisma(tx).query }));
  }

  readSessions<T>(work: (tx: IntegrationSessionReads) => Promise<T>): Promise<T> {
    return this.db.read((tx) => whileOpen(work, { query: this.#onPrisma(tx).query, sessions: new DatabaseSessionLogReads(tx, this.tenantId) }));
  }

  async readPlan<T>(plan: () => ReadPlan<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    if (fast?.readAll) return fast.readAll(plan);
    // No fast paths here (they would have readAll): the plan on Prisma's raw queries, without asking for them again.
    return this.db.read((tx) => runPlan(plan(), this.#onPrisma(tx).query));
  }

  write<T>(work: (tx: IntegrationTransaction) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const level = this.db.kit.dialect.writeIsolation;
    // A snapshot for the whole write where writes run at READ COMMITTED (PostgreSQL, MySQL); SQLite's one writer sees one already.
    const snapshot = options.snapshot && level === 'ReadCommitted' ? 'RepeatableRead' : level;
    return this.db.write((tx) => whileOpen(work, { ...this.#onPrisma(tx), sessions: new DatabaseSessionLog(tx, this.tenantId) }), options.rows ?? 0, snapshot);
  }

  async writeAll(statements: SqlStatement[], options: Pick<WriteOptions, 'rows'> = {}): Promise<void> {
    const fast = await this.db.fastPaths();
    if (fast?.writeAll) return fast.writeAll(statements);
    await this.write(async (tx) => {
      for (const { text, args } of statements) await tx.execute(text, args);
    }, options);
  }

  transactionKey(): object {
    return this.db.callOrderKey();
  }

  /** Statements through Prisma's raw queries in the store's transaction `tx`, their `?` spelled as its database's. */
  #onPrisma(tx: StoreTx): Omit<IntegrationTransaction, 'sessions'> {
    const placeholder = this.db.kit.dialect.placeholder;
    return {
      query: async (text, args = []) =>
        (await tx.prisma.$queryRawUnsafe<Record<string, unknown>[]>(spelled(text, placeholder), ...args.map(ownBytes))).map(Object.values),
      execute: async (text, args = []) => void (await tx.prisma.$executeRawUnsafe(spelled(text, placeholder), ...args.map(ownBytes))),
    };
  }
}

/** Bytes in an ArrayBuffer of their own, as Prisma takes them (it reads a view's whole buffer). */
const ownBytes = (value: SqlValue): SqlValue =>
  value instanceof Uint8Array && (value.byteOffset !== 0 || value.byteLength !== value.buffer.byteLength) ? new Uint8Array(value) : value;

/**
 * Runs `work` on `statements` that refuse once it has settled: a statement sent after (a handle kept,
 * a promise not awaited) would run outside the transaction, or in another caller's on its connection.
 * One still running when `work` settles (not awaited) fails the call, after it ends: the transaction
 * must not commit half of what it was doing.
 */
async function whileOpen<S extends object, T>(work: (statements: S) => Promise<T>, statements: S): Promise<T> {
  let open = true;
  const running = new Set<Promise<unknown>>();
  const guard =
    (name: string, call: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      if (!open)
        return Promise.reject(new StoreConfigurationError(`this transaction's work has returned: a statement (${name}) after it would run outside it`));
      const result = Promise.resolve().then(() => call(...args));
      running.add(result);
      void result.then(
        () => running.delete(result),
        () => running.delete(result),
      );
      return result;
    };
  const guarded = Object.fromEntries(
    Object.entries(statements).map(([name, part]) => [name, typeof part === 'function' ? guard(name, part) : guardedLog(part as object, guard)]),
  ) as S;
  try {
    let result: T;
    try {
      result = await work(guarded);
    } catch (error) {
      // The transaction rolls back once nothing of it is running.
      await Promise.allSettled([...running]);
      throw error;
    }
    if (running.size > 0) {
      await Promise.allSettled([...running]);
      throw new StoreConfigurationError("this transaction's work returned while a statement it started was still running: await each one");
    }
    return result;
  } finally {
    open = false;
  }
}

/** The sessions' log's methods, each behind `guard`. */
function guardedLog(log: object, guard: (name: string, call: (...args: unknown[]) => unknown) => unknown): object {
  const methods = new Set<string>();
  for (let proto = Object.getPrototypeOf(log); proto !== Object.prototype; proto = Object.getPrototypeOf(proto))
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') methods.add(name);
  const target = log as Record<string, (...args: unknown[]) => unknown>;
  return Object.freeze(Object.fromEntries([...methods].map((name) => [name, guard(`sessions.${name}`, (...args) => target[name](...args))])));
}
