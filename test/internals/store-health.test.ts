// StoreHealthIndicator, without the HTTP API: what it reports for a store opened from a url and for a caller's own client.
import Database from 'better-sqlite3';
import { Test } from '@nestjs/testing';
import { PrismaClient } from '../../src/generated/sqlite/client.js';
import { migrate } from '../../src/data/open-database.js';
import { KITS } from '../../src/databases/index.js';
import { shippedMigrations } from '../../src/data/migration-files.js';
import { SerializedSqliteAdapterFactory, StoreHealthIndicator, StoreModule, type StoreModuleOptions } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

async function healthOf(options: StoreModuleOptions) {
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot(options)] }).compile();
  await app.init();
  try {
    return await app.get(StoreHealthIndicator).isHealthy('store');
  } finally {
    await app.close();
  }
}

test('a store opened from a url is down before its migrations, up after, and names a migration that was rolled back', async () => {
  const url = tempSqliteUrl();
  expect(await healthOf({ url })).toEqual({ store: { status: 'down', message: "the store's tables are missing: apply its migrations" } });
  expect(await healthOf({ url, migrate: true })).toEqual({ store: { status: 'up' } });

  const [init] = shippedMigrations('sqlite').map((migration) => migration.name);
  const file = new Database(url.slice('file:'.length));
  file.prepare('UPDATE _prisma_migrations SET rolled_back_at = CURRENT_TIMESTAMP WHERE migration_name = ?').run(init);
  file.close();
  expect(await healthOf({ url })).toEqual({ store: { status: 'down', message: `migrations not applied: ${init}` } });
});

test("a caller's own client is up when the store's tables are there, whatever its migrations; down without them", async () => {
  const url = tempSqliteUrl();
  const factory = new SerializedSqliteAdapterFactory(url);
  const prisma = new PrismaClient({ adapter: factory });
  try {
    expect(await healthOf({ prisma })).toEqual({ store: { status: 'down', message: "the store's tables are missing: apply its migrations" } });
    await migrate(factory, KITS.sqlite);
    expect(await healthOf({ prisma })).toEqual({ store: { status: 'up' } });
  } finally {
    await prisma.$disconnect();
  }
});
