// Renders prisma/<provider>/schema.prisma from prisma/models.prisma.
//   tsx scripts/prisma-schemas.ts          write the three schemas
//   tsx scripts/prisma-schemas.ts --check  exit 1 when a committed schema has drifted
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { PROVIDERS, renderSchema, schemaPath, MODELS_PATH } from './prisma-layout.js';

const models = readFileSync(MODELS_PATH, 'utf8');
const check = process.argv.includes('--check');
let drifted = false;

for (const provider of PROVIDERS) {
  const path = schemaPath(provider);
  const expected = renderSchema(provider, models);
  if (check) {
    let actual = '';
    try {
      actual = readFileSync(path, 'utf8');
    } catch {
      // a missing schema is drift like any other
    }
    if (actual !== expected) {
      console.error(`${path} differs from what prisma/models.prisma renders: run npm run prisma:schemas`);
      drifted = true;
    }
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, expected);
    console.log(`wrote ${path}`);
  }
}
process.exit(drifted ? 1 : 0);
