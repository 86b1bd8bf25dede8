// The layers' rules (.dependency-cruiser.cjs) hold for src/, and each breach fails the check:
// a cycle, the engine importing a store, a store reaching into another's files.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The rules' violations in the tree under `cwd`'s src/. */
async function violations(cwd: string): Promise<Violation[]> {
  const run = await promisify(execFile)(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    // It exits non-zero when it finds violations; its report is on stdout all the same.
    (error: { stdout?: string }) => {
      if (!error.stdout) throw error;
      return { stdout: error.stdout };
    },
  );
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A tree of `files` (path under src/ → source) in a throwaway folder, with the fixture's tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true }, include: ['src'] }),
  );
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), source);
  }
  return dir;
}

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

async function brokenRules(files: Record<string, string>): Promise<string[]> {
  const dir = tree(files);
  folders.push(dir);
  return [...new Set((await violations(dir)).map((violation) => violation.rule.name))].sort();
}

test('src/ keeps every rule', async () => {
  expect(await violations(ROOT)).toEqual([]);
}, 120_000);

test('an import cycle fails the check', async () => {
  expect(
    await brokenRules({
      'engine/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
      'engine/b.ts': "import { a } from './a.js';\nexport const b = () => a();\n",
    }),
  ).toEqual(['no-cycle']);
}, 120_000);

test('types that name each other fail the check too', async () => {
  expect(
    await brokenRules({
      'engine/kit.ts': "import type { Tx } from './tx.js';\nexport interface Kit { run(tx: Tx): void }\n",
      'engine/tx.ts': "import type { Kit } from './kit.js';\nexport interface Tx { kit: Kit }\n",
    }),
  ).toEqual(['no-cycle']);
}, 120_000);

test('the engine importing a store fails the check, even for a type', async () => {
  expect(
    await brokenRules({
      'engine/database.ts': "import type { Store } from '../stores/messages/store.js';\nexport type Handle = Store;\n",
      'stores/messages/store.ts': 'export interface Store { append(): void }\n',
    }),
  ).toEqual(['engine-on-the-values']);
}, 120_000);

test('the values importing the engine, and the HTTP API importing the engine, fail the check', async () => {
  expect(
    await brokenRules({
      'engine/database.ts': 'export const db = 1;\n',
      'values/validation.ts': "import { db } from '../engine/database.js';\nexport const v = db;\n",
      'http/controller.ts': "import { db } from '../engine/database.js';\nexport const c = db;\n",
    }),
  ).toEqual(['http-on-the-stores', 'values-at-the-bottom']);
}, 120_000);

test('a store importing a generated Prisma client fails the check; the engine may', async () => {
  const client = { 'generated/sqlite/client.ts': 'export class PrismaClient {}\n' };
  expect(
    await brokenRules({
      ...client,
      'stores/messages/log.ts': "import { PrismaClient } from '../../generated/sqlite/client.js';\nexport const c = PrismaClient;\n",
    }),
  ).toEqual(['stores-import-the-engine']);
  expect(
    await brokenRules({
      ...client,
      'engine/store-client.ts': "import { PrismaClient } from '../generated/sqlite/client.js';\nexport const c = PrismaClient;\n",
    }),
  ).toEqual([]);
}, 120_000);

test("a store reaching into another store's files fails the check; through its index.ts it passes", async () => {
  const chats = { 'stores/chats/chat-log.ts': 'export const log = 1;\n', 'stores/chats/index.ts': "export * from './chat-log.js';\n" };
  expect(await brokenRules({ ...chats, 'stores/sessions/jsonl.ts': "import { log } from '../chats/chat-log.js';\nexport const x = log;\n" })).toEqual([
    'stores-import-the-engine',
  ]);
  expect(await brokenRules({ ...chats, 'stores/sessions/jsonl.ts': "import { log } from '../chats/index.js';\nexport const x = log;\n" })).toEqual([]);
}, 120_000);

test('a kit importing another kit, and anything importing an integration, fail the check', async () => {
  expect(
    await brokenRules({
      'databases/sqlite/index.ts': "import { pg } from '../postgresql/index.js';\nexport const sqlite = pg;\n",
      'databases/postgresql/index.ts': 'export const pg = 1;\n',
      'integrations/langgraph/index.ts': 'export const saver = 1;\n',
      'http/saver.ts': "import { saver } from '../integrations/langgraph/index.js';\nexport const s = saver;\n",
    }),
  ).toEqual(['http-on-the-stores', 'integrations-are-subpaths', 'kits-import-the-engine']);
}, 120_000);

test("the root entry importing the HTTP API's heavy files or its peers, or a light file of it importing them, fails the check; a dynamic import passes", async () => {
  const http = {
    'http/store-http.module.ts': "import '@nestjs/swagger';\nexport class StoreHttpModule {}\n",
    'http/store-http.options.ts': 'export const resolveHttpOptions = () => 1;\n',
  };
  expect(await brokenRules({ ...http, 'index.ts': "export { StoreHttpModule } from './http/store-http.module.js';\n" })).toEqual(['http-loads-when-on']);
  expect(await brokenRules({ ...http, 'values/validation.ts': "import 'class-validator';\nexport const v = 1;\n" })).toEqual(['http-peers-in-http-only']);
  expect(
    await brokenRules({ ...http, 'http/store-http.options.ts': "import type { ThrottlerGuard } from '@nestjs/throttler';\nexport type T = ThrottlerGuard;\n" }),
  ).toEqual(['http-light-files-stay-light']);
  expect(
    await brokenRules({
      ...http,
      'http/store-http.loader.ts': "import { StoreHttpModule } from './store-http.module.js';\nexport const load = () => StoreHttpModule;\n",
      'index.ts': "export { load } from './http/store-http.loader.js';\n",
    }),
  ).toEqual(['http-light-files-stay-light']);
  expect(
    await brokenRules({
      ...http,
      'http/store-http.loader.ts': "export const load = () => import('./store-http.module.js');\n",
      'index.ts': "export { load } from './http/store-http.loader.js';\n",
    }),
  ).toEqual([]);
}, 120_000);
