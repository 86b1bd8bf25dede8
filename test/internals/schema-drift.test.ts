// The committed schemas are what their sources produce; the shipped SQLite migrations reach the schema
// (PostgreSQL's and MySQL's are compared with the schema's catalog in database-schema.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS_PATH, PROVIDERS, migrationsDir, renderSchema, schemaPath } from '../../scripts/prisma-layout.js';
import { pendingSql } from '../../scripts/prisma-migrations.js';
import { EMPTY_MIGRATION } from '../../scripts/schema-engine.js';
import { shippedMigrations } from '../../src/engine/migration-files.js';

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

describe('shipped SQLite migrations', () => {
  it("deployed by Prisma's schema engine, leave nothing to change", async () => {
    expect(await pendingSql('sqlite')).toBe(EMPTY_MIGRATION);
  });

  it('leave foreign keys on: SQLite checks them after every migration', () => {
    // A table redefinition turns them off; the migrator turns them back on (see the migrations test).
    for (const file of shippedMigrations('sqlite')) {
      if (file.sql.includes('PRAGMA foreign_keys=OFF')) expect(file.sql).toMatch(/PRAGMA foreign_keys=ON;\s*PRAGMA defer_foreign_keys=OFF;\s*$/);
    }
  });
});

describe('migration_lock.toml', () => {
  it.each(PROVIDERS)('of %s names its provider', (provider) => {
    const lock = readFileSync(join(migrationsDir(provider), 'migration_lock.toml'), 'utf8');
    const providers = [...lock.matchAll(/^\s*provider\s*=\s*"([^"]*)"\s*$/gm)].map((match) => match[1]);
    expect(providers).toEqual([provider]);
  });
});
