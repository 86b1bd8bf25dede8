// The module's options once checked (store.options.ts checks them): what the engine opens.
import type { ProviderKit, UrlOptions } from './provider-kit.js';

/** When SQLite's file is rebuilt after an erasing call (see StoreModuleOptions.sqliteVacuum). */
export type SqliteVacuum = 'every-erasing-call' | 'bulk-jobs';

/** What the store reads of nestjs-cls's TransactionHost (typed by shape: nestjs-cls is never imported). */
export interface TransactionHostLike {
  /** Whether a transaction is open in the current async context: a store call then runs in it. */
  isTransactionActive(): boolean;
  /** The open transaction: a transaction client of the PrismaClient given as `prisma` (another client's is a StoreConfigurationError). */
  readonly tx: unknown;
}

export type ResolvedStoreOptions =
  | ({ source: 'url'; kit: ProviderKit; sqliteVacuum: SqliteVacuum } & UrlOptions)
  | {
      source: 'client';
      client: object;
      kit: ProviderKit;
      transactionHost?: TransactionHostLike;
      sqliteVacuum: SqliteVacuum;
    };
