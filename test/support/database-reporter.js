// A jest reporter that prints, after the run, the test counts per database
// (from the [SQLite] / [PostgreSQL] / [MariaDB] describe blocks), then the total
// as a plain closing line.
const DATABASE = /^\[(SQLite|PostgreSQL|MariaDB)\]/;

export default class DatabaseSummaryReporter {
  onRunComplete(_contexts, results) {
    const counts = new Map();
    const count = (key, status) => {
      const entry = counts.get(key) ?? { passed: 0, failed: 0, skipped: 0 };
      entry[status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'skipped']++;
      counts.set(key, entry);
    };
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        const database = test.ancestorTitles.map((title) => DATABASE.exec(title)?.[1]).find(Boolean);
        count(database ?? 'other', test.status);
      }
    }
    const line = ({ passed, failed, skipped }) => `${passed} passed, ${failed} failed, ${skipped} skipped`;
    const lines = ['SQLite', 'PostgreSQL', 'MariaDB', 'other'].filter((key) => counts.has(key)).map((key) => `  ${key === 'other' ? 'not per database' : key}: ${line(counts.get(key))}`);
    const total = { passed: results.numPassedTests, failed: results.numFailedTests, skipped: results.numPendingTests + results.numTodoTests };
    process.stdout.write(`\nTests per database:\n${lines.join('\n')}\ntotal: ${line(total)}\n`);
  }
}
