// A Prisma client of the store's schema on any test database, logging its
// statements, for tests that count or inspect what the stores send.
import { Logger } from '@nestjs/common';
import { StoreDatabase } from '../../src/data/database.js';
import { DIALECTS } from '../../src/data/dialect.js';
import { adapterFactory, migrate } from '../../src/data/open-database.js';
import type { StoreClient } from '../../src/data/store-client.js';
import { resolveOptions, type ResolvedStoreOptions } from '../../src/store.options.js';

type QueryEvent = { query: string; params: string };
export interface LoggedDatabase {
  db: StoreDatabase;
  client: StoreClient;
  /** Every statement sent since the last reset. */
  statements: QueryEvent[];
  close(): Promise<void>;
}

/** Migrates `url` and opens it with a client that records every statement. */
export async function loggedDatabase(url: string): Promise<LoggedDatabase> {
  const options = resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>;
  const factory = await adapterFactory(options, new Logger('test'));
  await migrate(factory, options.provider);
  const generated = (
    options.provider === 'sqlite'
      ? await import('../../src/generated/sqlite/client.js')
      : options.provider === 'postgresql'
        ? await import('../../src/generated/postgresql/client.js')
        : await import('../../src/generated/mysql/client.js')
  ) as unknown as { PrismaClient: new (options: object) => unknown };
  const client = new generated.PrismaClient({ adapter: factory as never, log: [{ emit: 'event', level: 'query' }] }) as unknown as StoreClient & {
    $on(event: 'query', listener: (event: QueryEvent) => void): void;
  };
  const statements: QueryEvent[] = [];
  client.$on('query', (event) => statements.push(event));
  return { db: new StoreDatabase(client, DIALECTS[options.provider], true), client, statements, close: () => client.$disconnect() };
}
