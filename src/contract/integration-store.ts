// What a framework binding is written against (nestjs-agent-store/integration):
// the store's tenancy, the application's transaction, and the binding's own
// statements run in the store's transactions, with its retries and its typed
// errors. No type of the store's engine appears here: a binding writes its own
// SQL, and its events in the store's sessions, and reaches the database only
// through this.
import type { SessionLog, SessionLogReads } from './session-log.js';

/** A value a statement takes: text, a number, a date, bytes or NULL. */
export type SqlValue = string | number | Date | Uint8Array | null;

/**
 * A result row, its columns in the statement's order. Name each column once (a name given twice, or
 * one that reads as a number, may be lost or moved where the store reads through Prisma), and read
 * integers with Number(): a driver may give a number, a bigint or a string.
 */
export type SqlRow = unknown[];

/**
 * A statement whose parameters are written `?`; the store spells them as its database does. Every `?`
 * is one: give a literal that holds one as a parameter, and PostgreSQL's jsonb `?` operators as their
 * functions (`jsonb_exists`).
 */
export interface SqlStatement {
  /** The SQL, its parameters written `?`. */
  text: string;
  /** The parameters' values, one per `?`, in order. */
  args: SqlValue[];
}

/**
 * Reads as a generator: it yields each statement and is given its rows, so that one plan runs on any
 * driver, synchronously where the driver is (SQLite's) and with an await between statements elsewhere.
 */
export type ReadPlan<T> = Generator<SqlStatement, T, SqlRow[]>;

/**
 * The reads of one of the store's transactions, for as long as its `work` runs: afterwards each refuses
 * (StoreConfigurationError). A statement's failure reaches `work` as the driver's error: let it pass,
 * and the call fails with the store's typed error.
 */
export interface IntegrationReads {
  /** Runs a statement that reads; its rows. */
  query(text: string, args?: SqlValue[]): Promise<SqlRow[]>;
}

/** The reads of one of the store's transactions that also reads the sessions' log (see IntegrationReads). */
export interface IntegrationSessionReads extends IntegrationReads {
  /** The sessions and the binding's events in them, in the transaction's snapshot. */
  readonly sessions: SessionLogReads;
}

/** The statements of one of the store's write transactions, and its sessions' log (see IntegrationReads). */
export interface IntegrationTransaction extends IntegrationReads {
  /** Runs a statement that writes and reads nothing back. */
  execute(text: string, args?: SqlValue[]): Promise<void>;
  /** The sessions and the binding's events in them, changed with the transaction's statements. */
  readonly sessions: SessionLog;
}

/** What a binding's SQL may need to know of the database it runs on. */
export interface IntegrationDatabase {
  /** Prisma's name of the database: the dialect of the binding's SQL (`mysql` is MySQL and MariaDB). */
  readonly provider: 'sqlite' | 'postgresql' | 'mysql';
  /**
   * Whether it runs one write transaction at a time (SQLite): a write's reads then see nothing
   * another writer could change before it commits, and a check-then-insert cannot be raced.
   */
  readonly serialWrites: boolean;
  /**
   * The clause after an INSERT for a row whose key `keys` is taken: it keeps the row, or sets its `update`
   * columns to the inserted values. On MySQL and MariaDB it meets any unique key of the table, not `keys` alone.
   */
  onConflict(keys: string[], update: string[]): string;
}

/** How IntegrationStore.write (and writeAll, its `rows`) runs its transaction. */
export interface WriteOptions {
  /** How many rows the write inserts: a long batch may run longer before the store's transaction timeout. */
  rows?: number;
  /**
   * Its statements see one snapshot (REPEATABLE READ where the store's writes run at READ COMMITTED):
   * for a write of several statements that must not interleave with a concurrent one's.
   */
  snapshot?: boolean;
}

/**
 * The store as a binding sees it. Inject it (StoreModule provides it); a binding's own
 * `forTenant` and `withTransaction` hand out the same binding on `forTenant(…)` and
 * `withTransaction(…)` of this. Each call fails with one of the store's typed errors
 * (StoreBusyError for a conflict that outlasted the retries, StoreUnavailableError,
 * StoreDatabaseError, …; a StoreError that `work` throws passes as it is). Outside an
 * application's transaction a call is retried on conflicts as the store's own are, so
 * `work` may run more than once: keep it free of effects outside its transaction. In
 * one, it runs once. Call no store from inside `work`: its transaction holds the
 * connection (or SQLite's file) that call would wait for.
 *
 * Tenancy in the sessions' log is the store's; in the binding's own SQL it is the binding's
 * to keep: a scoped store says its `tenantId`, which that SQL writes into its rows and reads them by.
 */
export abstract class IntegrationStore {
  /** The database, for the dialect of the binding's SQL. */
  abstract readonly database: IntegrationDatabase;
  /** The tenant whose data this sees, or undefined: every tenant's (see forTenant). */
  abstract readonly tenantId: string | undefined;

  /** The same store, seeing `tenantId` (checked as the store checks tenant ids); a StoreConfigurationError when this one is scoped already. */
  abstract forTenant(tenantId: string): IntegrationStore;

  /** The same store, every call of which runs in your transaction `tx` (the client `prisma.$transaction(async (tx) => …)` hands you). */
  abstract withTransaction(tx: object): IntegrationStore;

  /** Throws StoreConfigurationError, naming them, when your own PrismaClient's database lacks the tables of `part` (their migrations are yours). */
  abstract checkTables(part: 'langgraph'): Promise<void>;

  /** Runs `work`'s reads in one snapshot (on the driver, where the store reaches it). */
  abstract read<T>(work: (tx: IntegrationReads) => Promise<T>): Promise<T>;

  /** Runs `work`'s reads, of the sessions' log too, in one snapshot. */
  abstract readSessions<T>(work: (tx: IntegrationSessionReads) => Promise<T>): Promise<T>;

  /** Runs the plan `plan()` makes in one snapshot (made again should the call run again). */
  abstract readPlan<T>(plan: () => ReadPlan<T>): Promise<T>;

  /** Runs `work`'s statements all or nothing, at the store's write level (see WriteOptions). */
  abstract write<T>(work: (tx: IntegrationTransaction) => Promise<T>, options?: WriteOptions): Promise<T>;

  /** Runs `statements` one after another, all or nothing: the fastest write there is (no round trip waits for a read). */
  abstract writeAll(statements: SqlStatement[], options?: Pick<WriteOptions, 'rows'>): Promise<void>;

  /**
   * What the calls that share a transaction share: the same object for calls on the store's own
   * connections, one for each application transaction they run in. A binding that orders calls
   * (in the order they were made, not the order they commit) keys its queues on it.
   */
  abstract transactionKey(): object;
}
