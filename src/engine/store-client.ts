// The Prisma client the stores run on. Every provider's generated client has
// the same models and delegates; the SQLite one stands for all of them in types.
import type { Dialect } from './provider-kit.js';
import type { PrismaClient, Prisma } from '../generated/sqlite/client.js';

export type StoreClient = PrismaClient;
export type PrismaTx = Prisma.TransactionClient;

/** What the full path's queries run on: Prisma's transaction (or client) and the dialect of its database. */
export interface StoreTx {
  readonly prisma: PrismaTx;
  readonly dialect: Dialect;
  /** In the application's transaction, whose isolation level the store did not choose. */
  readonly inHost: boolean;
}
