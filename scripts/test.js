// `npm test` after its type check: jest in two phases (test/legs.js), first every
// file but those that bound wall-clock time tightly, on several workers, then
// those, one at a time on a quiet machine. Arguments go to both phases (a file,
// a pattern, -t …); a phase with no file selected is passed over. It prints how
// long each phase took and, last, the whole run's counts as one closing line.
// Exit code: 1 when a phase failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const jest = join(dirname(createRequire(import.meta.url).resolve('jest/package.json')), 'bin', 'jest.js');
const args = process.argv.slice(2);
const results = mkdtempSync(join(tmpdir(), 'agent-store-phases-'));
const env = (phase) => ({ ...process.env, TEST_PHASE: phase, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() });
// Each phase adds the names of the tests it ran to TEST_NAMES_FILE (test-names-reporter.js).
if (process.env.TEST_NAMES_FILE) rmSync(process.env.TEST_NAMES_FILE, { force: true });

const total = { passed: 0, failed: 0, skipped: 0, filesNotRun: 0 };
let failed = false;
let ran = false;
for (const phase of ['parallel', 'alone']) {
  const listed = spawnSync(process.execPath, [jest, '--listTests', ...args], { env: env(phase), encoding: 'utf8' });
  if (listed.status !== 0) {
    process.stderr.write(listed.stderr);
    failed = true;
    break;
  }
  if (!listed.stdout.split('\n').some((line) => line.endsWith('.test.ts'))) continue;
  ran = true;
  const started = Date.now();
  const output = join(results, `${phase}.json`);
  const run = spawnSync(process.execPath, [jest, ...args, '--json', `--outputFile=${output}`], { env: env(phase), stdio: 'inherit' });
  console.log(`\n== the ${phase} phase took ${Math.round((Date.now() - started) / 1000)} s`);
  if (run.status !== 0) failed = true;
  try {
    const counts = JSON.parse(readFileSync(output, 'utf8'));
    total.passed += counts.numPassedTests;
    total.failed += counts.numFailedTests;
    total.skipped += counts.numPendingTests + counts.numTodoTests;
    total.filesNotRun += counts.numRuntimeErrorTestSuites;
  } catch {
    failed = true; // jest ended before it wrote its results: the phase's output above says why
  }
}
rmSync(results, { recursive: true, force: true });
if (!ran && !failed) {
  console.error(`no test file matches ${args.join(' ') || 'the selection'}`);
  failed = true;
}
if (total.filesNotRun > 0) console.error(`\n${total.filesNotRun} test file(s) failed to run: see above`);
console.log(`\nsuite: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(failed ? 1 : 0);
