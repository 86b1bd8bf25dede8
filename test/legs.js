// What each CI leg runs, and how a run is laid out, in one place (.ci/run picks
// the leg, scripts/test.js runs the phases, jest.config.js reads this).
//
// The newest Node LTS (24) runs the whole suite: every file on every backend, with
// the frameworks' newest majors (ai 7, @openai/agents-core 0.20, see jest.config.js).
// It is the Node most users run, and it runs this suite in about a third less CPU
// time than Node 20. The oldest Node we support (20, TEST_LEG=oldest-node) runs what
// a Node version can change, as the groups below: the framework integrations, which
// load their older majors there (ai 6, @openai/agents-core 0.14), on all three
// databases; the native addon, better-sqlite3, built for that Node, through the
// conformance suite on the SQLite openers and its own tests; the session viewer in
// Chromium; the CLI and the package's entry points; the demo and the docs' HTTP
// walkthrough; and the HTTP smoke test, whose throttle loads @nestjs/throttler. The type tests (test/types) are compiled by `npm test`'s tsc on both legs.
// scripts/check-test-names.ts then checks that the legs together ran every listed test.

/**
 * Whether a per-backend block named `[label]` runs when `words` (TEST_BACKENDS, or a group's testBackends;
 * comma-separated) choose backends: one of them, case aside, is a part of `[label]`. Unset, every backend.
 * `sqlite` is [SQLite] and [SQLite, own PrismaClient], `[sqlite]` the first alone, `galera` the cluster.
 */
export function chosenBackend(words, label) {
  const chosen = words
    ?.split(',')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);
  return !chosen?.length || chosen.some((word) => `[${label}]`.toLowerCase().includes(word));
}

/**
 * A group: the test files (paths from the repository's root; a folder ends in /), files of those folders it leaves out
 * (`except`), and, for some, the backends they run on (`testBackends`, see chosenBackend).
 */
export const OLDEST_NODE_LEG = [
  {
    name: 'frameworks, viewer, CLI, demo and HTTP smoke',
    paths: [
      'test/integrations/',
      'test/browser/',
      'test/internals/prisma-models-command.test.ts',
      'test/internals/package-exports.test.ts',
      'test/operations/demo.test.ts',
      'test/operations/demo-chat.test.ts',
      'test/http/http-walkthrough.test.ts',
      // @nestjs/throttler, CommonJS, requires the ESM-only Nest: Node's require(esm) differs between the two lines.
      'test/http/http-smoke.test.ts',
    ],
  },
  {
    name: 'better-sqlite3 through the conformance suite',
    paths: ['test/conformance/', 'test/internals/sqlite-adapter.test.ts'],
    // Its tests are of PostgreSQL's and MariaDB's READ COMMITTED: nothing runs on SQLite.
    except: ['test/conformance/fork-in-host-transaction.test.ts'],
    testBackends: 'sqlite',
  },
];

/**
 * Tests that exist in one shape per Node line (the OpenAI Agents SDK 0.20 on Node 24, 0.14 on Node 20): the
 * list holds both; each leg is checked for its own (scripts/check-test-names.ts). A name of the file matching a
 * pattern runs on that leg only; a pattern that matches no listed name fails the check.
 */
export const ONE_LEG_ONLY = {
  whole: [{ file: 'test/integrations/openai-agents/run-context-session.test.ts', name: /\(SDK 0\.15 and later\)/ }],
  'oldest-node': [{ file: 'test/integrations/openai-agents/run-context-session.test.ts', name: /\(SDK 0\.14, which passes no run context\)/ }],
};

/**
 * `npm run test:quick`, the inner loop (about 2 minutes): files that need no server and take seconds, and
 * the conformance suite on SQLite opened from its url.
 */
export const QUICK_LEG = [
  {
    name: 'unit tests',
    paths: [
      'test/internals/insert-runs.test.ts',
      'test/internals/langgraph-deltas.test.ts',
      'test/internals/migrations.test.ts',
      'test/internals/optional-driver.test.ts',
      'test/internals/query-plans.test.ts',
      'test/internals/replica-reads.test.ts',
      'test/internals/schema-drift.test.ts',
      'test/internals/sqlite-adapter.test.ts',
      'test/internals/store-health.test.ts',
      'test/internals/store-module.test.ts',
      'test/internals/tool-call-repair.test.ts',
      'test/integrations/langgraph/stock-serde.test.ts',
    ],
  },
  { name: 'SQLite conformance', paths: ['test/conformance/'], except: ['test/conformance/fork-in-host-transaction.test.ts'], testBackends: '[sqlite]' },
];

/**
 * Files that bound wall-clock time tightly (a refusal within 500 ms, a lock wait of 150 ms to 2 s, a
 * transaction's time per row, a failover's resume within 5 s, the event loop's longest wait within 50 ms,
 * 50 racing registrations on one Galera parent each given a pool connection within its 10 s wait, six erasures
 * sharing one SQLite file rebuild within three times one's time): they run
 * after the others, one at a time, on a quiet machine (scripts/test.js), since the suite's parallel phase loads both cores.
 */
export const ALONE = [
  'test/conformance/concurrency.test.ts',
  'test/http/http-hardening.test.ts',
  'test/internals/write-time.test.ts',
  'test/internals/sqlite-adapter.test.ts',
  'test/internals/redact.test.ts',
  'test/internals/migrations.test.ts',
  'test/operations/refused-connections.test.ts',
  'test/operations/pool-and-restart.test.ts',
  'test/operations/postgresql-failover.test.ts',
  'test/operations/sqlite-erasure.test.ts',
  'test/operations/sqlite-lock-waits.test.ts',
  'test/operations/sqlite-responsiveness.test.ts',
];

/**
 * The slowest files (the summary's list at the end of a run), started first so that none of them is
 * left running alone at the end of the parallel phase; the others follow, largest first.
 */
export const SLOWEST_FIRST = [
  'test/conformance/tenant-probes.test.ts',
  'test/conformance/big-batches.test.ts',
  'test/conformance/session-jsonl.test.ts',
  'test/operations/crash-safety.test.ts',
  'test/operations/release-check.test.ts',
  'test/operations/overlapping-retries.test.ts',
  'test/conformance/message-pages.test.ts',
  'test/conformance/tenant-stores.test.ts',
  'test/conformance/exact-values.test.ts',
  'test/conformance/message-store.test.ts',
  'test/conformance/chat-store.test.ts',
  'test/http/http-big-batches.test.ts',
  'test/operations/bench-quick.test.ts',
  'test/conformance/transcript-pruning.test.ts',
  'test/internals/subtree-scale.test.ts',
];
