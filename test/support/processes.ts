// Runs a TypeScript fixture in a child process of its own.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export function runFixture(fixture: string, args: string[], options: { cwd?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['--tsconfig', join(ROOT, 'tsconfig.json'), join(ROOT, 'test', 'fixtures', fixture), ...args], { cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
