// The one door to the database: transactions with the right isolation for each
// provider, retries of transient conflicts, and errors turned into StoreErrors.
import type { Message } from '../message.types.js';
import type { AppendToExisting } from './append-path.js';
import type { Dialect } from './dialect.js';
import type { ReadPath } from './read-path.js';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry.js';
import type { StoreClient, StoreTx } from './store-client.js';

export interface TransactionLimits {
  /** How long a transaction may wait for a connection (or SQLite's lock) before it fails. */
  maxWait: number;
  /** How long it may run. */
  timeout: number;
}

const DEFAULT_LIMITS: TransactionLimits = { maxWait: 10_000, timeout: 30_000 };

export class StoreDatabase {
  constructor(
    readonly client: StoreClient,
    readonly dialect: Dialect,
    /** Disconnect the client on close: only when the store created it. */
    private readonly ownsClient: boolean,
    private readonly limits: TransactionLimits = DEFAULT_LIMITS,
    /** Present when the store opened the connection itself: appends to existing threads go straight to its adapter. */
    private readonly appendPath?: AppendToExisting,
    /** Present likewise: getHistory and count are one statement on the adapter. */
    reads?: ReadPath,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {
    this.reads = reads && {
      history: (threadId) => withRetries(() => reads.history(threadId), this.retry),
      count: (threadId) => withRetries(() => reads.count(threadId), this.retry),
    };
  }

  /** The read path, with retries and errors turned into StoreErrors like every other call. */
  readonly reads?: ReadPath;

  /**
   * Appends to a thread that exists (with `tenantId`: that tenant's) on the
   * append path, and returns the last seq handed out; null when it wrote
   * nothing, because there is no such thread or no append path.
   */
  appendToExisting(threadId: string, messages: Message[], tenantId?: string): Promise<number | null> {
    const append = this.appendPath;
    if (!append) return Promise.resolve(null);
    return withRetries(() => append(threadId, messages, new Date(), tenantId), this.retry);
  }

  /** A write transaction. It should call `dialect.reserveSeqs` (or lock the thread) before it reads. */
  write<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#transaction(work, this.dialect.writeIsolation);
  }

  /** Several reads that see one snapshot. */
  read<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.#transaction(work, this.dialect.readIsolation);
  }

  /** One statement, which is atomic by itself. */
  query<T>(work: (client: StoreClient) => Promise<T>): Promise<T> {
    return withRetries(() => work(this.client), this.retry);
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.$disconnect();
  }

  #transaction<T>(work: (tx: StoreTx) => Promise<T>, isolationLevel: string | undefined): Promise<T> {
    // The client is typed as SQLite's, whose only level is Serializable; the others exist on their providers.
    const options = { ...this.limits, ...(isolationLevel && { isolationLevel }) } as { isolationLevel?: 'Serializable' };
    return withRetries(() => this.client.$transaction(work, options), this.retry);
  }
}
