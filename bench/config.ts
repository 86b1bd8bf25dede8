// The benchmark's sizes and command line. The default run takes about ten
// minutes on the project's 2-core machines; --quick only checks the harness.
import type { Cluster } from './clusters.js';
import type { Engine } from './targets/target.js';

export interface Sizes {
  /**
   * Each write workload runs this many rounds, the targets taking turns in an order
   * reversed every round, and reports the median round: drift of the machine during
   * the run then hits every target alike. The sizes below are per round.
   */
  rounds: number;
  /** Every timed write loop below makes at least its number of calls, and goes on until this long has passed (LangGraph's steps excepted). */
  writeMinMs: number;
  /** Appends to one thread, one message per call. */
  sequential: number;
  /** First appends: each call appends the first message of a thread that does not exist yet. */
  newThreads: number;
  /** appendMany calls of `batchSize` messages each. */
  batches: number;
  batchSize: number;
  /** Concurrent writers, and the appends each makes, in both concurrency workloads. */
  writers: number;
  appendsPerWriter: number;
  /** LangGraph steps on one thread: each stores the whole message list, so their cost grows with it (a fixed count, not a time). */
  langgraphAppends: number;
  /** Agent turns timed per target and round (and on until writeMinMs of them have passed): each the third turn of a conversation of its own. */
  turns: number;
  /** Untimed calls before each timed write loop. */
  warmup: number;
  /** The long thread that getHistory reads whole. */
  historyMessages: number;
  /** The two transcripts that are compacted to `effectiveMessages`. */
  smallTranscript: number;
  largeTranscript: number;
  effectiveMessages: number;
  /** pruneTranscript: a thread of this many messages, compacted `pruneCompactions` times down to `effectiveMessages`. */
  pruneMessages: number;
  pruneCompactions: number;
  /**
   * SessionStore.fork: a thread of this many messages compacted `pruneCompactions` times down to
   * `effectiveMessages`, and a thread of `effectiveMessages` messages, each forked `forks` times.
   */
  forkMessages: number;
  forks: number;
  /** deleteTranscript: sessions per tree, messages per session, trees deleted and timed per target (one more counts statements). */
  treeSessions: number;
  treeMessages: number;
  treeRuns: number;
  /** SessionStore.list: sessions stored, page size, and how many sessions the deep page skips. */
  sessions: number;
  pageSize: number;
  deepOffset: number;
  /** Each read is repeated at least this often and for at least this long, unless it has taken readMaxMs; the median is reported. */
  readRepeats: number;
  readMinMs: number;
  readMaxMs: number;
}

const DEFAULT: Sizes = {
  rounds: 3,
  writeMinMs: 400,
  sequential: 500,
  newThreads: 500,
  batches: 50,
  batchSize: 10,
  writers: 8,
  appendsPerWriter: 60,
  langgraphAppends: 300,
  turns: 100,
  warmup: 50,
  historyMessages: 10_000,
  smallTranscript: 1_000,
  largeTranscript: 100_000,
  effectiveMessages: 50,
  pruneMessages: 20_000,
  pruneCompactions: 20,
  forkMessages: 100_000,
  forks: 20,
  treeSessions: 1_000,
  treeMessages: 10,
  treeRuns: 5,
  sessions: 100_000,
  pageSize: 50,
  deepOffset: 90_000,
  readRepeats: 7,
  readMinMs: 500,
  readMaxMs: 5_000,
};

const QUICK: Sizes = {
  rounds: 1,
  writeMinMs: 0,
  sequential: 20,
  newThreads: 20,
  batches: 3,
  batchSize: 10,
  writers: 8,
  appendsPerWriter: 3,
  langgraphAppends: 10,
  turns: 3,
  warmup: 2,
  historyMessages: 300,
  smallTranscript: 100,
  largeTranscript: 1_000,
  effectiveMessages: 50,
  pruneMessages: 300,
  pruneCompactions: 3,
  forkMessages: 1_000,
  forks: 3,
  treeSessions: 20,
  treeMessages: 2,
  treeRuns: 1,
  sessions: 1_000,
  pageSize: 20,
  deepOffset: 500,
  readRepeats: 1,
  readMinMs: 0,
  readMaxMs: 0,
};

export interface BenchOptions {
  quick: boolean;
  sizes: Sizes;
  engines: Engine[];
  /** The setups of several servers, after the databases. */
  clusters: Cluster[];
  /** Where latest.md and latest.json (quick.*.tmp for --quick) are written. */
  outDir: string;
}

const ENGINE_NAMES: Record<string, Engine> = { sqlite: 'sqlite', postgresql: 'postgresql', postgres: 'postgresql', mariadb: 'mysql', mysql: 'mysql' };
const CLUSTER_NAMES: Record<string, Cluster> = { galera: 'galera', replica: 'replica' };

export const USAGE = `npm run bench [-- --quick] [--databases=sqlite,postgresql,mariadb,galera,replica] [--out=DIR] [--SIZE=N …]
  --quick       a smoke run of a few seconds per database (checks the harness, not the speed)
  --databases   which databases to run (default: all three, then the Galera cluster's rows (galera) and the hot standby's (replica);
                MariaDB and Galera only where their binaries exist; --quick leaves out galera, whose three nodes take half a minute to start and stop)
  --out         where the results are written (default bench/results)
  --SIZE=N      override one size, e.g. --sequential=5000 (sizes: ${Object.keys(DEFAULT).join(', ')})`;

export function parseArgs(argv: string[], defaultOutDir: string): BenchOptions {
  const quick = argv.includes('--quick');
  const sizes = { ...(quick ? QUICK : DEFAULT) };
  let engines: Engine[] = ['sqlite', 'postgresql', 'mysql'];
  let clusters: Cluster[] = quick ? ['replica'] : ['galera', 'replica'];
  let outDir = defaultOutDir;
  for (const arg of argv) {
    if (arg === '--quick') continue;
    const match = /^--([a-zA-Z]+)=(.+)$/.exec(arg);
    if (!match) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    const [, key, value] = match;
    if (key === 'databases') {
      const names = value.split(',').map((name) => name.trim().toLowerCase());
      for (const name of names)
        if (!ENGINE_NAMES[name] && !CLUSTER_NAMES[name]) throw new Error(`unknown database ${name}: say sqlite, postgresql, mariadb, galera or replica`);
      engines = names.flatMap((name) => ENGINE_NAMES[name] ?? []);
      clusters = names.flatMap((name) => CLUSTER_NAMES[name] ?? []);
    } else if (key === 'out') {
      outDir = value;
    } else if (key in sizes) {
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${key} takes a whole number, not ${value}`);
      sizes[key as keyof Sizes] = n;
    } else {
      throw new Error(`unknown option --${key}\n${USAGE}`);
    }
  }
  if (sizes.smallTranscript <= sizes.effectiveMessages) throw new Error('smallTranscript must exceed effectiveMessages');
  if (sizes.pruneMessages <= sizes.effectiveMessages + sizes.pruneCompactions)
    throw new Error('pruneMessages must exceed effectiveMessages + pruneCompactions');
  if (sizes.forkMessages <= sizes.effectiveMessages + sizes.pruneCompactions) throw new Error('forkMessages must exceed effectiveMessages + pruneCompactions');
  if (sizes.forks < 1) throw new Error('forks must be at least 1');
  if (sizes.pruneCompactions < 1) throw new Error('pruneCompactions must be at least 1');
  if (sizes.rounds < 1) throw new Error('rounds must be at least 1');
  return { quick, sizes, engines: [...new Set(engines)], clusters: [...new Set(clusters)], outDir };
}
