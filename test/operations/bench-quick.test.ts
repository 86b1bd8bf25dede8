// The benchmark harness end to end: `npm run bench -- --quick` (its entry,
// through tsx) starts its own servers, runs every workload on every target and
// exits 0 with a table row per workload for each database. Speed is not checked.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasMariaDbBinaries, hasPostgresBinaries } from '../support/test-servers.js';
import { ROOT } from '../support/processes.js';

const TIME_LIMIT_MS = 150_000;

// Every write row but these is run by every writer; every read row by the store and the raw driver.
const WRITE_ROWS = ['sequential', 'sequentialScoped', 'firstAppend', 'batch', 'writersThreads', 'writersOneThread'];
const STORE_AND_RAW_WRITES = ['sequentialScoped', 'firstAppend'];
const READ_ROWS = [
  'history',
  'historyScoped',
  'compactedSmall',
  'compactedLarge',
  'compactedScoped',
  'countSmall',
  'countLarge',
  'countScoped',
  'listFirst',
  'listDeep',
  'delete',
  'deleteStatements',
  'firstAppendStatements',
];
/** The prune's rows, after the reads: its time and the thread's storage before and after, by the store both ways and the raw driver. */
const PRUNE_ROWS = ['prune', 'pruneTextBefore', 'pruneTextAfter', 'pruneDatabaseBefore', 'pruneDatabaseAfter'];
/** The forks' rows, after the prune's: a compacted thread and one of its effective history's length, by the store both ways and the raw driver. */
const FORK_ROWS = ['forkCompacted', 'forkShort'];
const SCOPED_ROWS = ['sequentialScoped', 'historyScoped', 'compactedScoped', 'countScoped'];
/** LangGraph's step, after the sequential rows: the store's checkpointer everywhere, LangGraph's own saver where it has one. */
const LANGGRAPH_ROW = 'langgraphStep';
/** An agent turn, first: its time and its statements, by the store three ways, the raw minimum and the peers. */
const TURN_ROWS = ['turn', 'turnStatements'];
const ROWS = [...TURN_ROWS, ...WRITE_ROWS.slice(0, 2), LANGGRAPH_ROW, ...WRITE_ROWS.slice(2), ...READ_ROWS, ...PRUNE_ROWS, ...FORK_ROWS];
/** Statements of a turn the store sends beyond the raw minimum's: its header update (MariaDB's UPDATE returns no rows: see docs/performance.md). */
const EXTRA_STATEMENTS: Record<string, number> = { SQLite: 1, PostgreSQL: 1, MariaDB: 4 };
/** The section of the reads a hot standby can serve: the store with it and without it, and the raw driver on the standby. */
const REPLICA = 'PostgreSQL, primary and hot standby';
const REPLICA_ROWS = ['replicaList', 'replicaExport', 'replicaPage'];

type Cell = { value?: number; error?: string };
interface Report {
  databases: {
    label: string;
    rows: {
      key: string;
      label: string;
      unit: string;
      cells: Record<string, Cell>;
      scopedRatio?: number;
      ownClientRatio?: number;
      inTransactionRatio?: number;
      inTransactionUrlRatio?: number;
      callUrlRatio?: number;
      langgraphRatio?: number;
      replicaRatio?: number;
      historyAloneRatio?: number;
    }[];
    floor: { key: string; ratio: number }[];
  }[];
  skipped: { label: string }[];
  errors: string[];
}

function runQuick(outDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Without jest's NODE_OPTIONS (--experimental-vm-modules): the harness runs as `npm run bench` would.
    const env = { ...process.env, NODE_OPTIONS: '' };
    // A process group of its own: tsx runs the harness in a child process, which a signal must reach too.
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['--tsconfig', 'tsconfig.json', 'bench/run.ts', '--quick', `--out=${outDir}`], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    // Past the time limit: the harness stops its servers on SIGTERM.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), TIME_LIMIT_MS - 10_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test(
  'npm run bench -- --quick exits 0 with every workload row for every database',
  async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'agent-store-bench-quick-'));
    try {
      const { code, stdout, stderr } = await runQuick(outDir);
      if (code !== 0) throw new Error(`the harness exited with ${code}:\n${stderr.slice(-4000)}`);

      const expected = [
        'SQLite',
        ...(hasPostgresBinaries() ? ['PostgreSQL'] : []),
        ...(hasMariaDbBinaries() ? ['MariaDB'] : []),
        ...(hasPostgresBinaries() ? [REPLICA] : []),
      ];
      const report = JSON.parse(readFileSync(join(outDir, 'quick.json.tmp'), 'utf8')) as Report;
      expect(report.errors).toEqual([]);
      expect({ databases: report.databases.map((database) => database.label), skipped: report.skipped }).toEqual({ databases: expected, skipped: [] });
      expect(stdout).toBe(`${readFileSync(join(outDir, 'quick.md.tmp'), 'utf8')}\n`);

      for (const database of report.databases.filter((database) => database.label !== REPLICA)) {
        const rows = new Map(database.rows.map((row) => [row.key, row]));
        expect([...rows.keys()]).toEqual(ROWS);
        const peers = database.label === 'MariaDB' ? [] : ['mastra'];
        for (const key of WRITE_ROWS) {
          const targets = STORE_AND_RAW_WRITES.includes(key) ? ['ours', 'raw', 'rawPlain'] : ['ours', 'raw', 'rawPlain', 'prismaCreate', 'prismaTx', ...peers];
          for (const target of targets) {
            expect({ database: database.label, key, target, value: rows.get(key)!.cells[target]?.value }).toEqual(
              expect.objectContaining({ value: expect.any(Number) }),
            );
          }
        }
        // The turn on every system that runs on the database; in statements, the store within EXTRA_STATEMENTS of the raw minimum.
        for (const key of TURN_ROWS) {
          for (const target of ['ours', 'oursClient', 'oursClientTx', 'raw', 'langgraphOurs', ...(peers.length > 0 ? ['mastra', 'langgraph'] : [])]) {
            expect({ database: database.label, key, target, value: rows.get(key)!.cells[target]?.value }).toEqual(
              expect.objectContaining({ value: expect.any(Number) }),
            );
          }
        }
        const sent = rows.get('turnStatements')!.cells;
        expect({ database: database.label, ours: sent.ours.value! - sent.raw.value! <= EXTRA_STATEMENTS[database.label] }).toEqual({
          database: database.label,
          ours: true,
        });
        const langgraph = rows.get(LANGGRAPH_ROW)!;
        expect({
          database: database.label,
          ours: langgraph.cells.langgraphOurs?.value,
          official: langgraph.cells.langgraph?.value,
          ratio: langgraph.langgraphRatio,
        }).toEqual({
          database: database.label,
          ours: expect.any(Number),
          official: peers.length > 0 ? expect.any(Number) : undefined,
          ratio: peers.length > 0 ? expect.any(Number) : undefined,
        });
        for (const key of [...READ_ROWS, ...PRUNE_ROWS, ...FORK_ROWS]) {
          for (const target of ['ours', 'raw']) {
            expect({ database: database.label, key, target, value: rows.get(key)!.cells[target]?.value }).toEqual(
              expect.objectContaining({ value: expect.any(Number) }),
            );
          }
        }
        // The store on the app's own client runs every row the store runs, and is compared with the store on its url;
        // in the app's transaction, every write row but the scoped one, compared with Prisma's interactive tx where it has one.
        for (const row of database.rows.filter((row) => row.key !== LANGGRAPH_ROW)) {
          const { value } = row.cells.oursClient ?? {};
          const counted = row.unit === 'statements' || row.unit === 'bytes';
          const ratio = counted ? 'none' : row.ownClientRatio;
          expect({ database: database.label, key: row.key, value, ratio }).toEqual({
            database: database.label,
            key: row.key,
            value: expect.any(Number),
            ratio: counted ? 'none' : expect.any(Number),
          });
        }
        for (const key of WRITE_ROWS.filter((key) => key !== 'sequentialScoped')) {
          const row = rows.get(key)!;
          const inTransaction = { value: row.cells.oursClientTx?.value, ratio: row.inTransactionRatio };
          expect({ database: database.label, key, ...inTransaction }).toEqual({
            database: database.label,
            key,
            value: expect.any(Number),
            ratio: row.cells.prismaTx ? expect.any(Number) : undefined,
          });
          expect({ database: database.label, key, ratio: row.inTransactionUrlRatio }).toEqual({ database: database.label, key, ratio: expect.any(Number) });
          // The store's call alone, on its own clock: every such row but the concurrent ones, whose calls overlap.
          const concurrent = key.startsWith('writers');
          const call = { value: row.cells.oursClientTxCall?.value, ratio: row.callUrlRatio };
          expect({ database: database.label, key, ...call }).toEqual({
            database: database.label,
            key,
            value: concurrent ? undefined : expect.any(Number),
            ratio: concurrent ? undefined : expect.any(Number),
          });
        }
        // The tenant-scoped rows are compared with the unscoped store, the write rows with the plain INSERT.
        for (const key of SCOPED_ROWS)
          expect({ database: database.label, key, scopedRatio: rows.get(key)!.scopedRatio }).toEqual({
            database: database.label,
            key,
            scopedRatio: expect.any(Number),
          });
        expect(database.floor.map((floor) => floor.key)).toEqual(WRITE_ROWS);
        // Pruning leaves less than it found, and the store leaves what the raw driver's one transaction leaves.
        const bytes = (key: string, target: string) => rows.get(key)!.cells[target]?.value;
        for (const [before, after] of [
          ['pruneTextBefore', 'pruneTextAfter'],
          ['pruneDatabaseBefore', 'pruneDatabaseAfter'],
        ]) {
          expect({ database: database.label, key: after, less: bytes(after, 'ours')! < bytes(before, 'ours')! }).toEqual({
            database: database.label,
            key: after,
            less: true,
          });
        }
        expect({ database: database.label, ours: bytes('pruneTextAfter', 'ours') }).toEqual({ database: database.label, ours: bytes('pruneTextAfter', 'raw') });
        // The fork of the compacted thread is compared with the fork of the short one.
        expect({ database: database.label, ratio: rows.get('forkCompacted')!.historyAloneRatio }).toEqual({
          database: database.label,
          ratio: expect.any(Number),
        });
      }
      const replica = report.databases.find((database) => database.label === REPLICA);
      if (replica) {
        expect(replica.rows.map((row) => row.key)).toEqual(REPLICA_ROWS);
        for (const row of replica.rows) {
          const values = Object.fromEntries(['ours', 'oursReplica', 'raw'].map((target) => [target, row.cells[target]?.value]));
          expect({ key: row.key, ...values, ratio: row.replicaRatio }).toEqual({
            key: row.key,
            ours: expect.any(Number),
            oursReplica: expect.any(Number),
            raw: expect.any(Number),
            ratio: expect.any(Number),
          });
        }
      }
      // The charts: every database's ratios, and the turn's round trips on each.
      const ratios = readFileSync(join(outDir, 'quick-ratios.svg.tmp'), 'utf8');
      const turn = readFileSync(join(outDir, 'quick-turn.svg.tmp'), 'utf8');
      for (const chart of [ratios, turn]) expect(chart).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^]*<\/svg>\n$/);
      for (const label of expected.filter((label) => label !== REPLICA)) {
        expect({ label, ratios: ratios.includes(`>${label}</text>`), turn: turn.includes(`>${label}</text>`) }).toEqual({ label, ratios: true, turn: true });
      }
      expect(turn).toContain('raw minimum + 1');
      for (const database of report.databases) {
        // The printed table has a line per workload.
        const section = stdout.slice(stdout.indexOf(`## ${database.label}\n`));
        for (const row of database.rows) expect(section).toContain(`| ${row.label.replaceAll('|', '\\|')} |`);
      }
      // Tables as narrow as the docs print them: eight columns at most.
      const widths = stdout
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .map((line) => line.replaceAll('\\|', '').split('|').length - 2);
      expect(widths.filter((width) => width > 8)).toEqual([]);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  },
  TIME_LIMIT_MS,
);
