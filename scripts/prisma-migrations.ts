// Writes the next migration of SQLite and PostgreSQL with Prisma's schema engine:
// the diff from the schema as committed at a git revision (default HEAD, the
// schema the shipped migrations reach) to the working one. --check: the shipped
// SQLite migrations, deployed by the engine, leave nothing to change (PostgreSQL's
// are compared with the schema's catalog by the test suite: the wasm engine cannot
// introspect PostgreSQL through its adapter).
//   tsx scripts/prisma-migrations.ts --name <what_it_does> [--from <git revision>]
//   tsx scripts/prisma-migrations.ts --check
// MySQL's migrations are written by hand (the wasm engine has no MySQL connector)
// and are checked against a live MariaDB by the test suite.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { migrationsDir, ROOT, schemaPath, type Provider } from './prisma-layout.js';
import { deployWithPrisma, EMPTY_MIGRATION, sqlBetween, sqlFromDatabase, withSchemaEngine } from './schema-engine.js';

export const ENGINE_PROVIDERS = ['sqlite', 'postgresql'] as const satisfies readonly Provider[];

/**
 * The SQL the shipped migrations of `provider` lack to reach its schema
 * (EMPTY_MIGRATION when none): Prisma's engine deploys them on a fresh database,
 * a temporary SQLite file or a database it is given room for on the PostgreSQL
 * server of `serverUrl` (default TEST_POSTGRES_URL), then diffs it against the schema.
 */
export async function pendingSql(provider: (typeof ENGINE_PROVIDERS)[number], serverUrl = process.env.TEST_POSTGRES_URL): Promise<string> {
  const path = schemaPath(provider);
  const diff = (factory: SqlMigrationAwareDriverAdapterFactory) =>
    withSchemaEngine(path, factory, async (engine) => {
      await deployWithPrisma(engine, provider);
      return sqlFromDatabase(engine, path);
    });
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pending-'));
    try {
      return await diff(new PrismaBetterSqlite3({ url: `file:${join(dir, 'db.sqlite')}` }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (!serverUrl) throw new Error('set TEST_POSTGRES_URL to a PostgreSQL server where the role may create databases');
  const name = `pending_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return await diff(new PrismaPg({ connectionString: url.href }));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

/** The SQL from the schema of `provider` as committed at `revision` to the working schema. */
async function sqlSince(provider: (typeof ENGINE_PROVIDERS)[number], revision: string): Promise<string> {
  const path = schemaPath(provider);
  const before = execFileSync('git', ['show', `${revision}:${relative(ROOT, path)}`], { cwd: ROOT, encoding: 'utf8' });
  // Diffing two datamodels reads no database; the PostgreSQL connector connects all the same.
  const factory =
    provider === 'sqlite'
      ? new PrismaBetterSqlite3({ url: ':memory:' })
      : new PrismaPg({ connectionString: process.env.TEST_POSTGRES_URL ?? 'postgresql://localhost/postgres' });
  return withSchemaEngine(path, factory, (engine) => sqlBetween(engine, { path: `${path}@${revision}`, content: before }, path));
}

async function main() {
  const argument = (flag: string) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
  if (process.argv.includes('--check')) {
    const sql = await pendingSql('sqlite');
    if (sql !== EMPTY_MIGRATION) console.error(`the shipped SQLite migrations do not reach its schema; they lack:\n${sql}`);
    process.exit(sql === EMPTY_MIGRATION ? 0 : 1);
  }
  const name = argument('--name');
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('usage: --check, or --name <lower_snake_case> [--from <git revision>]');
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  for (const provider of ENGINE_PROVIDERS) {
    const sql = await sqlSince(provider, argument('--from') ?? 'HEAD');
    if (sql === EMPTY_MIGRATION) continue;
    const dir = join(migrationsDir(provider), `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'migration.sql'), sql);
    console.log(`wrote ${dir}/migration.sql`);
  }
  console.log('MySQL: write its migration by hand in the same folder name (see prisma/migrations/mysql).');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
