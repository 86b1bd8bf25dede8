// The Prisma client the stores run on. Every provider's generated client has
// the same models and delegates; the SQLite one stands for all of them in types.
import type { PrismaClient, Prisma } from '../generated/sqlite/client.js';

export type StoreClient = PrismaClient;
export type PrismaTx = Prisma.TransactionClient;
