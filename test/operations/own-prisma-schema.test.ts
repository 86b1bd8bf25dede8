// An application with a Prisma schema of its own (an Order model) adopts the
// store, on every database: the prisma-models command merges the store's
// models into its schema, it generates its client, and StoreModule refuses
// that client until the store's tables are migrated. The application then
// migrates: on SQLite and PostgreSQL with its own migrations (its Order first,
// then the store's models), written and applied by Prisma's schema engine as
// `prisma migrate dev` would; on MariaDB, which the wasm engine cannot read,
// with its own table and the store's shipped SQL. The store then boots on the
// client, and the store and the Order model both write through it.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { mergeIntoFile } from '../../src/cli/prisma-models.js';
import { shippedMigrations, splitStatements } from '../../src/engine/migration-files.js';
import { storeTables, tablesOf } from '../../src/engine/store-models.js';
import { MessageStore, StoreConfigurationError, StoreModule } from '../../src/index.js';
import { appProject, generatedClient, type AppProject } from '../support/app-project.js';
import { eachDatabase, runSql } from '../support/databases.js';
import { OWN_ADAPTERS } from '../support/openers.js';
import { runFixture } from '../support/processes.js';

const ORDER = `model Order {
  id       Int    @id @default(autoincrement())
  customer String
  total    Int
}
`;
// Order's table as Prisma's MySQL migrations write it.
const MYSQL_ORDER = `CREATE TABLE \`Order\` (
    \`id\` INTEGER NOT NULL AUTO_INCREMENT,
    \`customer\` VARCHAR(191) NOT NULL,
    \`total\` INTEGER NOT NULL,
    PRIMARY KEY (\`id\`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`;

interface Order {
  id: number;
  customer: string;
  total: number;
}
/** What the test uses of the application's generated client. */
interface AppClient {
  order: { create(args: { data: Omit<Order, 'id'> }): Promise<Order>; findMany(): Promise<Order[]> };
  agentMessage: { count(): Promise<number> };
  $disconnect(): Promise<void>;
}

/** `prisma migrate dev` on the project, once per schema file of its history (see the fixture): the migrations written, and those applied. */
async function migrateDev(app: AppProject, url: string, history: Record<string, string>): Promise<{ created: string[]; applied: string[] }> {
  const run = await runFixture('app-migration.ts', [app.migrationsDir, url, ...Object.entries(history).map(([name, schema]) => `${name}=${schema}`)]);
  if (run.code !== 0) throw new Error(`the migration failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function boot(prisma: AppClient) {
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
  await app.init();
  return app;
}

eachDatabase((database) => {
  const engine = database.provider !== 'mysql';
  let app: AppProject;
  let url: string;
  let PrismaClient: Awaited<ReturnType<typeof generatedClient<AppClient>>>;
  const client = () => new PrismaClient({ adapter: OWN_ADAPTERS[database.provider](url) });

  beforeAll(async () => {
    url = await database.freshUrl();
    app = appProject(database.provider, ORDER);
    // The application's schema as it was, before the store: its history.
    copyFileSync(app.schemaPath, `${app.schemaPath}.before`);
    mergeIntoFile(app.schemaPath, database.provider);
    PrismaClient = await generatedClient<AppClient>(app);
  });
  afterAll(() => app?.remove());

  test("before the store's tables are migrated, the boot refuses the client, naming them", async () => {
    const prisma = client();
    try {
      const failure = boot(prisma);
      await expect(failure).rejects.toThrow(StoreConfigurationError);
      await expect(failure).rejects.toThrow(
        `lacks the store's tables ${tablesOf('store')
          .map((table) => table.table)
          .join(', ')}.`,
      );
    } finally {
      await prisma.$disconnect();
    }
  });

  test('migrated with the store, the client serves the store and the application alike', async () => {
    if (engine) {
      const { created, applied } = await migrateDev(app, url, { init: `${app.schemaPath}.before`, agent_store: app.schemaPath });
      expect(created).toEqual([expect.stringMatching(/^\d{14}_init$/), expect.stringMatching(/^\d{14}_agent_store$/)]);
      expect(applied).toEqual(created);
      const [init, agentStore] = created.map((name) => readFileSync(join(app.migrationsDir, name, 'migration.sql'), 'utf8'));
      expect(init).toMatch(/CREATE TABLE "Order"/);
      expect(init).not.toMatch(/agent_/);
      // The migration that adds the store's models creates its tables, and nothing of the application's again.
      for (const { table } of storeTables()) expect(agentStore).toContain(`CREATE TABLE "${table}"`);
      expect(agentStore).not.toMatch(/"Order"/);
    } else {
      // What a MySQL user without Prisma's native engine can run: the application's own table, and the store's SQL as shipped, in order.
      await runSql(url, [MYSQL_ORDER, ...shippedMigrations('mysql').flatMap((migration) => splitStatements(migration.sql))]);
    }

    const prisma = client();
    const nest = await boot(prisma);
    try {
      const messages = nest.get<MessageStore>(MessageStore);
      await messages.append('order-1', { role: 'user', content: 'where is my order?' });
      expect(await messages.getHistory('order-1')).toEqual([expect.objectContaining({ seq: 1, role: 'user', content: 'where is my order?' })]);
      expect(await prisma.order.create({ data: { customer: 'ada', total: 42 } })).toEqual({ id: 1, customer: 'ada', total: 42 });
      expect(await prisma.order.findMany()).toEqual([{ id: 1, customer: 'ada', total: 42 }]);
      expect(await prisma.agentMessage.count()).toBe(1);
    } finally {
      await nest.close();
      await prisma.$disconnect();
    }
  });
});
