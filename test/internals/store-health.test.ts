// StoreHealthIndicator, without the HTTP API: what it reports for a store opened from a url and for a caller's own client.
import Database from 'better-sqlite3';
import { Test } from '@nestjs/testing';
import { PrismaClient } from '../../src/generated/sqlite/client.js';
import { migrate } from '../../src/engine/open-database.js';
import { KITS } from '../../src/databases/index.js';
import { shippedMigrations } from '../../src/engine/migration-files.js';
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

test("a caller's own client is up when the store's tables are there, whatever its migrations; down when one goes after the boot", async () => {
  const url = tempSqliteUrl();
  const factory = new SerializedSqliteAdapterFactory(url);
  await migrate(factory, KITS.sqlite);
  const prisma = new PrismaClient({ adapter: factory });
  // The caller's migrations are not the store's: only its tables count.
  await prisma.$executeRawUnsafe('DELETE FROM _prisma_migrations');
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
  await app.init();
  try {
    expect(await app.get(StoreHealthIndicator).isHealthy('store')).toEqual({ store: { status: 'up' } });
    // The boot checked the tables; one dropped since is seen by the next check.
    await prisma.$executeRawUnsafe('DROP TABLE agent_tombstone');
    expect(await app.get(StoreHealthIndicator).isHealthy('store')).toEqual({
      store: { status: 'down', message: "the store's tables are missing: apply its migrations" },
    });
  } finally {
    await app.close();
    await prisma.$disconnect();
  }
});
