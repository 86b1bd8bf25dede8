// The docs' shell walkthroughs, read from their pages and run as written.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Run } from './processes.js';

/** The first bash block under `heading` (a whole line, `## Walkthrough`) of a page of the repository (a path from its root). */
export function bashBlockUnder(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  const block = at < 0 ? null : /```bash\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`${page} has no bash block under "${heading}"`);
  return block[1];
}

/** Runs a script in bash with -euo pipefail, as a reader's shell would stop at its first failure. */
export function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
