// The one door to the database: transactions with the right isolation for its
// kit, retries of transient conflicts, errors turned into StoreErrors, and the
// kit's fast paths when the store opened the connection itself.
import type { FastPaths, ProviderKit } from '../databases/provider-kit.js';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry.js';
import type { PrismaTx, StoreClient, StoreTx } from './store-client.js';

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
  /** Present when the store opened the connection itself. */
  fast?: FastPaths;
  retry?: RetryPolicy;
}

const DEFAULT_LIMITS: TransactionLimits = { maxWait: 10_000, timeout: 30_000 };
/**
 * The time a write may run longer for each row it inserts: through Prisma a row
 * takes 0.1 to 0.3 ms on a busy 2-core machine, and 100,000 rows come near the 30 s.
 */
const MS_PER_ROW = 1;

export class StoreDatabase {
  /** The kit's fast paths, with retries and errors turned into StoreErrors like every other call; absent on a caller's own client. */
  readonly fast?: FastPaths;
  readonly #close?: () => Promise<void>;
  readonly #limits: TransactionLimits;
  readonly #retry: RetryPolicy;

  constructor(
    readonly client: StoreClient,
    readonly kit: ProviderKit,
    options: DatabaseOptions,
  ) {
    this.#close = options.close;
    this.#limits = options.limits ?? DEFAULT_LIMITS;
    this.#retry = options.retry ?? DEFAULT_RETRY;
    const { fast } = options;
    this.fast = fast && {
      append: (...args) => this.#retrying(() => fast.append(...args)),
      history: (...args) => this.#retrying(() => fast.history(...args)),
      count: (...args) => this.#retrying(() => fast.count(...args)),
      listSessions: (...args) => this.#retrying(() => fast.listSessions(...args)),
    };
  }

  /**
   * A write transaction. Its work locks the thread (or reserves sequence numbers) before it reads.
   * `rows`, how many rows it inserts, adds MS_PER_ROW each to the time it may run, so that a long batch is not cut off halfway.
   */
  write<T>(work: (tx: StoreTx) => Promise<T>, rows = 0): Promise<T> {
    return this.#transaction(work, this.kit.dialect.writeIsolation, rows * MS_PER_ROW);
  }

  /** Several reads that see one snapshot. */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#transaction(work, this.kit.dialect.readIsolation);
  }

  /** One statement, which is atomic by itself. */
  query<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#retrying(() => work(this.#context(this.client)));
  }

  async close(): Promise<void> {
    await this.#close?.();
  }

  #transaction<T>(work: (tx: StoreTx) => Promise<T>, isolationLevel: string | undefined, extraMs = 0): Promise<T> {
    // The client is typed as SQLite's, whose only level is Serializable; the others exist on their providers.
    const limits = { maxWait: this.#limits.maxWait, timeout: this.#limits.timeout + extraMs };
    const options = { ...limits, ...(isolationLevel && { isolationLevel }) } as { isolationLevel?: 'Serializable' };
    return this.#retrying(() => this.client.$transaction((prisma) => work(this.#context(prisma)), options));
  }

  #context(prisma: PrismaTx): StoreTx {
    return { prisma, dialect: this.kit.dialect };
  }

  #retrying<T>(work: () => Promise<T>): Promise<T> {
    return withRetries(work, this.kit, this.#retry);
  }
}
