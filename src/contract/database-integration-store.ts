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
import {
  IntegrationStore,
  type IntegrationDatabase,
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

  withTransaction(tx: unknown): IntegrationStore {
    return new DatabaseIntegrationStore(this.db.joining(tx), this.tenantId);
  }

  checkTables(part: 'langgraph'): Promise<void> {
    return this.db.checkTables(part);
  }

  async read<T>(work: (tx: IntegrationTransaction) => Promise<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    if (fast?.transaction)
      return fast.transaction(false, (run) =>
        work({ query: (text, args = []) => run(text, args), execute: async (text, args = []) => void (await run(text, args)) }),
      );
    return this.db.read((tx) => work(this.#onPrisma(tx)));
  }

  async readPlan<T>(plan: () => ReadPlan<T>): Promise<T> {
    const fast = await this.db.fastPaths();
    if (fast?.readAll) return fast.readAll(plan);
    return this.read((tx) => runPlan(plan(), (text, args) => tx.query(text, args)));
  }

  write<T>(work: (tx: IntegrationTransaction) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const level = this.db.kit.dialect.writeIsolation;
    // A snapshot for the whole write where writes run at READ COMMITTED (PostgreSQL, MySQL); SQLite's one writer sees one already.
    const snapshot = options.snapshot && level === 'ReadCommitted' ? 'RepeatableRead' : level;
    return this.db.write((tx) => work(this.#onPrisma(tx)), options.rows ?? 0, snapshot);
  }

  async writeAll(statements: SqlStatement[], options: Pick<WriteOptions, 'rows'> = {}): Promise<void> {
    const fast = await this.db.fastPaths();
    if (fast?.writeAll) return fast.writeAll(statements);
    await this.write(async (tx) => {
      for (const { text, args } of statements) await tx.execute(text, args);
    }, options);
  }

  /** Statements through Prisma's raw queries in the store's transaction `tx`, their `?` spelled as its database's. */
  #onPrisma(tx: StoreTx): IntegrationTransaction {
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
