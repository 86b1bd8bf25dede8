// What a database brings to the store. Everything that differs between the
// databases lives in one kit per database (src/databases/<name>/), behind this
// interface; the rest of the store never asks which database it runs on.
// A new database is a new kit, its migrations and a test opener.
import type { Logger } from '@nestjs/common';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import type { HistoryMessage, Message } from '../message.types.js';
import type { SessionListQuery } from './tables/session-list.js';
import type { SessionMeta, SessionUpdate } from '../session.types.js';
import type { Dialect } from './dialect.js';
import type { InTransaction, ReadAll, Run, WriteAll } from './adapter-statement.js';

/**
 * Prisma's names of the databases the store runs on: each has a kit, a schema,
 * a generated client and migrations named after it. The build scripts read this list.
 */
export const PROVIDERS = ['sqlite', 'postgresql', 'mysql'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** What a failure of the database means to the store. Anything else is a plain database failure. */
export type FailureKind =
  /** A conflict the same work, run again, may not meet: deadlock, serialization failure, lock timeout, busy file. */
  | 'transient'
  /** The database cannot be reached, refuses the store, or no connection came free in time. */
  | 'unavailable'
  /** A value the database cannot hold (a sequence number past its INTEGER column). */
  | 'validation'
  /** A unique key that is taken. */
  | 'conflict';

/** How a conflict is retried: bounded, jittered (see retry.ts). */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The failures these retries are for; any other transient one gets the default's. */
  only?: (error: unknown) => boolean;
}

/** The options a kit opens a url with (checked by resolveOptions). */
export interface UrlOptions {
  url: string;
  /** Other servers of the same database, tried in order when `url`'s cannot be reached (kits with `failover`). */
  failover: string[];
  /** Hot standbys of the database, for the reads that tolerate one (kits with `replicas`). */
  replicas: string[];
  /** How far behind the primary, in time, a replica may be and still take reads. */
  maxReplicaLagMs: number;
  migrate: boolean;
  pool: { max: number; connectionTimeoutMs: number };
  sqliteBusyTimeoutMs: number;
}

/** A generated Prisma client class. */
export type PrismaClientClass = new (options: { adapter: SqlDriverAdapterFactory }) => unknown;

/**
 * The hot operations, straight on the driver the store opened (no Prisma
 * client in between). Each is atomic on its own and sees one snapshot.
 */
export interface FastPaths {
  /**
   * Appends `messages` (at least one) and returns the last sequence number
   * handed out. Unscoped (`tenantId` undefined) it creates a missing thread,
   * and a deleted one is StoreNotFoundError. Scoped, null when the thread is
   * not the tenant's: nothing was written (the store answers StoreNotFoundError).
   */
  append(threadId: string, messages: Message[], now: Date, tenantId: string | undefined): Promise<number | null>;
  /** The effective history; `[]` for an unknown thread, null when scoped and the thread is not the tenant's. */
  history(threadId: string, tenantId: string | undefined): Promise<HistoryMessage[] | null>;
  /** The effective history's length; null as for `history`. */
  count(threadId: string, tenantId: string | undefined): Promise<number | null>;
  /** The headers of a page of sessions, newest first, and of one more when another page follows. */
  listSessions(query: SessionListQuery): Promise<SessionMeta[]>;
  /**
   * Sets the session's title and metadata as given (undefined: kept, null: cleared) and its
   * updatedAt to `now`, in one statement, and returns its header; null when it does not exist
   * or (scoped) is not the tenant's. Absent where the kit has no such statement.
   */
  updateHeader?(id: string, changes: SessionUpdate, now: Date, tenantId: string | undefined): Promise<SessionMeta | null>;
  /** Statements of the store's own in one transaction on the same driver (see adapter-transactions.ts); absent where they cannot run. */
  transaction?: InTransaction;
  /** Statements that read nothing back, run all or nothing (a kit may run them faster than `transaction` would); absent as `transaction` is. */
  writeAll?: WriteAll;
  /** A read plan in one snapshot (a kit may run it faster than `transaction` would); absent as `transaction` is. */
  readAll?: ReadAll;
}

/** How the migration runner records and locks on this database, as `prisma migrate deploy` does. */
export interface MigrationSteps {
  /** Prisma's DDL for `_prisma_migrations`. */
  readonly bookkeepingTable: string;
  /** SQL for the current time in that table's columns. */
  readonly now: string;
  /** The transaction's isolation level when it is opened. */
  readonly isolation: 'SERIALIZABLE' | undefined;
  /** DDL commits as it goes: each migration is recorded as started, then as finished (Prisma's MySQL behaviour). */
  readonly ddlCommits: boolean;
  /** Takes Prisma's migration lock on the transaction's connection. */
  lock(tx: Transaction): Promise<void>;
  /** Releases it before the transaction ends (a no-op where the lock ends with the transaction). */
  unlock(tx: Transaction): Promise<void>;
  /**
   * SQL run on the connection before the migrations' transaction and after it,
   * for settings a transaction cannot change (SQLite's foreign keys, off while
   * a migration redefines a table, as Prisma runs them).
   */
  readonly around?: { before: string; after: string };
  /** Throws when the migrated schema's data breaks a rule the `around` setting suspended; run before COMMIT. */
  verify?(tx: Transaction): Promise<void>;
}

/** A statement's rows, each a list of its columns. */
export type Query = (statement: string) => Promise<unknown[][]>;

/** Where a server stands in the database's write-ahead log: how a kit tells that a replica has a write (kits with replicas). */
export interface ReplicaPositions {
  /** The primary's position now: at or past every commit it has acknowledged. */
  written(query: Query): Promise<bigint>;
  /** How far the server has replayed the primary's log; null when it is no replica (a primary, a promoted standby). */
  replayed(query: Query): Promise<bigint | null>;
  /** Which database the server holds, of which cluster: a standby's is its primary's, and no other database's is. */
  identity(query: Query): Promise<string>;
}

/** Statements on the store's client, outside any transaction: what a kit's erasure runs. */
export type ClientQuery = (sql: string) => Promise<Record<string, unknown>[]>;

export interface Erasure {
  before(query: ClientQuery): Promise<void>;
  /**
   * After the job committed. `erased`: it deleted something (else only an earlier call's unfinished end
   * is finished); `rebuild`: rewrite the database's files whole where that is what removes every byte.
   */
  after(query: ClientQuery, job: { rebuild: boolean; erased: boolean }): Promise<void>;
}

export interface ProviderKit {
  readonly provider: Provider;
  /** The database's name in messages. */
  readonly label: string;
  /** The url schemes it opens, with their colon (`file:`, `postgresql:`). */
  readonly schemes: readonly string[];
  /** How its urls begin, for messages (`file:`, `postgresql://`). */
  readonly urlStart: string;
  /** It opens `failover` urls (other servers of the database). */
  readonly failover?: boolean;
  /** Its databases have read replicas (hot standbys), and how to tell which writes one has. */
  readonly replicas?: ReplicaPositions;
  /** Throws StoreConfigurationError, saying what to pass, when this kit cannot open `url`. */
  checkUrl(url: string): void;
  /** The Prisma client generated for this provider. */
  loadClient(): Promise<PrismaClientClass>;
  /**
   * The driver adapter factory for a url, its driver loaded now: a driver
   * package that is not installed is a StoreConfigurationError naming it.
   */
  adapterFactory(options: UrlOptions, logger: Logger): Promise<SqlDriverAdapterFactory>;
  /** How long a transaction may wait for a connection (on SQLite, for the file's write lock). */
  maxWaitMs(options: UrlOptions): number;
  readonly dialect: Dialect;
  /** Write transactions run one at a time (SQLite's file lock): a check made in one cannot be raced by another writer. */
  readonly serialWrites: boolean;
  /**
   * Around a job that erases (eraseTenant, purge, prune, deleteTranscript), where the database keeps
   * deleted bytes in its files: `before` makes its deletes overwrite them, `after` moves them out of its
   * log. Absent: none the store can remove (docs/guide/conversation-life.md on erasure and VACUUM).
   */
  readonly erasure?: Erasure;
  /**
   * The fast paths on a connected adapter: one this kit's factory made, or the
   * one an application's own client runs on. Undefined when they cannot run on
   * it (another adapter than the kit's): the store then goes through Prisma.
   * `ownPool` is false for an application's pool, whose sessions the store did not set up.
   */
  fastPaths(adapter: SqlDriverAdapter, ownPool: boolean): FastPaths | undefined;
  /**
   * The fast paths inside an application's transaction, on the driver transaction `tx` under
   * Prisma's (see client-adapter.ts): each write in a savepoint. `assertOpen` runs before each
   * statement and throws once Prisma ended the transaction. Undefined when they cannot run on it.
   */
  hostFastPaths(tx: Transaction, assertOpen: () => void): FastPaths | undefined;
  /**
   * Statements on a transaction of this kit's adapter, faster than its queryRaw (see
   * adapter-transactions.ts); undefined, or absent: through queryRaw.
   */
  statementsOn?(tx: Transaction): Run | undefined;
  /** What a failure of this database's driver or adapter means; undefined when it is none of the kinds. */
  classify(error: unknown): FailureKind | undefined;
  /**
   * The retries on a connected adapter this kit's factory made, asked at each call, when they differ from
   * the default (a Galera cluster, whose nodes' conflicts show at commit, known once a connection answered).
   */
  retryPolicyOn?(adapter: SqlDriverAdapter): () => RetryPolicy | undefined;
  /**
   * The same for an application's client, which `query` reaches (a statement's rows), asked once at boot;
   * it may warn of a setting of the application's pool.
   */
  retryPolicy?(query: Query, logger: Logger): Promise<RetryPolicy | undefined>;
  readonly migrations: MigrationSteps;
}
