// On every database: the shipped migrations apply on a fresh database and are a
// no-op the second time, and the migrated schema is the one the Prisma schema requires.
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import Database from 'better-sqlite3';
import { MODELS_PATH, schemaPath } from '../../scripts/prisma-layout.js';
import { sqlFromDatabase, sqlFromEmpty, withSchemaEngine } from '../../scripts/schema-engine.js';
import { PrismaPg } from '@prisma/adapter-pg';
import { shippedMigrations } from '../../src/engine/migration-files.js';
import { migrateUrl as migrateOptions } from '../../src/engine/open-database.js';
import { resolveOptions, type ResolvedStoreOptions } from '../../src/store.options.js';
import { mysqlCatalog, postgresCatalog } from '../support/catalog.js';
import { describeWith, eachDatabase, freshPostgresUrl, MARIADB, POSTGRESQL, tempSqliteUrl } from '../support/databases.js';
import { runFixture } from '../support/processes.js';

const migrateUrl = async (url: string) => {
  const options = resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>;
  return migrateOptions(options, new Logger('test'));
};
const INIT = shippedMigrations('sqlite').map((m) => m.name);

/** What Prisma's own `migrate deploy` applies to a PostgreSQL database (through its wasm engine, in a child process). */
async function prismaDeploy(url: string): Promise<string[]> {
  const run = await runFixture('prisma-deploy.ts', [url]);
  if (run.code !== 0) throw new Error(`prisma deploy failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

eachDatabase((database) => {
  test('the shipped migrations apply on a fresh database; a second run is a no-op', async () => {
    const url = await database.freshUrl();
    expect(await migrateUrl(url)).toEqual({ applied: INIT, unchanged: [], modified: [] });
    expect(await migrateUrl(url)).toEqual({ applied: [], unchanged: INIT, modified: [] });
  });
});

/** Columns whose Prisma type is String with @db.Text or @db.LongText, and the MySQL type they make; every other String is VARCHAR(191). */
function textColumns(): Map<string, string> {
  const models = readFileSync(MODELS_PATH, 'utf8');
  const columns = new Map<string, string>();
  for (const [, body] of models.matchAll(/model \w+ \{([\s\S]*?)\n\}/g)) {
    const table = /@@map\("(\w+)"\)/.exec(body)![1];
    for (const line of body.split('\n')) {
      const type = /@db\.(Text|LongText)\b/.exec(line)?.[1];
      if (!type) continue;
      const [field] = line.trim().split(/\s+/);
      columns.set(`${table}.${/@map\("(\w+)"\)/.exec(line)?.[1] ?? field}`, type.toLowerCase());
    }
  }
  return columns;
}

describe('the migrated schema is what the Prisma schema requires', () => {
  test("SQLite: Prisma's schema engine finds nothing to change (and does find a dropped index)", async () => {
    const clean = tempSqliteUrl();
    const broken = tempSqliteUrl();
    await migrateUrl(clean);
    await migrateUrl(broken);
    new Database(broken.slice('file:'.length)).exec('DROP INDEX agent_subsession_parent_id_id_idx');
    const diff = (url: string) =>
      withSchemaEngine(schemaPath('sqlite'), new PrismaBetterSqlite3({ url }), (engine) => sqlFromDatabase(engine, schemaPath('sqlite')));
    expect(await diff(clean)).toBe('-- This is an empty migration.\n');
    expect(await diff(broken)).toMatch(/CREATE INDEX "agent_subsession_parent_id_id_idx"/);
  });

  describeWith(POSTGRESQL.available, 'PostgreSQL unavailable')('against what Prisma itself deploys on PostgreSQL', () => {
    let prismaDeployed: Awaited<ReturnType<typeof postgresCatalog>>;
    beforeAll(async () => {
      // Prisma's engine applies the shipped migrations itself, as `prisma migrate deploy` would.
      const url = await freshPostgresUrl();
      expect(await prismaDeploy(url)).toEqual(INIT);
      prismaDeployed = await postgresCatalog(url);
      // Not an empty comparison: every table, index and foreign key is there.
      expect(Object.keys(prismaDeployed.columns)).toHaveLength(71);
      expect(prismaDeployed.indexes).toContain('agent_message: UNIQUE (thread_id, message_id)');
      expect(prismaDeployed.columns['agent_message.content']).toBe('string not null default none');
      expect(prismaDeployed.indexes).toContain('agent_subsession: UNIQUE (child_id)');
      expect(prismaDeployed.indexes).toContain('agent_message: PRIMARY (thread_id, seq)');
      expect(prismaDeployed.foreignKeys).toHaveLength(5);
      expect(prismaDeployed.foreignKeys.every((fk) => fk.includes('ON DELETE CASCADE'))).toBe(true);
      expect(prismaDeployed.columns['agent_message.created_at']).toBe('datetime(3) not null default now');
    });

    test('PostgreSQL migrated by our runner: the same catalog, and Prisma then finds nothing to deploy', async () => {
      const url = await freshPostgresUrl();
      await migrateUrl(url);
      expect(await postgresCatalog(url)).toEqual(prismaDeployed);
      expect(await prismaDeploy(url)).toEqual([]);
    });

    test("the shipped migrations reach the schema: the same catalog as the schema's own DDL (prisma migrate diff --from-empty)", async () => {
      const url = await freshPostgresUrl();
      const ddl = await withSchemaEngine(schemaPath('postgresql'), new PrismaPg({ connectionString: url }), (engine) =>
        sqlFromEmpty(engine, schemaPath('postgresql')),
      );
      const pgClient = new (await import('pg')).default.Client({ connectionString: url });
      await pgClient.connect();
      await pgClient.query(ddl);
      await pgClient.end();
      expect(await postgresCatalog(url)).toEqual(prismaDeployed);
    });

    test('the comparison sees a difference', async () => {
      const url = await freshPostgresUrl();
      await migrateUrl(url);
      const pgClient = new (await import('pg')).default.Client({ connectionString: url });
      await pgClient.connect();
      await pgClient.query('ALTER TABLE agent_message ALTER COLUMN role SET NOT NULL');
      await pgClient.end();
      expect(await postgresCatalog(url)).not.toEqual(prismaDeployed);
    });

    eachDatabase(
      (database) => {
        test('MariaDB (which the engine cannot read): the same columns, nullability, defaults, indexes and foreign keys; VARCHAR(191) or TEXT as the schema says', async () => {
          const url = await database.freshUrl();
          await migrateUrl(url);
          const { checks, ...mariadb } = await mysqlCatalog(url);
          expect({ ...mariadb, declaredTypes: {} }).toEqual(prismaDeployed);
          const text = textColumns();
          expect(text.size).toBeGreaterThan(0);
          for (const [name, declared] of Object.entries(mariadb.declaredTypes)) {
            if (!prismaDeployed.columns[name].startsWith('string')) continue;
            expect([name, declared]).toEqual([name, text.get(name) ?? 'varchar(191)']);
          }
          // No column is left with MariaDB's JSON check (it is LONGTEXT with one).
          expect(checks).toEqual([]);
        });
      },
      [MARIADB],
    );
  });
});
