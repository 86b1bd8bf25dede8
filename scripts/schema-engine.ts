// Prisma's real schema engine, run from @prisma/schema-engine-wasm through a
// driver adapter: it needs no native binary, so it works behind any firewall.
// It supports SQLite and PostgreSQL, not MySQL (see prisma/migrations/mysql).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

export type SchemaEngine = import('@prisma/schema-engine-wasm').SchemaEngine;

const require = createRequire(import.meta.url);
// Node has WebAssembly; this project's TypeScript lib (ES2023, no DOM) does not declare it.
const wasm = (globalThis as unknown as {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }> };
}).WebAssembly;
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

export async function openSchemaEngine(
  schemaPath: string,
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
): Promise<SchemaEngine> {
  const bg = await loadWasm();
  return bg.SchemaEngine.new(
    { datamodels: [[schemaPath, readFileSync(schemaPath, 'utf8')]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  ) as Promise<SchemaEngine>;
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/** The SQL that takes an empty database to the schema, as `prisma migrate diff --from-empty --script` prints it. */
export async function sqlFromEmpty(engine: SchemaEngine, schemaPath: string): Promise<string> {
  const result = await engine.diff({
    from: { tag: 'empty' },
    to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] },
    script: true,
    exitCode: null,
    filters: NO_FILTERS,
  });
  return result.stdout ?? '';
}
