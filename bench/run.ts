// npm run bench [-- --quick]: the benchmark of issue #6. Starts a throwaway
// PostgreSQL and MariaDB (SQLite needs none), runs every workload on every
// target per database, then the rows of a Galera cluster and of a hot standby
// on servers of their own (issue #16), prints the tables and writes them with
// their versions to bench/results/latest.md and latest.json, with its charts
// (ratios.svg, turn.svg; quick*.tmp for --quick). Exits non-zero when any target failed.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLUSTER_LABELS, openGalera, openReplication, type Cluster } from './clusters.js';
import { ratioChart, turnChart } from './charts.js';
import { parseArgs, USAGE, type BenchOptions } from './config.js';
import { LABELS, openDatabase, type BenchDatabase } from './databases.js';
import { runGaleraSuite } from './galera-suite.js';
import { runReplicaSuite } from './replica-suite.js';
import { buildReport, renderMarkdown, type Skipped } from './report.js';
import { runSuite, type SuiteResult } from './suite.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Databases started or starting and not closed yet: a signal stops their servers, even one still starting. */
const open = new Set<Promise<{ close(): Promise<void> } | undefined>>();
let stopping = false;

/** Stops the servers (by pid), then exits; no database is opened once it has begun. */
function shutdown(code: number, reason: string): void {
  if (stopping) return;
  stopping = true;
  log(`\n${reason}: stopping the benchmark's servers`);
  void Promise.allSettled([...open].map(async (database) => (await database)?.close())).finally(() => process.exit(code));
}

// `on`, not `once`: tsx relays the signal it gets too, and a second one must not kill the process mid-shutdown.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => shutdown(130, signal));

/** Errors nobody caught (a pool's error event, say): the run goes on, and fails at the end. */
const uncaught: string[] = [];
process.on('uncaughtException', (error) => {
  if (stopping) return; // a pool whose server is being stopped
  log(`uncaught exception: ${error.stack ?? String(error)}`);
  uncaught.push(`uncaught exception: ${error.message}`);
});

/** A setup of several servers, started, and the run of its rows. */
interface OpenCluster {
  servers: { label: string; version: string; close(): Promise<void> };
  run(): Promise<SuiteResult>;
}

function openCluster(cluster: Cluster, { sizes }: BenchOptions, cellTimeoutMs: number): Promise<OpenCluster | undefined> {
  if (cluster === 'galera') return openGalera().then((servers) => servers && { servers, run: () => runGaleraSuite(servers, sizes, cellTimeoutMs, log) });
  return openReplication().then((servers) => servers && { servers, run: () => runReplicaSuite(servers, sizes, cellTimeoutMs, log) });
}

const MISSING: Record<Cluster, string> = {
  galera: 'Galera binaries are missing (apt-get install mariadb-server galera-4 rsync)',
  replica: 'PostgreSQL binaries are missing (apt-get install postgresql)',
};

async function main(options: BenchOptions): Promise<number> {
  const started = performance.now();
  const suites: SuiteResult[] = [];
  const skipped: Skipped[] = [];
  const failures: string[] = [];
  const cellTimeoutMs = options.quick ? 60_000 : 300_000;
  for (const engine of options.engines) {
    if (stopping) break;
    const opening = openDatabase(engine);
    open.add(opening);
    let database: BenchDatabase | undefined;
    try {
      database = await opening;
    } catch (error) {
      failures.push(`${LABELS[engine]}: the server did not start: ${(error as Error).message}`);
      continue;
    }
    if (!database) {
      const reason =
        engine === 'mysql' ? 'MariaDB binaries are missing (apt-get install mariadb-server)' : 'PostgreSQL binaries are missing (apt-get install postgresql)';
      skipped.push({ label: LABELS[engine], reason });
      log(`${LABELS[engine]}: SKIPPED, ${reason}`);
      continue;
    }
    try {
      log(`${database.label}: ${database.version}`);
      suites.push(await runSuite(database, options.sizes, cellTimeoutMs, log));
    } finally {
      await database.close();
      open.delete(opening);
    }
  }

  for (const cluster of options.clusters) {
    if (stopping) break;
    const opening = openCluster(cluster, options, cellTimeoutMs);
    // What a signal stops: the servers, once started (a start that failed stopped its own).
    const servers = opening.then(
      (opened) => opened?.servers,
      () => undefined,
    );
    open.add(servers);
    let opened: OpenCluster | undefined;
    try {
      opened = await opening;
    } catch (error) {
      failures.push(`${CLUSTER_LABELS[cluster]}: the servers did not start: ${(error as Error).message}`);
      continue;
    }
    if (!opened) {
      skipped.push({ label: CLUSTER_LABELS[cluster], reason: MISSING[cluster] });
      log(`${CLUSTER_LABELS[cluster]}: SKIPPED, ${MISSING[cluster]}`);
      continue;
    }
    try {
      log(`${opened.servers.label}: ${opened.servers.version}`);
      suites.push(await opened.run());
    } finally {
      await opened.servers.close();
      open.delete(servers);
    }
  }

  failures.push(...uncaught);
  const report = buildReport(suites, { quick: options.quick, sizes: options.sizes, seconds: (performance.now() - started) / 1000, skipped, failures });
  const markdown = renderMarkdown(report);
  process.stdout.write(`${markdown}\n`);
  mkdirSync(options.outDir, { recursive: true });
  const base = options.quick ? 'quick' : 'latest';
  const suffix = options.quick ? '.tmp' : '';
  writeFileSync(join(options.outDir, `${base}.md${suffix}`), markdown);
  writeFileSync(join(options.outDir, `${base}.json${suffix}`), `${JSON.stringify(report, null, 2)}\n`);
  const charts = { ratios: ratioChart(report), turn: turnChart(report) };
  for (const [name, chart] of Object.entries(charts)) writeFileSync(join(options.outDir, `${options.quick ? 'quick-' : ''}${name}.svg${suffix}`), chart);
  log(`written to ${join(options.outDir, `${base}.md${suffix}`)}, ${base}.json${suffix} and the charts (${Object.keys(charts).join(', ')}).svg${suffix}`);
  if (report.errors.length > 0) log(`\n${report.errors.length} failure(s):\n${report.errors.map((error) => `  ${error}`).join('\n')}`);
  return report.errors.length > 0 ? 1 : 0;
}

if (process.argv.includes('--help')) {
  log(USAGE);
  process.exit(0);
}
let options: BenchOptions;
try {
  options = parseArgs(process.argv.slice(2), join(import.meta.dirname, 'results'));
} catch (error) {
  log((error as Error).message);
  process.exit(2);
}
main(options).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
