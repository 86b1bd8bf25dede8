// `nestjs-agent-store prisma-models` as a user runs it: compiled as the package
// ships it (dist/cli/main.js beside prisma/models.prisma) in a folder without
// node_modules, run by node. It prints each provider's models as the store's
// own schema holds them, and merges them into a schema file once: a second run,
// or one after `prisma format`, writes nothing; a model of the same name with
// other content is refused and nothing is written.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { PROVIDERS, schemaPath } from '../../scripts/prisma-layout.js';
import { schemaBlocks } from '../../src/engine/store-models.js';
import { appProject, prismaCli, type AppProject } from '../support/app-project.js';
import { ROOT } from '../support/processes.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
const ORDER = 'model Order {\n  id    Int @id @default(autoincrement())\n  total Int\n}\n';

let shipped: string;
let command: string;
const projects: AppProject[] = [];

/** The command and the modules it imports, compiled from src/ to dist/ as the build lays them out, with prisma/models.prisma beside. */
function shippedCommand(into: string): string {
  const compile = (source: string) => {
    const target = join(into, 'dist', relative(join(ROOT, 'src'), source).replace(/\.ts$/, '.js'));
    if (existsSync(target)) return;
    const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
    for (const { fileName } of ts.preProcessFile(outputText).importedFiles) {
      if (fileName.startsWith('.')) compile(join(dirname(source), fileName.replace(/\.js$/, '.ts')));
    }
  };
  compile(join(ROOT, 'src', 'cli', 'main.ts'));
  mkdirSync(join(into, 'prisma'));
  copyFileSync(join(ROOT, 'prisma', 'models.prisma'), join(into, 'prisma', 'models.prisma'));
  writeFileSync(join(into, 'package.json'), JSON.stringify({ type: 'module' }));
  return join(into, manifest.bin['nestjs-agent-store']);
}

const run = (...args: string[]) => {
  const { status, stdout, stderr } = spawnSync(process.execPath, [command, ...args], { encoding: 'utf8' });
  return { status, stdout, stderr };
};
/** The command's print run for each provider, run once. */
const prints = new Map<string, ReturnType<typeof run>>();
const printed = (provider: string) => prints.get(provider)!.stdout;

function project(provider: string, models = ORDER): AppProject {
  projects.push(appProject(provider, models));
  return projects[projects.length - 1];
}

beforeAll(() => {
  shipped = mkdtempSync(join(tmpdir(), 'agent-store-cli-'));
  command = shippedCommand(shipped);
  for (const provider of PROVIDERS) prints.set(provider, run('prisma-models', '--provider', provider));
});
afterAll(() => {
  rmSync(shipped, { recursive: true, force: true });
  for (const each of projects) each.remove();
});

test('the package ships the command as its bin, with the models it reads', () => {
  expect(manifest.bin).toEqual({ 'nestjs-agent-store': 'dist/cli/main.js' });
  expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'prisma/models.prisma']));
  expect(readFileSync(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  // It imports no package: it ran in a folder without node_modules.
  expect(run('--help')).toEqual({
    status: 0,
    stdout: expect.stringMatching(/^usage: nestjs-agent-store prisma-models --provider <sqlite\|postgresql\|mysql>/),
    stderr: '',
  });
});

test.each(PROVIDERS)("prints the models of prisma/%s/schema.prisma, the store's own schema, and nothing else", (provider) => {
  const { status, stdout, stderr } = prints.get(provider)!;
  expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
  const own = schemaBlocks(readFileSync(schemaPath(provider), 'utf8'));
  expect(own.map((block) => block.name)).toEqual([
    'AgentThread',
    'AgentMessage',
    'AgentBoundary',
    'AgentRepair',
    'AgentSubsession',
    'AgentTombstone',
    'AgentLgCheckpoint',
    'AgentLgBlob',
    'AgentLgWrite',
  ]);
  expect(stdout).toBe(
    `// The models of nestjs-agent-store, from \`nestjs-agent-store prisma-models --provider ${provider}\`.\n` +
      '// Keep them as printed: the store checks at start-up that their tables and columns exist.\n\n' +
      `${own.map((block) => block.text).join('\n\n')}\n`,
  );
});

test('each provider gets its native types: none on SQLite, text on PostgreSQL, LONGTEXT on MySQL', () => {
  expect(printed('sqlite')).not.toMatch(/@db\./);
  expect(printed('postgresql')).toMatch(/content +String +@db\.Text\n/);
  expect(printed('postgresql')).not.toMatch(/LongText/);
  expect(printed('mysql')).toMatch(/content +String +@db\.LongText\n/);
});

describe.each(PROVIDERS)('--merge into a %s schema', (provider) => {
  test('adds the models after what the schema holds; run again, or after prisma format, it writes nothing', async () => {
    const app = project(provider);
    const before = readFileSync(app.schemaPath, 'utf8');
    const first = run('prisma-models', '--provider', provider, '--merge', app.schemaPath);
    expect(first).toEqual({
      status: 0,
      stdout: `${app.schemaPath}: added AgentThread, AgentMessage, AgentBoundary, AgentRepair, AgentSubsession, AgentTombstone, AgentLgCheckpoint, AgentLgBlob, AgentLgWrite. Now create and apply a migration with them (prisma migrate dev).\n`,
      stderr: '',
    });
    const merged = readFileSync(app.schemaPath, 'utf8');
    expect(merged).toBe(`${before}\n${printed(provider)}`);

    const unchanged = { status: 0, stdout: `${app.schemaPath} already holds the store's models for ${provider}: nothing written.\n`, stderr: '' };
    expect(run('prisma-models', '--provider', provider, '--merge', app.schemaPath)).toEqual(unchanged);
    expect(readFileSync(app.schemaPath, 'utf8')).toBe(merged);

    // Prisma's formatter realigns the fields and reorders their attributes: the same models still.
    await prismaCli(app, 'format');
    const formatted = readFileSync(app.schemaPath, 'utf8');
    if (provider !== 'sqlite') expect(formatted).not.toBe(merged);
    expect(run('prisma-models', '--provider', provider, '--merge', app.schemaPath)).toEqual(unchanged);
    expect(readFileSync(app.schemaPath, 'utf8')).toBe(formatted);
  });

  test('adds only the models the schema lacks', () => {
    const [thread] = schemaBlocks(printed(provider));
    const app = project(provider, `${ORDER}\n${thread.text}\n`);
    expect(run('prisma-models', '--provider', provider, '--merge', app.schemaPath).stdout).toMatch(
      /: added AgentMessage, AgentBoundary, AgentRepair, AgentSubsession, AgentTombstone, AgentLgCheckpoint, AgentLgBlob, AgentLgWrite\./,
    );
    expect(schemaBlocks(readFileSync(app.schemaPath, 'utf8')).map((block) => block.name)).toEqual([
      'Order',
      'AgentThread',
      'AgentMessage',
      'AgentBoundary',
      'AgentRepair',
      'AgentSubsession',
      'AgentTombstone',
      'AgentLgCheckpoint',
      'AgentLgBlob',
      'AgentLgWrite',
    ]);
  });
});

test('a schema with a model of the same name and other content is refused, the model named, nothing written', () => {
  const app = project('postgresql', `${ORDER}\nmodel AgentThread {\n  id String @id\n}\n\nmodel AgentTombstone {\n  id String @id\n}\n`);
  const before = readFileSync(app.schemaPath, 'utf8');
  const { status, stdout, stderr } = run('prisma-models', '--provider', 'postgresql', '--merge', app.schemaPath);
  expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
  expect(stderr).toBe(
    `nestjs-agent-store: ${app.schemaPath} already has AgentThread, AgentTombstone with other content than the store's model: nothing written. ` +
      'Replace them with what `nestjs-agent-store prisma-models --provider postgresql` prints, or rename yours (the store needs these names)\n',
  );
  expect(readFileSync(app.schemaPath, 'utf8')).toBe(before);
});

test.each([
  ['a model on a store table (@@map)', 'model Conversation {\n  id String @id\n\n  @@map("agent_thread")\n}\n', 'model Conversation on "agent_thread"'],
  [
    'a model on a store table, written with spaces and line breaks',
    'model Spaced {\n  id String @id\n\n  @@map (\n    name : "agent_thread"\n  )\n}\n',
    'model Spaced on "agent_thread"',
  ],
  ['a model named as a store table', 'model agent_message {\n  id String @id\n}\n', 'model agent_message on "agent_message"'],
  ['a model on a store table in other case', 'model Gone {\n  id String @id\n\n  @@map(name: "AGENT_TOMBSTONE")\n}\n', 'model Gone on "agent_tombstone"'],
  [
    'an index named as the store names its own',
    'model Note {\n  id     Int    @id\n  tenant String\n\n  @@index([tenant], map: "agent_thread_tenant_id_idx")\n}\n',
    'model Note on "agent_thread_tenant_id_idx"',
  ],
  ['a key named as the store names its own', 'model Note {\n  id Int @id(map: "agent_lg_blob_pkey")\n}\n', 'model Note on "agent_lg_blob_pkey"'],
  ['an enum on a store table (a type of that name on PostgreSQL)', 'enum Kind {\n  A\n\n  @@map("agent_subsession")\n}\n', 'enum Kind on "agent_subsession"'],
])("a schema with %s, where the store's would go too, is refused, the block named, nothing written", (_name, block, named) => {
  const app = project('postgresql', `${ORDER}\n${block}`);
  const before = readFileSync(app.schemaPath, 'utf8');
  const { status, stdout, stderr } = run('prisma-models', '--provider', 'postgresql', '--merge', app.schemaPath);
  expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
  expect(stderr).toBe(
    `nestjs-agent-store: ${app.schemaPath} has ${named}: a name of the store's tables, or of their indexes and keys (which begin with a table's name and _), so two models would share it. ` +
      'Nothing written: give yours another name (@@map, map:)\n',
  );
  expect(readFileSync(app.schemaPath, 'utf8')).toBe(before);
});

test("names that only resemble the store's are kept: a table agent_thread_note, an index of another table, a comment that names the store's", () => {
  const app = project(
    'postgresql',
    `${ORDER}\n/// Not map: "agent_thread_x", a comment.\nmodel ThreadNote {\n  id     Int    @id\n  thread String // was @@map("agent_thread")\n\n  @@index([thread], map: "note_agent_thread_idx")\n  @@map("agent_thread_note")\n}\n`,
  );
  expect(run('prisma-models', '--provider', 'postgresql', '--merge', app.schemaPath).status).toBe(0);
  expect(schemaBlocks(readFileSync(app.schemaPath, 'utf8')).map((block) => block.name)).toEqual(expect.arrayContaining(['ThreadNote', 'AgentThread']));
});

test('a schema file that is a symbolic link is written through: the link stays, its target gets the models', () => {
  const app = project('sqlite');
  const target = join(dirname(app.schemaPath), 'real.prisma');
  renameSync(app.schemaPath, target);
  symlinkSync('real.prisma', app.schemaPath);
  expect(run('prisma-models', '--provider', 'sqlite', '--merge', app.schemaPath).status).toBe(0);
  expect(lstatSync(app.schemaPath).isSymbolicLink()).toBe(true);
  expect(readlinkSync(app.schemaPath)).toBe('real.prisma');
  expect(schemaBlocks(readFileSync(target, 'utf8')).map((block) => block.name)).toEqual(expect.arrayContaining(['Order', 'AgentThread']));
  expect(readdirSync(dirname(app.schemaPath)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
});

test('--merge of what is not a regular file (a device that never ends, a FIFO no one writes) is refused before it is read, exit 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-cli-fifo-'));
  try {
    const fifo = join(dir, 'schema.prisma');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', fifo]) {
      const started = Date.now();
      const { status, stdout, stderr } = spawnSync(process.execPath, [command, 'prisma-models', '--provider', 'sqlite', '--merge', path], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect({ path, status, stdout, stderr }).toEqual({
        path,
        status: 1,
        stdout: '',
        stderr: `nestjs-agent-store: cannot read ${path}: it is not a regular file (a device, a pipe or a socket)\n`,
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a schema whose datasource is another provider's is refused, nothing written", () => {
  const app = project('sqlite');
  const before = readFileSync(app.schemaPath, 'utf8');
  expect(run('prisma-models', '--provider', 'mysql', '--merge', app.schemaPath)).toEqual({
    status: 1,
    stdout: '',
    stderr: `nestjs-agent-store: ${app.schemaPath}'s datasource provider is "sqlite", not "mysql": pass the provider your schema uses\n`,
  });
  expect(readFileSync(app.schemaPath, 'utf8')).toBe(before);
});

test('a model closed by a brace with a comment after it is read as the model it is: the same is kept, another refused', () => {
  const withComment = (text: string) => text.replace(/\n\}$/, "\n} // the store's");
  const app = project('postgresql', `${ORDER}\n${withComment(schemaBlocks(printed('postgresql')).find((block) => block.name === 'AgentThread')!.text)}\n`);
  expect(run('prisma-models', '--provider', 'postgresql', '--merge', app.schemaPath).status).toBe(0);
  expect(schemaBlocks(readFileSync(app.schemaPath, 'utf8')).filter((block) => block.name === 'AgentThread')).toHaveLength(1);
  const other = project('postgresql', `${ORDER}\nmodel AgentThread {\n  id String @id\n} // mine\n`);
  const before = readFileSync(other.schemaPath, 'utf8');
  expect(run('prisma-models', '--provider', 'postgresql', '--merge', other.schemaPath).status).toBe(1);
  expect(readFileSync(other.schemaPath, 'utf8')).toBe(before);
});

test.each([
  ['a binary file (a database, say)', Buffer.from([0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x00, 0xff, 0xfe, 0x00, 0x10]), /is not a Prisma schema/],
  ['text that is not a schema', Buffer.from('DATABASE_URL=postgresql://x\n'), /is not a Prisma schema/],
  ['a directory', undefined, /cannot read .*: it is a directory/],
])('--merge into %s is refused, exit 1, nothing written', (_name, content, message) => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-cli-target-'));
  const target = content === undefined ? dir : join(dir, 'file');
  if (content !== undefined) writeFileSync(target, content);
  try {
    const { status, stdout, stderr } = run('prisma-models', '--provider', 'sqlite', '--merge', target);
    expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
    expect(stderr).toMatch(message);
    if (content !== undefined) expect(readFileSync(target)).toEqual(content);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--merge into a file that does not exist says so, exit 1', () => {
  const { status, stderr } = run('prisma-models', '--provider', 'sqlite', '--merge', join(tmpdir(), 'no-such-dir-agent-store', 'schema.prisma'));
  expect(status).toBe(1);
  expect(stderr).toMatch(/cannot read .*schema\.prisma: there is no such file/);
});

test.each([
  [['prisma-models'], '--provider must be sqlite, postgresql, mysql; got nothing'],
  [['prisma-models', '--provider', 'mongodb'], '--provider must be sqlite, postgresql, mysql; got mongodb'],
  [['models', '--provider', 'sqlite'], 'unknown command "models"'],
  [['prisma-models', '--provider', 'sqlite', '--schema', 'x'], "Unknown option '--schema'"],
  [['prisma-models', '--provider', 'sqlite', '--provider', 'mysql'], '--provider is given more than once'],
  [['prisma-models', '--provider=sqlite', '--provider', 'sqlite'], '--provider is given more than once'],
  [['prisma-models', '--provider', 'sqlite', '--merge', 'a.prisma', '--merge', 'b.prisma'], '--merge is given more than once'],
])('%j is a usage error: exit 2, the usage printed, nothing on stdout', (args, message) => {
  const { status, stdout, stderr } = run(...args);
  expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
  expect(stderr).toMatch(
    new RegExp(`^nestjs-agent-store: .*${message.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}.*\nusage: nestjs-agent-store prisma-models`, 's'),
  );
});
