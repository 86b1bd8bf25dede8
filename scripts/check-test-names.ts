// Every test still runs: each CI leg must have run exactly the tests of the
// committed list, test/test-names.txt, that the leg selects (test/legs.js):
// the whole suite every one of them, the oldest-node leg those of its groups'
// files, on its groups' backends. The legs' names come from the files that
// test/support/test-names-reporter.js wrote. A test added, renamed or deleted
// on purpose updates the list in the same commit, and the commit says why: with
// --write, the legs' files of a CI run (test-artifacts/test-names/) make it anew.
//   tsx scripts/check-test-names.ts [--write] test/test-names.txt whole=<file> oldest-node=<file>
import { readFileSync, writeFileSync } from 'node:fs';
import { chosenBackend, OLDEST_NODE_LEG, ONE_LEG_ONLY } from '../test/legs.js';
// @ts-expect-error: a plain JavaScript module of the suite's (a jest reporter), without types
import { formatTestNames, parseTestNames } from '../test/support/test-names-reporter.js';

/** A leg as what it selects: a file and a test's full name in, whether the leg runs it. */
const SELECTS: Record<string, (file: string, name: string) => boolean> = {
  whole: () => true,
  'oldest-node': (file, name) =>
    OLDEST_NODE_LEG.some(
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
    return [leg, (file: string, name: string) => selects(file, name) && !elsewhere.some((only) => only.file === file && only.name.test(name))];
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

const show = (keys: string[]) =>
  keys
    .slice(0, 50)
    .map((key) => `  ${key}`)
    .join('\n') + (keys.length > 50 ? `\n  … and ${keys.length - 50} more` : '');

/** The legs' files as given on the command line (<leg>=<names file>): every leg, once. */
function legFiles(args: string[]): [string, string][] {
  const files = args.map((arg): [string, string] => {
    const [leg, path] = arg.split('=');
    if (!Object.hasOwn(LEGS, leg) || !path) throw new Error(`'${arg}' is not <leg>=<names file>, with a leg among ${Object.keys(LEGS).join(', ')}`);
    return [leg, path];
  });
  const given = files.map(([leg]) => leg).sort();
  if (given.join() !== Object.keys(LEGS).sort().join())
    throw new Error(`give each leg's names file once: ${Object.keys(LEGS).join(', ')} (given: ${given.join(', ') || 'none'})`);
  return files;
}

/** What no leg can run: listed names that no leg selects, and ONE_LEG_ONLY patterns that match no listed name. */
function uncovered(listPath: string): string[] {
  const listed = [...(parseTestNames(readFileSync(listPath, 'utf8')) as Map<string, string[]>)].flatMap(([file, names]) =>
    names.map((name) => ({ file, name })),
  );
  const problems = listed
    .filter(({ file, name }) => !Object.values(LEGS).some((selects) => selects(file, name)))
    .map(({ file, name }) => `no leg runs ${file} › ${name}`);
  for (const [leg, patterns] of Object.entries(ONE_LEG_ONLY)) {
    for (const only of patterns) {
      if (!listed.some(({ file, name }) => file === only.file && only.name.test(name)))
        problems.push(`ONE_LEG_ONLY['${leg}'] matches no listed test of ${only.file}: ${only.name}`);
    }
  }
  return problems;
}

/**
 * The list anew: every name some leg ran, as often as the leg that ran it most often. The names it drops are
 * printed; a whole file dropped (one that failed to load records nothing) is refused unless --allow-removed.
 */
function writeUnion(listPath: string, files: [string, string][], allowRemoved: boolean): void {
  const union = new Map<string, string[]>();
  for (const [, path] of files) {
    for (const [file, names] of parseTestNames(readFileSync(path, 'utf8')) as Map<string, string[]>) {
      const have = union.get(file) ?? [];
      const counts = (list: string[]) => list.reduce((map, name) => map.set(name, (map.get(name) ?? 0) + 1), new Map<string, number>());
      const mine = counts(have);
      for (const [name, n] of counts(names)) for (let i = mine.get(name) ?? 0; i < n; i++) have.push(name);
      union.set(file, have);
    }
  }
  const old = parseTestNames(readFileSync(listPath, 'utf8')) as Map<string, string[]>;
  const goneFiles = [...old.keys()].filter((file) => !union.has(file));
  if (goneFiles.length > 0 && !allowRemoved) {
    throw new Error(
      `no leg ran a test of ${goneFiles.join(', ')}: a file that failed to load records nothing. If the file is gone on purpose, write again with --allow-removed`,
    );
  }
  const kept = new Set(entries(listPath));
  writeFileSync(listPath, formatTestNames(union));
  const now = entries(listPath);
  const removed = [...kept].filter((key) => !now.has(key));
  const added = [...now].filter((key) => !kept.has(key));
  console.log(`wrote ${listPath}: ${now.size} tests, ${added.length} added, ${removed.length} removed`);
  if (removed.length > 0) console.log(`removed:\n${show(removed)}`);
}

const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const [listPath, ...legArgs] = args.filter((arg) => !arg.startsWith('--'));
const unknownFlags = [...flags].filter((flag) => flag !== '--write' && flag !== '--allow-removed');
if (!listPath || unknownFlags.length > 0)
  throw new Error('usage: check-test-names.ts [--write [--allow-removed]] <list> whole=<names file> oldest-node=<names file>');
if (flags.has('--write')) {
  writeUnion(listPath, legFiles(legArgs), flags.has('--allow-removed'));
  process.exit(0);
}
let wrong = false;
for (const problem of uncovered(listPath)) {
  console.error(problem);
  wrong = true;
}
for (const [leg, path] of legFiles(legArgs)) {
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
  console.error(
    `\nA test that stops running fails CI. A test added, renamed or deleted on purpose updates ${listPath} in the same commit, and the commit says why: ` +
      `the legs' files of a CI run make it anew (tsx scripts/check-test-names.ts --write ${listPath} ${legArgs.join(' ')}).`,
  );
  process.exit(1);
}
