// The one door to the database: transactions with the right isolation for its
// kit, retries of transient conflicts, errors turned into StoreErrors, and the
// kit's fast paths. Inside the application's own transaction (a host
// transaction) every call runs in it instead, and is never retried there.
import type { FastPaths, ProviderKit, RetryPolicy } from './provider-kit.js';
import type { IsolationLevel, StoreTx } from './dialect.js';
import { BrokenHostTransaction } from './adapter-statement.js';
import { AdapterDisposed, transactionKey, isTransactionOf } from './client-adapter.js';
import { StoreBusyError, StoreConfigurationError, StoreDatabaseError, StoreError } from '../store.errors.js';
import { toStoreError } from './db-errors.js';
import { DEFAULT_RETRY, withRetries } from './retry.js';
import type { PrismaTx, StoreClient } from './store-client.js';
import type { TablePart } from './store-models.js';
import type { ReplicaReads } from './replica-reads.js';
import type { FastPathSource, PooledFastPaths } from './fast-path-source.js';

export interface TransactionLimits {
  /** How long a transaction may wait for a connection (or SQLite's lock) before it fails. */
  maxWait: number;
  /** How long it may run. */
  timeout: number;
}

export interface DatabaseOptions {
  /** Releases what the store opened (client, adapter, pool); absent for a caller's own client, which is never closed here. */
  close?: () => Promise<void>;
  limits?: TransactionLimits;
  /** Where the kit's fast paths run; absent when they cannot (every call goes through Prisma). */
  fastPathSource?: FastPathSource;
  /** The retries of conflicts; a function is asked at each call (a Galera cluster is known once a connection answered). */
  retry?: RetryPolicy | (() => RetryPolicy | undefined);
  /** The host transaction a call runs in, if one is open now (nestjs-cls's TransactionHost, or a client given to withTransaction). */
  hostTransaction?: () => PrismaTx | undefined;
  /** Throws when the database lacks a part's tables (a caller's own client, whose migrations are the caller's); absent where the store migrates. */
  checkTables?: (part: TablePart) => Promise<void>;
  /** Replicas for the reads that tolerate one (see onReplica), told of every write. */
  replicas?: ReplicaReads<StoreDatabase>;
  /** Whether every erasing call rebuilds the database's files where its kit can (SQLite's VACUUM), or only the bulk jobs. Default: every call. */
  rebuildAfter?: 'every-erasing-call' | 'bulk-jobs';
}

/**
 * Fast paths each of whose calls runs through `wrap`, which is given the call to make on fast
 * paths of its choosing (on a pool, or in a host transaction's queue), all of
 * the kind of `wrapped` (the same kit's, on the same kind of connection), and whether it writes.
 */
const wrappedFastPaths = (wrap: <T>(call: (paths: FastPaths) => Promise<T>, writes: boolean) => Promise<T>, wrapped: FastPaths): FastPaths => ({
  append: (...args) => wrap((paths) => paths.append(...args), true),
  history: (...args) => wrap((paths) => paths.history(...args), false),
  count: (...args) => wrap((paths) => paths.count(...args), false),
  listSessions: (...args) => wrap((paths) => paths.listSessions(...args), false),
  ...(wrapped.updateHeader && { updateHeader: (...args) => wrap((paths) => paths.updateHeader!(...args), true) }),
  ...(wrapped.transaction && { transaction: (write, work) => wrap((paths) => paths.transaction!(write, work), write) }),
  ...(wrapped.writeAll && { writeAll: (statements) => wrap((paths) => paths.writeAll!(statements), true) }),
  ...(wrapped.readAll && { readAll: (plan) => wrap((paths) => paths.readAll!(plan), false) }),
});

/** The last store call in each host transaction, which the next one waits for. */
const HOST_CALLS = new WeakMap<object, Promise<unknown>>();
/** Host transactions in which a store call met a conflict, or could not finish (see #once). */
const BROKEN = new WeakSet<object>();

const DEFAULT_LIMITS: TransactionLimits = { maxWait: 10_000, timeout: 30_000 };
/**
 * The time a write may run longer for each row it inserts: through Prisma a row
 * takes 0.1 to 0.3 ms on a busy 2-core machine, and 100,000 rows come near the 30 s.
 */
const MS_PER_ROW = 1;

export class StoreDatabase {
  readonly #fastPathSource?: FastPathSource;
  /** The fast paths on each pool, as every call outside a host transaction runs (see #onPool). */
  readonly #onPools = new WeakMap<PooledFastPaths, FastPaths>();
  readonly #close?: () => Promise<void>;
  readonly #limits: TransactionLimits;
  readonly #retry: RetryPolicy | (() => RetryPolicy | undefined);
  readonly #hostTransaction?: () => PrismaTx | undefined;
  readonly #checkTables?: (part: TablePart) => Promise<void>;
  readonly #replicas?: ReplicaReads<StoreDatabase>;
  readonly #rebuildEveryErasure: boolean;

  constructor(
    readonly client: StoreClient,
    readonly kit: ProviderKit,
    options: DatabaseOptions,
  ) {
    this.#close = options.close;
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#hostTransaction = options.hostTransaction;
    this.#fastPathSource = options.fastPathSource;
    this.#checkTables = options.checkTables;
    this.#replicas = options.replicas;
    this.#rebuildEveryErasure = options.rebuildAfter !== 'bulk-jobs';
  }

  /** What call-order queues key on: the host transaction open now (its calls run in it, in order), else this door. */
  callOrderKey(): object {
    const host = this.#hostTransaction?.();
    return host ? transactionKey(host) : this;
  }

  /** Whether a call made now runs in the application's transaction. */
  inHost(): boolean {
    return this.#hostTransaction?.() !== undefined;
  }

  /**
   * Runs a job that erases so that what it deletes leaves the database's files, where its kit sees to
   * that (SQLite: erasure.ts). A bulk job (`'bulk'`) always ends by rebuilding the files whole; a single
   * call, by rebuilding them (or, with `rebuildAfter: 'bulk-jobs'`, by checkpointing the log) when
   * `erased` says its result deleted something, or an earlier call's end is unfinished: a call that
   * deletes nothing costs nothing more.
   * In a host transaction the job just runs: its deletes are not committed when it returns.
   */
  async erasing<T>(job: () => Promise<T>, scope: 'bulk' | { erased(result: T): boolean }): Promise<T> {
    const erasure = this.kit.erasure;
    if (!erasure || this.#hostTransaction?.()) return job();
    const query = (sql: string) => this.#retrying(() => this.client.$queryRawUnsafe<Record<string, unknown>[]>(sql));
    await erasure.before(query);
    const result = await job();
    const bulk = scope === 'bulk';
    await erasure.after(query, { rebuild: bulk || this.#rebuildEveryErasure, erased: scope === 'bulk' || scope.erased(result) });
    return result;
  }

  /** Throws StoreConfigurationError, naming them, when the database lacks `part`'s tables (see schema-check.ts). */
  async checkTables(part: TablePart): Promise<void> {
    await this.#checkTables?.(part);
  }

  /**
   * The fast paths for a call now, each call on them run as every other call is: outside a host
   * transaction with retries (#onPool); inside one, in its queue (#inHost), on the driver's
   * transaction under it. Undefined when they cannot run: the call goes through Prisma.
   */
  async fastPaths(): Promise<FastPaths | undefined> {
    const source = this.#fastPathSource;
    if (!source) return undefined;
    const host = this.#hostTransaction?.();
    if (host) {
      const inHost = source.inHost;
      if (!inHost) return undefined;
      const paths = await this.#inHost(host, () => inHost(host));
      return paths && wrappedFastPaths((call) => this.#inHost(host, () => call(paths)), paths);
    }
    const pooled = await source.outside();
    if (!pooled) return undefined;
    let paths = this.#onPools.get(pooled);
    if (!paths) this.#onPools.set(pooled, (paths = wrappedFastPaths((call, writes) => this.#onPool(pooled, call, writes), pooled.paths)));
    return paths;
  }

  /**
   * A fast-path call on a pool: retried, its errors turned into StoreErrors, and its writes told to
   * the replicas once settled. A call that found the client's adapter disposed ($disconnect) runs
   * once more on the one it has now, if any.
   */
  async #onPool<T>(pooled: PooledFastPaths, call: (paths: FastPaths) => Promise<T>, writes: boolean): Promise<T> {
    const leased = (on: PooledFastPaths) => this.#retrying(() => (on.lease ? on.lease(() => call(on.paths)) : call(on.paths)));
    try {
      return await leased(pooled);
    } catch (error) {
      const now = error instanceof AdapterDisposed ? await this.#fastPathSource!.outside() : undefined;
      if (!now || now === pooled) throw error;
      return await leased(now);
    } finally {
      if (writes) this.#replicas?.wrote();
    }
  }

  /**
   * The same database, every call of which runs in the host transaction `tx`: a Prisma interactive
   * transaction's client, of the client the store was given (its engine is the store's).
   */
  joining(tx: unknown): StoreDatabase {
    const candidate = tx as { $connect?: unknown; $transaction?: unknown } | null;
    const expected = 'withTransaction takes the transaction client that prisma.$transaction(async (tx) => …) hands its callback';
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.$transaction !== 'function') throw new StoreConfigurationError(expected);
    // The root client has $connect; a transaction's client has not. Its calls would commit one by one.
    if (typeof candidate.$connect === 'function') throw new StoreConfigurationError(`${expected}, not the PrismaClient itself`);
    // Another client's transaction runs on another connection, maybe to another database.
    if (!isTransactionOf(candidate, this.client)) {
      throw new StoreConfigurationError(`${expected}, of the PrismaClient the store was given (StoreModule's "prisma" option), not of another client`);
    }
    return new StoreDatabase(this.client, this.kit, {
      limits: this.#limits,
      retry: this.#retry,
      hostTransaction: () => candidate as unknown as PrismaTx,
      fastPathSource: this.#fastPathSource,
      checkTables: this.#checkTables,
    });
  }

  /**
   * A write transaction. Its work locks the thread (or reserves sequence numbers) before it reads.
   * `rows`, how many rows it inserts, adds MS_PER_ROW each to the time it may run, so that a long batch is not cut off halfway.
   * `level`, where given, replaces the dialect's write level (in a host transaction, the host's holds).
   */
  write<T>(work: (tx: StoreTx) => Promise<T>, rows = 0, level: IsolationLevel = this.kit.dialect.writeIsolation): Promise<T> {
    const written = this.#transaction(work, level, rows * MS_PER_ROW);
    const replicas = this.#replicas;
    return replicas ? written.finally(() => replicas.wrote()) : written;
  }

  /** Several reads that see one snapshot (in a host transaction, its own). */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const host = this.#hostTransaction?.();
    if (host) return this.#inHost(host, () => work(this.#context(host, true)));
    return this.#transaction(work, this.kit.dialect.readIsolation);
  }

  /**
   * A read of one statement, which is atomic by itself. Replicas (see onReplica) do not count it as a
   * write: a statement that writes goes through `write`.
   */
  readOne<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const host = this.#hostTransaction?.();
    if (host) return this.#inHost(host, () => work(this.#context(host, true)));
    return this.#retrying(() => work(this.#context(this.client, false)));
  }

  /**
   * Runs a read that tolerates a replica on one that has replayed every write of this store's (see
   * replica-reads.ts), or here when none has, or there are none, or a host transaction is open. A read
   * that fails there (the replica went down, a session it does not have yet) runs here again.
   */
  async onReplica<T>(read: (db: StoreDatabase) => Promise<T>): Promise<T> {
    const replicas = this.#replicas;
    const replica = replicas && !this.#hostTransaction?.() ? await replicas.pick() : undefined;
    if (!replica) return read(this);
    try {
      return await replicas!.watched(replica, read(replica.db));
    } catch (error) {
      replicas!.failed(replica, error);
      return read(this);
    }
  }

  async close(): Promise<void> {
    await this.#close?.();
  }

  #transaction<T>(work: (tx: StoreTx) => Promise<T>, isolationLevel: string | undefined, extraMs = 0): Promise<T> {
    // The client is typed as SQLite's, whose only level is Serializable; the others exist on their providers.
    const limits = { maxWait: this.#limits.maxWait, timeout: this.#limits.timeout + extraMs };
    const options = { ...limits, ...(isolationLevel && { isolationLevel }) } as { isolationLevel?: 'Serializable' };
    const host = this.#hostTransaction?.();
    // In the host's transaction, a savepoint (Prisma's nested transaction) makes the write all or nothing
    // without ending the host's: a write that fails leaves the transaction as it found it.
    if (host) return this.#inHost(host, () => (host as unknown as StoreClient).$transaction((prisma) => work(this.#context(prisma, true))));
    return this.#retrying(() => this.client.$transaction((prisma) => work(this.#context(prisma, false)), options));
  }

  /**
   * Runs `work` in the host's transaction, once: its statements are the host's, which a retry could not
   * run again (a deadlock may have ended the whole transaction). A conflict is for the host to retry.
   * The store's calls in one host transaction run one after another, as its one connection would run
   * them anyway: Prisma refuses a second savepoint beside an open one, and a read must not see a write
   * that is still in its savepoint.
   */
  #inHost<T>(host: PrismaTx, work: () => Promise<T>): Promise<T> {
    // Per transaction, not per client: a nested transaction's client is another object on the same connection.
    const key = transactionKey(host);
    const run = (HOST_CALLS.get(key) ?? Promise.resolve()).then(() => this.#once(key, work));
    HOST_CALLS.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  /**
   * A conflict may have ended the host's transaction in the database (MariaDB rolls the whole of it
   * back on a deadlock, and what runs after it commits statement by statement), and a transaction
   * that ended under a store call, or holds a savepoint the store could not settle, must not commit
   * what it holds: once a call met either, the store's later calls in that transaction refuse, and
   * the host must roll it back.
   */
  async #once<T>(host: object, work: () => Promise<T>): Promise<T> {
    if (BROKEN.has(host)) {
      throw new StoreBusyError(
        'an earlier store call in this transaction met a conflict, or could not finish, which may have ended it in the database: roll it back and run it again',
      );
    }
    try {
      return await work();
    } catch (error) {
      const broken = error instanceof BrokenHostTransaction;
      const failure = toStoreError(broken ? (error.failure ?? error) : error, this.kit);
      const why = broken && error.failure !== undefined ? ` (${failure.message})` : '';
      if (failure instanceof StoreBusyError) {
        BROKEN.add(host);
        throw new StoreBusyError(`${failure.message} (in your transaction, which the store does not retry: roll it back and run it again)`, {
          cause: failure.cause ?? error,
        });
      }
      if (!broken) throw failure;
      BROKEN.add(host);
      // The failure's own kind (a validation error stays one), saying what the transaction needs.
      const Failure = (failure instanceof StoreError ? failure.constructor : StoreDatabaseError) as new (
        message: string,
        options: { cause: unknown },
      ) => StoreError;
      throw new Failure(`${error.message}: roll your transaction back${why}`, { cause: error.failure ?? error });
    }
  }

  #context(prisma: PrismaTx, inHost: boolean): StoreTx {
    return { prisma, dialect: this.kit.dialect, inHost };
  }

  #retrying<T>(work: () => Promise<T>): Promise<T> {
    const retry = this.#retry;
    return withRetries(work, this.kit, typeof retry === 'function' ? (retry() ?? DEFAULT_RETRY) : retry);
  }
}
