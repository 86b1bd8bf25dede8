// Prisma's real schema engine, run from @prisma/schema-engine-wasm through a
// driver adapter: it needs no native binary, so it works behind any firewall.
// It supports SQLite and PostgreSQL, not MySQL (see prisma/migrations/mysql).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { migrationsDir, type Provider } from './prisma-layout.js';

export type SchemaEngine = import('@prisma/schema-engine-wasm').SchemaEngine;

const require = createRequire(import.meta.url);
// Node has WebAssembly; this project's TypeScript lib (ES2023, no DOM) does not declare it.
const wasm = (
  globalThis as unknown as {
    WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }> };
  }
).WebAssembly;
let loaded: Promise<typeof import('@prisma/schema-engine-wasm/schema_engine_bg')> | undefined;

function loadWasm() {
  loaded ??= (async () => {
    // The package root imports the .wasm file as an ES module, which Node cannot do.
    const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmPath = join(dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')), 'schema_engine_bg.wasm');
    const { instance } = await wasm.instantiate(readFileSync(wasmPath), { './schema_engine_bg.js': bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
    // Without a panic registry an engine panic surfaces as an unrelated TypeError.
    (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message(message: string) {
        throw new Error(`schema engine panicked: ${message}`);
      },
    };
    return bg;
  })();
  return loaded;
}

/**
 * Runs `use` with Prisma's schema engine on the schema and the adapter
 * factory's database, then frees the engine and disposes every connection it
 * opened (freeing the engine alone leaves them, and their pools, open).
 */
export async function withSchemaEngine<T>(
  schemaPath: string,
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  use: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const opened: SqlDriverAdapter[] = [];
  const track = async (adapter: Promise<SqlDriverAdapter>) => {
    opened.push(await adapter);
    return opened[opened.length - 1];
  };
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    connect: () => track(adapterFactory.connect()),
    connectToShadowDb: () => track(adapterFactory.connectToShadowDb()),
  };
  const bg = await loadWasm();
  const engine = (await bg.SchemaEngine.new(
    { datamodels: [[schemaPath, readFileSync(schemaPath, 'utf8')]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(tracking),
  )) as SchemaEngine;
  try {
    return await use(engine);
  } finally {
    engine.free();
    await Promise.all(opened.map((adapter) => adapter.dispose().catch(() => undefined)));
  }
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** The SQL that takes an empty database to the schema, as `prisma migrate diff --from-empty --script` prints it. */
export const sqlFromEmpty = (engine: SchemaEngine, schemaPath: string): Promise<string> => sqlBetween(engine, undefined, schemaPath);

/** What the engine prints for a diff with nothing to do. */
export const EMPTY_MIGRATION = '-- This is an empty migration.\n';

/** The migrations in `dir` (Prisma's layout: <name>/migration.sql and migration_lock.toml), as Prisma's engine takes them. */
export function migrationsListIn(dir: string) {
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: readFileSync(join(dir, 'migration_lock.toml'), 'utf8') },
    shadowDbInitScript: '',
    migrationDirectories: readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .map((name) => ({
        path: name,
        migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: readFileSync(join(dir, name, 'migration.sql'), 'utf8') } },
      })),
  };
}

/** What `prisma migrate deploy` does with the migrations in `dir`: applies the pending ones; returns the names it applied. */
export async function deployMigrationsIn(engine: SchemaEngine, dir: string): Promise<string[]> {
  const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList: migrationsListIn(dir), filters: NO_FILTERS });
  return appliedMigrationNames;
}

/** What `prisma migrate deploy` does with the shipped migrations of `provider`. */
export const deployWithPrisma = (engine: SchemaEngine, provider: Provider): Promise<string[]> => deployMigrationsIn(engine, migrationsDir(provider));

/**
 * The SQL from the schema `before` (its text, and a path to name it; none: an
 * empty database) to the schema file at `schemaPath`, as `prisma migrate diff
 * --from-schema-datamodel (or --from-empty) --to-schema-datamodel --script`
 * prints it; EMPTY_MIGRATION when they match.
 */
export async function sqlBetween(engine: SchemaEngine, before: { path: string; content: string } | undefined, schemaPath: string): Promise<string> {
  const result = await engine.diff({
    from: before ? { tag: 'schemaDatamodel', files: [before] } : { tag: 'empty' },
    to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] },
    script: true,
    exitCode: null,
    filters: NO_FILTERS,
  });
  return result.stdout ?? '';
}

/** The SQL that would take the live database (the engine's adapter) to the schema: empty when they match. */
export async function sqlFromDatabase(engine: SchemaEngine, schemaPath: string): Promise<string> {
  const files = [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }];
  const result = await engine.diff({
    from: { tag: 'schemaDatasource', files, configDir: dirname(schemaPath) },
    to: { tag: 'schemaDatamodel', files },
    script: true,
    exitCode: null,
    filters: NO_FILTERS,
  });
  return result.stdout ?? '';
}
