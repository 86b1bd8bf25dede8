// Where the schema files live and how a provider's schema is made from the models.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Provider } from '../src/engine/provider-kit.js';
import { modelsFor } from '../src/engine/store-models.js';

export { PROVIDERS, type Provider } from '../src/engine/provider-kit.js';
export { MODELS_PATH } from '../src/engine/store-models.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const schemaPath = (provider: Provider) => join(ROOT, 'prisma', provider, 'schema.prisma');
export const migrationsDir = (provider: Provider) => join(ROOT, 'prisma', 'migrations', provider);

/** The full schema for one provider: generated header, datasource, client generator, models. */
export function renderSchema(provider: Provider, models: string): string {
  return `// Generated from prisma/models.prisma by scripts/prisma-schemas.ts. Do not edit.

generator client {
  provider            = "prisma-client"
  output              = "../../src/generated/${provider}"
  moduleFormat        = "esm"
  importFileExtension = "js"
}

datasource db {
  provider = "${provider}"
}

${modelsFor(provider, models)}`;
}
