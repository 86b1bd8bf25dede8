// The boot check of an application's own PrismaClient, on every database: a
// database without some of the store's tables or columns fails the boot with a
// StoreConfigurationError naming each and what to do; a complete one boots; a
// database that fails otherwise fails the boot as the database error it is.
import { writeFileSync } from 'node:fs';
import { Test } from '@nestjs/testing';
import Database from 'better-sqlite3';
import { MessageStore, StoreConfigurationError, StoreDatabaseError, StoreModule, StoreUnavailableError } from '../../src/index.js';
import { storeTables } from '../../src/engine/store-models.js';
import { LangGraphCheckpointer } from '../../src/integrations/langgraph/index.js';
import { DATABASES, eachDatabase, runSql, SQLITE, type TestDatabase } from '../support/databases.js';
import { appClient, dbMigrate } from '../support/openers.js';

type Provider = TestDatabase['provider'];

/** Boots StoreModule on the application's own client of `url`, runs `use` on it, closes both; the boot's failure rejects. */
async function withStoreOn(provider: Provider, url: string, use: (messages: MessageStore) => Promise<void> = async () => undefined) {
  const prisma = await appClient(
    DATABASES.find((database) => database.provider === provider)!,
    url,
  );
  try {
    const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
    await app.init();
    try {
      await use(app.get<MessageStore>(MessageStore));
    } finally {
      await app.close();
    }
  } finally {
    await prisma.$disconnect();
  }
}

/** A database the store's migrations made, then `statements` changed. */
async function migratedThen(database: TestDatabase, statements: string[]): Promise<string> {
  const url = await database.freshUrl();
  await dbMigrate(url);
  await runSql(url, statements);
  return url;
}

const bootFailure = (provider: Provider, url: string) =>
  withStoreOn(provider, url).then(
    () => Promise.reject(new Error('the boot succeeded')),
    (error: unknown) => error as Error,
  );

eachDatabase((database) => {
  const advice = `Add the store's models to your schema (npx nestjs-agent-store prisma-models --provider ${database.provider} --merge prisma/schema.prisma), then create and apply a migration`;

  test('a database with every table and column boots, and the store serves through the client', async () => {
    const url = await migratedThen(database, []);
    await withStoreOn(database.provider, url, async (messages) => {
      await messages.append('checked', { role: 'user', content: 'hello' });
      expect(await messages.getHistory('checked')).toEqual([expect.objectContaining({ seq: 1, role: 'user', content: 'hello' })]);
    });
  });

  test('missing tables fail the boot, named, with what to do', async () => {
    const error = await bootFailure(database.provider, await migratedThen(database, ['DROP TABLE agent_repair', 'DROP TABLE agent_tombstone']));
    expect(error).toBeInstanceOf(StoreConfigurationError);
    expect(error.message).toContain(`lacks the store's tables agent_repair, agent_tombstone. ${advice}`);
  });

  test('missing columns fail the boot, each named with its table', async () => {
    const url = await migratedThen(database, ['ALTER TABLE agent_thread DROP COLUMN title', 'ALTER TABLE agent_message DROP COLUMN value_types']);
    const error = await bootFailure(database.provider, url);
    expect(error).toBeInstanceOf(StoreConfigurationError);
    expect(error.message).toContain(`lacks the store's columns agent_thread.title, agent_message.value_types. ${advice}`);
  });

  test('a missing table and a missing column are named together', async () => {
    const error = await bootFailure(
      database.provider,
      await migratedThen(database, ['DROP TABLE agent_tombstone', 'ALTER TABLE agent_boundary DROP COLUMN retained_count']),
    );
    expect(error.message).toContain("lacks the store's tables agent_tombstone; columns agent_boundary.retained_count.");
  });

  test("LangGraph's tables are asked for by its checkpointer, not by the store: without them the store boots and serves, a LangGraphCheckpointer fails its boot naming them", async () => {
    const url = await migratedThen(database, ['DROP TABLE agent_lg_write', 'DROP TABLE agent_lg_blob', 'DROP TABLE agent_lg_checkpoint']);
    await withStoreOn(database.provider, url, async (messages) => {
      await messages.append('no langgraph', { role: 'user', content: 'hello' });
      expect(await messages.count('no langgraph')).toBe(1);
    });
    const prisma = await appClient(database, url);
    try {
      const module = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })], providers: [LangGraphCheckpointer] }).compile();
      const failure = await module.init().then(
        () => module.close().then(() => new Error('the boot succeeded')),
        (error: unknown) => error as Error,
      );
      expect(failure).toBeInstanceOf(StoreConfigurationError);
      expect(failure.message).toContain(`lacks LangGraphCheckpointer's tables agent_lg_checkpoint, agent_lg_blob, agent_lg_write. ${advice}`);
    } finally {
      await prisma.$disconnect();
    }
  });

  test('a database that fails otherwise fails the boot as the database error it is, not as missing tables', async () => {
    const url = await database.freshUrl();
    if (database.provider === 'sqlite') writeFileSync(url.slice('file:'.length), 'not an SQLite database, and longer than its header would be. '.repeat(10));
    // A database that does not exist; MariaDB's stock pool retries it until its acquireTimeout (10 s by default).
    const broken = { sqlite: url, postgresql: `${url}_missing`, mysql: `${url}_missing?acquireTimeout=500` }[database.provider];
    const error = await bootFailure(database.provider, broken);
    expect(error).toBeInstanceOf(database.provider === 'sqlite' ? StoreDatabaseError : StoreUnavailableError);
    expect(error.message).not.toMatch(/lacks the store's/);
  });
});

test("the tables and columns checked are exactly those the store's migrations make", async () => {
  const url = await migratedThen(SQLITE, []);
  const db = new Database(url.slice('file:'.length), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'agent\\_%' ESCAPE '\\'").all() as { name: string }[];
    const made = tables.map(({ name }) => ({
      table: name,
      columns: (db.prepare(`SELECT name FROM pragma_table_info('${name}')`).all() as { name: string }[]).map((column) => column.name),
    }));
    expect(new Set(made.map((table) => JSON.stringify(table)))).toEqual(new Set(storeTables().map(({ table, columns }) => JSON.stringify({ table, columns }))));
    expect(made).toHaveLength(9);
  } finally {
    db.close();
  }
});
