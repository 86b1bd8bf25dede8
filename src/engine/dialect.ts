// The SQL that differs between databases, for the store's own statements (on Prisma's client or
// on the driver), and the transactions they run in. Each database kit gives one (ProviderKit.dialect).
import type { PrismaTx } from './store-client.js';

/** Prisma's isolation level names; SQLite's adapter reads Serializable as "take the write lock up front". */
export type IsolationLevel = 'Serializable' | 'RepeatableRead' | 'ReadCommitted';

/** The SQL that differs between databases; run inside a store transaction. */
export interface Dialect {
  /** Writes lock their thread row first; read committed then sees every write that committed before the lock. */
  readonly writeIsolation: IsolationLevel;
  /** Reads of several statements see one snapshot. Undefined: SQLite's deferred transaction, which is one. */
  readonly readIsolation: IsolationLevel | undefined;
  /**
   * Creates the thread if it is missing and hands out `count` sequence numbers
   * (count may be 0). Returns the last one handed out. The thread row stays
   * locked until the transaction ends, so writers to one thread queue here.
   * `inHost`: in the application's transaction, at its isolation level; where
   * that level may leave the transaction's reads on a snapshot older than the
   * lock (MySQL's REPEATABLE READ), a write to the thread since that snapshot
   * is a StoreBusyError, before anything is read from it.
   */
  reserveSeqs(tx: PrismaTx, threadId: string, count: number, now: Date, inHost: boolean): Promise<number>;
  /**
   * Whether the thread was deleted, as last committed whatever the transaction's level (a host's
   * snapshot may predate the delete; `inHost`: in the application's transaction, at its level).
   */
  isDeleted(tx: PrismaTx, id: string, inHost: boolean): Promise<boolean>;
  /**
   * A statement returning a row when the id `?` has a tombstone, run right after a new session's insert, where the
   * next statement's snapshot may miss a delete in flight (MySQL: a locking read, which waits for it); absent where
   * a later statement sees every delete committed before it.
   */
  readonly tombstoneLockingRead?: string;
  /** Locks existing thread rows until the transaction ends, in id order, in one statement. */
  lockThreads(tx: PrismaTx, ids: string[]): Promise<void>;
  /** Locks `id` and every session below it until the transaction ends. */
  lockSubtree(tx: PrismaTx, id: string): Promise<void>;
  /** Creates the thread if it is missing, without locking it when it exists; true when it created it. */
  ensureThread(tx: PrismaTx, id: string, now: Date): Promise<boolean>;
  /** The clause after an INSERT for a row whose key `keys` is taken: it keeps the row, or sets its `update` columns to the inserted values. */
  onConflict(keys: string[], update: string[]): string;
  /** A DELETE or UPDATE made to count what it changed: statements to run in order, the last giving one row, the count. */
  counted(statement: string): string[];
  /** How the i-th parameter (from 0) of a statement is spelled: in `$queryRawUnsafe`, on the driver, in the migrator (see spelled()). */
  placeholder(index: number): string;
}

/** What the full path's queries run on: Prisma's transaction (or client) and the dialect of its database. */
export interface StoreTx {
  readonly prisma: PrismaTx;
  readonly dialect: Dialect;
  /** In the application's transaction, whose isolation level the store did not choose. */
  readonly inHost: boolean;
}
