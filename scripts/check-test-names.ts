// Every test still runs: each CI leg must have run exactly the tests of the
// committed list, test/test-names.txt, that the leg selects (test/legs.js):
// the whole suite every one of them, the newest-node leg those of its groups'
// files, on its groups' backends. The legs' names come from the files that
// test/support/test-names-reporter.js wrote. A test added, renamed or deleted
// on purpose updates the list in the same commit (a full run writes it anew:
// TEST_NAMES_FILE=test/test-names.txt npm test) and the commit says why.
//   tsx scripts/check-test-names.ts test/test-names.txt whole=<file> newest-node=<file>
import { readFileSync } from 'node:fs';
import { chosenBackend, NEWEST_NODE_LEG, ONE_LEG_ONLY } from '../test/legs.js';
// @ts-expect-error: a plain JavaScript module of the suite's (a jest reporter), without types
import { parseTestNames } from '../test/support/test-names-reporter.js';

/** A leg as what it selects: a file and a test's full name in, whether the leg runs it. */
const SELECTS: Record<string, (file: string, name: string) => boolean> = {
  whole: () => true,
  'newest-node': (file, name) =>
    NEWEST_NODE_LEG.some(
      (group) =>
        group.paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)) &&
        !group.except?.includes(file) &&
        backendOf(name, group.testBackends),
    ),
};

/** A leg's selection, less the names that run on another leg only (ONE_LEG_ONLY). */
const LEGS = Object.fromEntries(
  Object.entries(SELECTS).map(([leg, selects]) => {
    const elsewhere = Object.entries(ONE_LEG_ONLY).flatMap(([other, patterns]) => (other === leg ? [] : patterns));
    return [leg, (file: string, name: string) => selects(file, name) && !elsewhere.some((pattern) => pattern.test(name))];
  }),
);

/** A name in a per-backend block ("[SQLite] …") runs where the group chose its backend; any other name wherever its file runs. */
function backendOf(name: string, words: string | undefined): boolean {
  const label = /^\[([^\]]+)\] /.exec(name)?.[1];
  return label === undefined || chosenBackend(words, label);
}

/** The file's entries as "file › name" keys (a name a file has twice: "file › name", then "file › name (2)"), those that `selects` keeps. */
function entries(path: string, selects: (file: string, name: string) => boolean = () => true): Set<string> {
  const byFile = parseTestNames(readFileSync(path, 'utf8')) as Map<string, string[]>;
  const keys = new Set<string>();
  for (const [file, names] of byFile) {
    for (const name of names.filter((each) => selects(file, each))) {
      let key = `${file} › ${name}`;
      for (let n = 2; keys.has(key); n++) key = `${file} › ${name} (${n})`;
      keys.add(key);
    }
  }
  return keys;
}

const show = (keys: string[]) => keys.slice(0, 50).map((key) => `  ${key}`).join('\n') + (keys.length > 50 ? `\n  … and ${keys.length - 50} more` : '');

const [listPath, ...legArgs] = process.argv.slice(2);
if (!listPath || legArgs.length === 0) throw new Error('usage: check-test-names.ts <list> <leg>=<names file>...');
let wrong = false;
for (const arg of legArgs) {
  const [leg, path] = arg.split('=');
  if (!Object.hasOwn(LEGS, leg) || !path) throw new Error(`'${arg}' is not <leg>=<names file>, with a leg among ${Object.keys(LEGS).join(', ')}`);
  const expected = entries(listPath, LEGS[leg]);
  const ran = entries(path);
  const missing = [...expected].filter((key) => !ran.has(key));
  const unlisted = [...ran].filter((key) => !expected.has(key));
  console.log(`the ${leg} leg ran ${ran.size} tests; the list has ${expected.size} for it`);
  if (missing.length > 0) console.error(`\n${missing.length} test(s) of the list did not run on the ${leg} leg:\n${show(missing)}`);
  if (unlisted.length > 0) console.error(`\n${unlisted.length} test(s) ran on the ${leg} leg that ${listPath} does not list for it:\n${show(unlisted)}`);
  wrong ||= missing.length > 0 || unlisted.length > 0;
}
if (wrong) {
  console.error(`\nA test that stops running fails CI. A test added, renamed or deleted on purpose updates ${listPath} in the same commit (a full run writes it: TEST_NAMES_FILE=${listPath} npm test), and the commit says why.`);
  process.exit(1);
}
