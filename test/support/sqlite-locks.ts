// SQLite lock contention for tests: another process holding a file's write
// lock, and how long the event loop stalled meanwhile.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/**
 * Starts a process that holds the write lock of the SQLite file at `path` for
 * `holdMs`; resolves once it holds it, with a promise of its release.
 */
export async function holdWriteLock(path: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'test', 'fixtures', 'hold-write-lock.ts'), path, String(holdMs)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('locked\n')) resolve();
    });
    void exited.then((code) => reject(new Error(`the lock holder exited (${code}) before it held the lock: ${stderr}`)));
  });
  return {
    released: exited.then((code) => {
      if (code !== 0 || !stdout.includes('released\n')) throw new Error(`the lock holder failed (${code}): ${stderr}`);
    }),
  };
}

/** Runs `work`, and measures the longest time the event loop went without running a 10 ms timer meanwhile. */
export async function withStallWatch<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number; elapsedMs: number }> {
  const started = performance.now();
  let last = started;
  let stallMs = 0;
  const tick = () => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  };
  const timer = setInterval(tick, 10);
  try {
    const result = await work();
    tick();
    return { result, stallMs, elapsedMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}
