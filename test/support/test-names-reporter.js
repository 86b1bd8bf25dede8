// A jest reporter that writes the full name of every test the run executed
// (passed or failed; skipped ones are not executed) to the file TEST_NAMES_FILE
// names, in the form of test/test-names.txt: each test file's path, then its
// tests' names indented, both sorted, a name as often as the file has a test of
// that name. A file that is there already is added to
// (scripts/test.js empties it before its first phase). scripts/check-test-names.ts
// compares legs with that list. Without TEST_NAMES_FILE it writes nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

/** One line per name: a name's own line breaks are written as \\n and \\r, its backslashes doubled. */
export const formatTestNames = (byFile) =>
  [...byFile.keys()]
    .sort()
    .map((file) =>
      [file, ...[...byFile.get(file)].sort().map((name) => `  ${name.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}`)].join('\n'),
    )
    .join('\n') + '\n';

/** The names by test file (a name as often as it was written), as formatTestNames wrote them. */
export function parseTestNames(text) {
  const byFile = new Map();
  let names;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('  ')) names.push(line.slice(2).replace(/\\(n|r|\\)/g, (_, c) => ({ n: '\n', r: '\r', '\\': '\\' })[c]));
    else byFile.set(line, (names = []));
  }
  return byFile;
}

export default class TestNamesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const out = process.env.TEST_NAMES_FILE;
    if (!out) return;
    const byFile = existsSync(out) ? parseTestNames(readFileSync(out, 'utf8')) : new Map();
    for (const file of results.testResults) {
      const executed = file.testResults.filter((test) => test.status === 'passed' || test.status === 'failed');
      if (executed.length === 0) continue;
      const path = relative(this.rootDir, file.testFilePath);
      byFile.set(path, [...(byFile.get(path) ?? []), ...executed.map((test) => test.fullName)]);
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, formatTestNames(byFile));
  }
}
