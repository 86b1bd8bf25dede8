// The package's entry points as a consumer resolves them: the root, and one
// subpath per framework integration (`nestjs-agent-store/<name>` is
// dist/integrations/<name>/index.js), through package.json's exports map, for
// Node and for TypeScript's NodeNext resolution. The integration here is a
// throwaway fixture in a temporary directory, not an adapter of the package.
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

/** A consumer app beside an installed copy of the package's manifest, with a stand-in root and one integration. */
function consumerWithFixturePackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-exports-'));
  const pkg = join(dir, 'node_modules', manifest.name);
  write(join(pkg, 'package.json'), JSON.stringify({ name: manifest.name, version: '0.0.0', type: manifest.type, exports: manifest.exports }));
  write(join(pkg, 'dist', 'index.js'), "export const root = 'root';\n");
  write(join(pkg, 'dist', 'index.d.ts'), 'export declare const root: string;\n');
  write(join(pkg, 'dist', 'integrations', 'example', 'index.js'), "export const adapter = 'example';\n");
  write(join(pkg, 'dist', 'integrations', 'example', 'index.d.ts'), 'export declare const adapter: string;\n');
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

test('a consumer imports the root and an integration by its subpath, in Node and in TypeScript (NodeNext)', () => {
  const dir = consumerWithFixturePackage();
  const app = `import { root } from '${manifest.name}';\nimport { adapter } from '${manifest.name}/example';\nconsole.log(root, adapter);\n`;
  expect(typeErrors(dir, `${app}const typed: string = adapter;\n`)).toEqual([]);
  expect(typeErrors(dir, `import { adapter } from '${manifest.name}/missing';\n`)).toEqual([
    expect.stringMatching(/Cannot find module 'nestjs-agent-store\/missing'/),
  ]);

  writeFileSync(join(dir, 'app.js'), app);
  expect(execFileSync(process.execPath, [join(dir, 'app.js')], { cwd: dir, encoding: 'utf8' })).toBe('root example\n');
  const missing = `import '${manifest.name}/missing';\n`;
  writeFileSync(join(dir, 'missing.js'), missing);
  expect(() => execFileSync(process.execPath, [join(dir, 'missing.js')], { cwd: dir, stdio: 'pipe' })).toThrow(/Cannot find module/);
});

test("the package root's import graph never reaches src/integrations/, so no framework loads with it", () => {
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
  expect(files.filter((file) => file.startsWith('src/integrations/'))).toEqual([]);
});
