// The package's entry points as a consumer resolves them: the root, the
// integration contract (`nestjs-agent-store/integration`), the HTTP API's docs
// (`nestjs-agent-store/http`) and one subpath per framework integration, each named in package.json's exports map, for Node and
// for TypeScript's NodeNext resolution. The modules here are throwaway stand-ins
// in a temporary directory, not the package's.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../support/processes.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; type: string; exports: unknown };

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The subpaths the manifest exports (each a framework integration, or the integration contract), with their module's path in the package. */
const SUBPATHS = Object.entries(manifest.exports as Record<string, string | { import: string }>)
  .filter(([subpath]) => subpath !== '.' && subpath !== './package.json')
  .map(([subpath, target]) => ({ name: subpath.slice(2), module: (target as { import: string }).import }));

/** A consumer app beside an installed copy of the package's manifest, with a stand-in root and a stand-in for each subpath. */
function consumerWithFixturePackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-exports-'));
  const pkg = join(dir, 'node_modules', manifest.name);
  write(join(pkg, 'package.json'), JSON.stringify({ name: manifest.name, version: '0.0.0', type: manifest.type, exports: manifest.exports }));
  write(join(pkg, 'dist', 'index.js'), "export const root = 'root';\n");
  write(join(pkg, 'dist', 'index.d.ts'), 'export declare const root: string;\n');
  for (const { name, module } of SUBPATHS) {
    write(join(pkg, module), `export const adapter = '${name}';\n`);
    write(join(pkg, module.replace(/\.js$/, '.d.ts')), 'export declare const adapter: string;\n');
  }
  write(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return dir;
}

function typeErrors(dir: string, source: string): string[] {
  const file = join(dir, 'app.ts');
  writeFileSync(file, source);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    types: [],
  };
  const program = ts.createProgram([file], options);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test("the manifest names each subpath: the integration contract, the conformance kit, the HTTP API's docs and the three framework integrations", () => {
  expect(SUBPATHS.map(({ name }) => name).sort()).toEqual(['claude-agent-sdk', 'http', 'integration', 'langgraph', 'openai-agents', 'testing']);
  for (const { module } of SUBPATHS) expect(existsSync(join(ROOT, module.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')))).toBe(true);
  expect(SUBPATHS.find(({ name }) => name === 'integration')?.module).toBe('./dist/contract/index.js');
  expect(SUBPATHS.find(({ name }) => name === 'testing')?.module).toBe('./dist/testing/index.js');
  expect(SUBPATHS.find(({ name }) => name === 'http')?.module).toBe('./dist/http/index.js');
});

test.each(SUBPATHS.map(({ name }) => name))('a consumer imports the root and %s by its subpath, in Node and in TypeScript (NodeNext)', (name) => {
  const dir = consumerWithFixturePackage();
  const app = `import { root } from '${manifest.name}';\nimport { adapter } from '${manifest.name}/${name}';\nconsole.log(root, adapter);\n`;
  expect(typeErrors(dir, `${app}const typed: string = adapter;\n`)).toEqual([]);
  expect(typeErrors(dir, `import { adapter } from '${manifest.name}/missing';\n`)).toEqual([
    expect.stringMatching(/Cannot find module 'nestjs-agent-store\/missing'/),
  ]);

  writeFileSync(join(dir, 'app.js'), app);
  expect(execFileSync(process.execPath, [join(dir, 'app.js')], { cwd: dir, encoding: 'utf8' })).toBe(`root ${name}\n`);
  const missing = `import '${manifest.name}/missing';\n`;
  writeFileSync(join(dir, 'missing.js'), missing);
  expect(() => execFileSync(process.execPath, [join(dir, 'missing.js')], { cwd: dir, stdio: 'pipe' })).toThrow(
    /Package subpath '.\/missing' is not defined by "exports"/,
  );
});

test("the package root's import graph never reaches src/integrations/ or src/testing/, so no framework or test runner loads with it", () => {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      // NodeNext imports name their file: ./x.js is ./x.ts here.
      const target = join(dirname(file), fileName.replace(/\.js$/, '.ts'));
      if (!existsSync(target)) throw new Error(`${relative(ROOT, file)} imports ${fileName}, which is not a source file`);
      visit(target);
    }
  };
  visit(join(ROOT, 'src', 'index.ts'));
  const files = [...reached].map((file) => relative(ROOT, file));
  expect(files).toEqual(expect.arrayContaining(['src/store.module.ts', 'src/http/store-http.module.ts', 'src/engine/open-database.ts']));
  expect(files.filter((file) => file.startsWith('src/integrations/') || file.startsWith('src/testing/'))).toEqual([]);
});
