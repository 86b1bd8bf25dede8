// Generates the Prisma client of each provider into src/generated/<provider>.
// `prisma generate` needs no schema engine, but the CLI insists that one exists
// before it starts; where the native engine cannot be downloaded we point it at
// a stub, which generate never runs.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROVIDERS, ROOT, schemaPath } from './prisma-layout.js';

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  const stub = join(mkdtempSync(join(tmpdir(), 'prisma-engine-stub-')), 'schema-engine');
  writeFileSync(stub, '#!/bin/sh\necho "schema engine stub: not used by prisma generate" >&2\nexit 1\n');
  chmodSync(stub, 0o755);
  env.PRISMA_SCHEMA_ENGINE_BINARY = stub;
}
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';

for (const provider of PROVIDERS) {
  const prismaCli = join(ROOT, 'node_modules', 'prisma', 'build', 'index.js');
  const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schemaPath(provider)], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`prisma generate failed for ${provider}`);
    process.exit(result.status ?? 1);
  }
}
