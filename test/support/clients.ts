// A Prisma client of the store's schema on any test database, logging its
// statements, for tests that count or inspect what the stores send.
import { Logger } from '@nestjs/common';
import { DatabaseIntegrationStore } from '../../src/contract/database-integration-store.js';
import type { IntegrationStore } from '../../src/contract/index.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { migrate } from '../../src/engine/open-database.js';
import type { StoreClient } from '../../src/engine/store-client.js';
import { resolveOptions, type ResolvedStoreOptions } from '../../src/store.options.js';

type QueryEvent = { query: string; params: string };
export interface LoggedDatabase {
  db: StoreDatabase;
  /** What a framework binding is given, on `db`. */
  integration: IntegrationStore;
  client: StoreClient;
  /** Every statement sent since the last reset. */
  statements: QueryEvent[];
  close(): Promise<void>;
}

/** Migrates `url` and opens it with a client that records every statement. */
export async function loggedDatabase(url: string): Promise<LoggedDatabase> {
  const options = resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>;
  const factory = await options.kit.adapterFactory(options, new Logger('test'));
  await migrate(factory, options.kit);
  const PrismaClient = (await options.kit.loadClient()) as unknown as new (options: object) => unknown;
  const client = new PrismaClient({ adapter: factory, log: [{ emit: 'event', level: 'query' }] }) as unknown as StoreClient & {
    $on(event: 'query', listener: (event: QueryEvent) => void): void;
  };
  const statements: QueryEvent[] = [];
  client.$on('query', (event) => statements.push(event));
  const db = new StoreDatabase(client, options.kit, { close: () => client.$disconnect() });
  return { db, integration: new DatabaseIntegrationStore(db), client, statements, close: () => client.$disconnect() };
}
