// What npm packs is the repository's package.json, scripts and all: an installed
// package would carry `prepare` (which npm lists among the install scripts to
// approve) and the development scripts, dependencies and allowScripts. prepack
// strips them after the build; postpack puts the repository's own manifest back.
//   tsx scripts/pack-manifest.ts strip | restore
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const MANIFEST = join(ROOT, 'package.json');
const KEPT = join(ROOT, 'package.json.unpacked');
/** What only the repository uses. */
const REPOSITORY_ONLY = ['scripts', 'devDependencies', 'allowScripts'];

function strip(): void {
  // A pack that failed between the two steps left the stripped manifest: packing from it would skip the build.
  if (existsSync(KEPT)) {
    throw new Error(`${KEPT} exists: a pack was interrupted. Put it back first: mv package.json.unpacked package.json`);
  }
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text) as Record<string, unknown>;
  writeFileSync(KEPT, text);
  for (const field of REPOSITORY_ONLY) delete manifest[field];
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}

function restore(): void {
  if (!existsSync(KEPT)) throw new Error(`${KEPT} is missing: nothing to put back`);
  renameSync(KEPT, MANIFEST);
}

const step = process.argv[2];
if (step === 'strip') strip();
else if (step === 'restore') restore();
else throw new Error(`usage: tsx scripts/pack-manifest.ts strip|restore (got ${JSON.stringify(step)})`);
