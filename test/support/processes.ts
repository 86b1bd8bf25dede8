// Runs TypeScript files (fixtures, the npm scripts) in child processes of their own.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export interface RunOptions {
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /**
   * TypeScript through tsx's ESM hooks only, CommonJS left to Node: a CommonJS
   * package that requires an ESM-only one (nestjs-cls requiring @nestjs/core)
   * then gets the very module the app imports, not a second copy tsx compiled.
   */
  esmOnly?: boolean;
}

export type Run = { code: number | null; stdout: string; stderr: string };

export const runFixture = (fixture: string, args: string[], options: RunOptions = {}): Promise<Run> =>
  runTypeScript(join('test', 'fixtures', fixture), args, options);

/** Runs a TypeScript file of the repository (a path from its root) as `tsx` does for the npm scripts. */
export function runTypeScript(file: string, args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const [command, ...flags] = options.esmOnly ? [process.execPath, '--import', 'tsx/esm'] : [TSX, '--tsconfig', join(ROOT, 'tsconfig.json')];
    const child = spawn(command, [...flags, join(ROOT, file), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
