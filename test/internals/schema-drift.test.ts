// The committed schemas and the shipped SQLite migration are what their sources produce.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { MODELS_PATH, PROVIDERS, migrationsDir, renderSchema, schemaPath } from '../../scripts/prisma-layout.js';
import { expectedInitSql } from '../../scripts/prisma-migrations.js';
import { sqlFromEmpty, withSchemaEngine } from '../../scripts/schema-engine.js';
import { shippedMigrations } from '../../src/data/migration-files.js';
import { describeWith, postgresServerUrl } from '../support/databases.js';

const models = readFileSync(MODELS_PATH, 'utf8');

describe('provider schemas', () => {
  it.each(PROVIDERS)('prisma/%s/schema.prisma is what models.prisma renders', (provider) => {
    expect(readFileSync(schemaPath(provider), 'utf8')).toBe(renderSchema(provider, models));
  });

  it('only the SQLite schema drops the native type attributes', () => {
    const attribute = /[ \t]@db\.\w+/;
    expect(models).toMatch(attribute);
    expect(renderSchema('sqlite', models)).not.toMatch(attribute);
    expect(renderSchema('postgresql', models)).toMatch(attribute);
    expect(renderSchema('mysql', models)).toMatch(attribute);
  });
});

describe('shipped SQLite migration', () => {
  const dir = migrationsDir('sqlite');
  const migrations = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

  it('there is exactly one (the check below is only exact for one)', () => {
    expect(migrations).toHaveLength(1);
  });

  it("is exactly what Prisma's schema engine produces from an empty database", async () => {
    const path = schemaPath('sqlite');
    const expected = await withSchemaEngine(path, new PrismaBetterSqlite3({ url: ':memory:' }), (engine) => sqlFromEmpty(engine, path));
    expect(expected).toMatch(/CREATE TABLE "agent_thread"/);
    expect(readFileSync(join(dir, migrations[0], 'migration.sql'), 'utf8')).toBe(expected);
  });
});

describe('migration_lock.toml', () => {
  it.each(PROVIDERS)('of %s names its provider', (provider) => {
    const lock = readFileSync(join(migrationsDir(provider), 'migration_lock.toml'), 'utf8');
    const providers = [...lock.matchAll(/^\s*provider\s*=\s*"([^"]*)"\s*$/gm)].map((match) => match[1]);
    expect(providers).toEqual([provider]);
  });
});

describeWith(postgresServerUrl, 'PostgreSQL unavailable')('the PostgreSQL migration', () => {
  it("is exactly what Prisma's schema engine produces for prisma/postgresql/schema.prisma", async () => {
    const shipped = shippedMigrations('postgresql');
    expect(shipped).toHaveLength(1);
    expect(shipped[0].sql).toBe(await expectedInitSql('postgresql'));
  });
});
