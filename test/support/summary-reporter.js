// A jest reporter that prints, after the run, the slowest test files (where a
// leg's time goes), the test counts per backend (from the describe blocks named
// [SQLite], [PostgreSQL, own PrismaClient], …: the conformance suite's openers,
// and the databases of the other suites), then the total as a plain closing line.
import { relative } from 'node:path';

const SLOWEST = 15;
const BACKEND = /^\[([^\]]+)\]/;
const DATABASES = ['SQLite', 'PostgreSQL', 'PostgreSQL behind PgBouncer (transaction mode)', 'MariaDB', 'MariaDB Galera'];

/** By database (known ones first), then the store's own url before the variants. */
function byBackend(a, b) {
  const rank = (label) => {
    const index = DATABASES.indexOf(label.split(',')[0]);
    return index === -1 ? DATABASES.length : index;
  };
  return rank(a) - rank(b) || Number(a.includes(',')) - Number(b.includes(',')) || a.localeCompare(b);
}

export default class DatabaseSummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults.map((file) => ({
      path: relative(this.rootDir, file.testFilePath),
      seconds: (file.perfStats.end - file.perfStats.start) / 1000,
    }));
    const slowest = files.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
    const busy = files.reduce((sum, file) => sum + file.seconds, 0);
    process.stdout.write(
      `\nSlowest test files (${files.length} files, ${busy.toFixed(0)} s in all, run over the workers):\n${slowest.map((file) => `  ${file.seconds.toFixed(1).padStart(6)} s  ${file.path}`).join('\n')}\n`,
    );
    const counts = new Map();
    const count = (key, status) => {
      const entry = counts.get(key) ?? { passed: 0, failed: 0, skipped: 0 };
      entry[status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'skipped']++;
      counts.set(key, entry);
    };
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        const backend = test.ancestorTitles.map((title) => BACKEND.exec(title)?.[1]).find(Boolean);
        count(backend ?? null, test.status);
      }
    }
    const line = ({ passed, failed, skipped }) => `${passed} passed, ${failed} failed, ${skipped} skipped`;
    const backends = [...counts.keys()].filter((key) => key !== null).sort(byBackend);
    const lines = [...backends, ...(counts.has(null) ? [null] : [])].map((key) => `  ${key ?? 'not per backend'}: ${line(counts.get(key))}`);
    const total = { passed: results.numPassedTests, failed: results.numFailedTests, skipped: results.numPendingTests + results.numTodoTests };
    process.stdout.write(`\nTests per backend:\n${lines.join('\n')}\ntotal: ${line(total)}\n`);
  }
}
