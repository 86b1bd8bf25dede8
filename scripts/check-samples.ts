// Every TypeScript sample of the README and the docs compiles: each ```ts block
// is written out as a module of its own (test-artifacts/samples/) and type-checked
// under the project's strict options, the package imported by its name as an app
// would (here resolved to its sources), and an app's own generated Prisma client,
// `./generated/client.js`, beside it (here the package's SQLite client). A block
// that cannot compile on its own is listed, with the reason, in docs/samples-exceptions.txt, which this prints: there,
// only a package this repository does not install is forgiven, every other error of
// the block still fails. An exception that forgives nothing, or names no block,
// fails too, and so does a JavaScript block (samples are TypeScript).
//   tsx scripts/check-samples.ts
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
const OUT = join(ROOT, 'test-artifacts', 'samples');
const EXCEPTIONS = 'docs/samples-exceptions.txt';

/** The package's subpath exports, as the samples import them, mapped to their sources. */
const PACKAGE_PATHS: Record<string, string[]> = {
  'nestjs-agent-store': ['./src/index.ts'],
  'nestjs-agent-store/integration': ['./src/contract/index.ts'],
  'nestjs-agent-store/http': ['./src/http/index.ts'],
  'nestjs-agent-store/langgraph': ['./src/integrations/langgraph/index.ts'],
  'nestjs-agent-store/openai-agents': ['./src/integrations/openai-agents/index.ts'],
  'nestjs-agent-store/claude-agent-sdk': ['./src/integrations/claude-agent-sdk/index.ts'],
  'nestjs-agent-store/testing': ['./src/testing/index.ts'],
};

/** The fences compiled, and the script fences refused (a sample of ours is TypeScript). */
const TYPESCRIPT = /^(ts|typescript|tsx|mts|cts)$/i;
const UNCHECKED_SCRIPT = /^(js|javascript|jsx|mjs|cjs)$/i;
/** "Cannot find module": the one error an exception forgives (a package this repository does not install). */
const MODULE_NOT_FOUND = 2307;

interface Sample {
  /** `README.md#2`: the page, and which of its TypeScript blocks (from 1). */
  id: string;
  page: string;
  /** The page's line of the block's first code line (from 1). */
  line: number;
  code: string;
  file: string;
}

/** The Markdown pages with samples: the README and docs/, less the generated API reference and the build. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && !['docs/api', 'docs/.vitepress'].includes(path)) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found.sort();
}

function samplesOf(page: string): Sample[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const samples: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence of three or more backticks or tildes, indented or in a list item or a quote.
    const open = /^([\s>*+\-\d.]*?)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, language] = open;
    const end = lines.findIndex((line, j) => j > i && line.slice(indent.length).trimStart().startsWith(fence));
    if (end < 0) throw new Error(`${page}:${i + 1}: a code block that never closes`);
    if (UNCHECKED_SCRIPT.test(language)) throw new Error(`${page}:${i + 1}: a \`${language}\` block: write samples in TypeScript (\`ts\`), which is checked`);
    if (!TYPESCRIPT.test(language)) {
      i = end;
      continue;
    }
    const n = samples.length + 1;
    const file = join(
      OUT,
      page.replace(/\.md$/, ''),
      `sample-${n}.${/^tsx$/i.test(language) ? 'tsx' : /^[mc]ts$/i.test(language) ? language.toLowerCase() : 'ts'}`,
    );
    const code = lines
      .slice(i + 1, end)
      .map((line) => line.slice(indent.length))
      .join('\n');
    samples.push({ id: `${page}#${n}`, page, line: i + 2, code, file });
    i = end;
  }
  return samples;
}

/** `page#n: reason` per line; blank lines and lines starting with `//` aside. */
function exceptions(): Map<string, string> {
  const listed = new Map<string, string>();
  for (const line of readFileSync(join(ROOT, EXCEPTIONS), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('//')) continue;
    const match = /^(\S+#\d+):\s*(\S.*)$/.exec(line);
    if (!match) throw new Error(`${EXCEPTIONS}: "${line}" is not "page#n: reason"`);
    listed.set(match[1], match[2]);
  }
  return listed;
}

const samples = pages().flatMap(samplesOf);
const excepted = exceptions();
rmSync(OUT, { recursive: true, force: true });
for (const sample of samples) {
  mkdirSync(dirname(sample.file), { recursive: true });
  // A module of its own, even a block without imports: its names do not meet another block's.
  writeFileSync(sample.file, `${sample.code}\nexport {};\n`);
  if (sample.code.includes("'./generated/client.js'")) {
    const generated = join(dirname(sample.file), 'generated', 'client.ts');
    mkdirSync(dirname(generated), { recursive: true });
    writeFileSync(generated, `export * from '${relative(dirname(generated), join(ROOT, 'src', 'generated', 'sqlite', 'client.js'))}';\n`);
  }
}

const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
const program = ts.createProgram(
  samples.map((sample) => sample.file),
  { ...options, noEmit: true, types: ['node'], paths: PACKAGE_PATHS, baseUrl: ROOT },
);
const bySample = new Map(samples.map((sample) => [sample.file, sample]));
const failures = new Map<string, string[]>();
/** The excepted samples whose missing module was forgiven: an exception that forgives nothing is stale. */
const forgiven = new Set<string>();
for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
  const sample = diagnostic.file && bySample.get(diagnostic.file.fileName);
  const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  if (!sample || diagnostic.start === undefined) {
    failures.set('(the project)', [...(failures.get('(the project)') ?? []), text]);
    continue;
  }
  if (excepted.has(sample.id) && diagnostic.code === MODULE_NOT_FOUND) {
    forgiven.add(sample.id);
    continue;
  }
  const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
  failures.set(sample.id, [...(failures.get(sample.id) ?? []), `${sample.page}:${sample.line + line}: ${text}`]);
}

let failed = false;
console.log(`${samples.length} TypeScript samples in ${new Set(samples.map((sample) => sample.page)).size} pages`);
console.log(`${EXCEPTIONS}: ${excepted.size} forgiven a package not installed here${excepted.size ? ', each with its reason:' : ''}`);
for (const [id, reason] of excepted) console.log(`  ${id}: ${reason}`);
for (const [id, errors] of failures) {
  failed = true;
  const file = samples.find((sample) => sample.id === id)?.file;
  console.error(`\n${id} does not compile${file ? ` (written to ${relative(ROOT, file)})` : ''}:`);
  for (const error of errors) console.error(`  ${error}`);
}
for (const id of excepted.keys()) {
  if (!samples.some((sample) => sample.id === id)) {
    failed = true;
    console.error(`${EXCEPTIONS} lists ${id}, which is no sample`);
  } else if (!forgiven.has(id)) {
    failed = true;
    console.error(`${EXCEPTIONS} lists ${id}, which imports no missing package: take it off the list`);
  }
}
if (failed) process.exit(1);
console.log('every sample compiles');
