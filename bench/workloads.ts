// The workloads, one table row each (deleteTranscript gives two: time and
// statements; the sequential append two: unscoped and tenant-scoped; a fork
// two: of a compacted thread and of one as long as its effective history). Every
// workload checks what it measured: a write loop ends by counting the messages
// stored, a read checks the length of what came back.
// The tenant-scoped rows run the same work through the target's forTenant
// view, on threads created in the tenant, and name the unscoped row they are
// compared with.
import type { Sizes } from './config.js';
import { elapsedMs, median, medianMs } from './measure.js';
import { benchMessage } from './messages.js';
import type { Storage } from './seed.js';
import type { StatementCounter } from './statements.js';
import type { BenchMessage, Target, TargetKey } from './targets/target.js';
import { agentTurn, TURN_MESSAGES, TURNS_BEFORE } from './turn.js';

export type Unit = 'msg/s' | 'ms' | 'statements' | 'bytes';

export interface RowSpec {
  key: string;
  label: string;
  unit: Unit;
  /** A tenant-scoped row: the key of the unscoped row that the store's scoped result is compared with. */
  unscoped?: string;
  /** A row whose source holds a long transcript before its cut: the key of the row that does the same work on a source of its effective history alone. */
  historyAlone?: string;
}

/** The tenant of the tenant-scoped rows. */
export const TENANT = 'bench-tenant';

/** What the read workloads find in the seeded database. */
export interface ReadData {
  historyThread: string;
  smallThread: string;
  largeThread: string;
  sessionPrefix: string;
  /** Sessions of TENANT created by the store's scoped sessions.create: a long thread and one compacted like largeThread. */
  tenantHistoryThread: string;
  tenantCompactedThread: string;
  /** Seeds a fresh tree of sessions and returns its root. */
  seedTree(): Promise<string>;
  statements: StatementCounter;
}

/** What the prune workload finds: a database of the target's own, holding one long compacted thread. */
export interface PruneData {
  threadId: string;
  /** The thread's storage now (see Storage). */
  storage(): Promise<Storage>;
}

/** What the fork workload finds: a database holding both sources, which every target forks. */
export interface ForkData {
  /** forkMessages messages compacted down to effectiveMessages. */
  compactedThread: string;
  /** effectiveMessages messages, never compacted. */
  shortThread: string;
}

export interface RunContext {
  sizes: Sizes;
  /** Which target runs. */
  key: TargetKey;
  /** Write rounds use threads of their own. */
  round: number;
  /** The seeded database, for the read phase; in the others, only its statement counter. */
  data: ReadData;
  /** The prune phase's thread. */
  prune?: PruneData;
  /** The fork phase's sources. */
  fork?: ForkData;
}

export interface Workload {
  rows: RowSpec[];
  phase: 'write' | 'read' | 'prune' | 'fork';
  targets: TargetKey[];
  /** One value per row (undefined: the target has no such operation). Throws when the target stored or returned the wrong thing. */
  run(target: Target, context: RunContext): Promise<(number | undefined)[]>;
}

const WRITERS: TargetKey[] = ['ours', 'oursClient', 'oursClientTx', 'oursClientTxCall', 'raw', 'rawPlain', 'prismaCreate', 'prismaTx', 'mastra'];
/** The reads of the store (on its url and on the app's own client) and of the raw driver. */
const READERS: TargetKey[] = ['ours', 'oursClient', 'raw'];
/** The agent turn's: the store three ways, the raw minimum, and the peers. */
const TURNERS: TargetKey[] = ['ours', 'oursClient', 'oursClientTx', 'raw', 'mastra', 'langgraph', 'langgraphOurs'];
const PAGE_WALK = 500;
/** First appends counted one by one; the median is reported. */
const FIRST_APPEND_COUNTS = 3;

const fmt = (n: number) => n.toLocaleString('en-US');

function expectEqual(actual: number, expected: number, what: string): void {
  if (actual !== expected) throw new Error(`${what}: expected ${expected}, got ${actual}`);
}

async function expectStored(target: Target, threadId: string, expected: number): Promise<void> {
  expectEqual(await target.stored!(threadId), expected, `messages stored in ${threadId}`);
}

const messages = (from: number, count: number): BenchMessage[] => Array.from({ length: count }, (_, i) => benchMessage(from + i));

/** A thread for the untimed warm-up calls, another for the timed ones. */
async function threads(target: Target, name: string, count = 1): Promise<{ warm: string; timed: string[] }> {
  const warm = `${name}-warmup`;
  const timed = Array.from({ length: count }, (_, i) => (count === 1 ? name : `${name}-${i + 1}`));
  for (const id of [warm, ...timed]) await target.prepareThread?.(id);
  return { warm, timed };
}

/** Messages per second of one sequential loop of appends to one thread. */
async function sequentialRate(target: Target, name: string, { sizes }: RunContext): Promise<number> {
  const { warm, timed } = await threads(target, name);
  await appendLoop(target, warm, 1, sizes.warmup);
  const start = performance.now();
  const clock = clockOf(target);
  const calls = await loop(sizes.sequential, sizes.writeMinMs, start, (i) => target.append!(timed[0], benchMessage(i + 1)));
  const rate = calls / (clock.elapsed() / 1000);
  await expectStored(target, timed[0], calls);
  return rate;
}

async function appendLoop(target: Target, threadId: string, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await target.append!(threadId, benchMessage(i));
}

/**
 * Calls `step(0)`, `step(1)`, … at least `count` times, and on until `minMs` have passed
 * since `start` (so that a fast target is timed over more than a few milliseconds).
 * Returns how many calls it made.
 */
async function loop(count: number, minMs: number, start: number, step: (i: number) => Promise<unknown>): Promise<number> {
  let i = 0;
  while (i < count || performance.now() - start < minMs) await step(i++);
  return i;
}

/** Time from now on the target's own clock (see Target.clock), or the wall clock's. Loops run on the wall clock either way. */
function clockOf(target: Target): { elapsed(): number } {
  const now = target.clock ? () => target.clock!() : () => performance.now();
  const start = now();
  return { elapsed: () => now() - start };
}

/** Messages per second of concurrent loops, each making at least `count` calls; checks what each thread stored. Undefined for a target with a clock of its own. */
async function concurrentRate(target: Target, threadOf: (writer: number) => string, sizes: Sizes): Promise<number | undefined> {
  if (target.clock) return undefined;
  const start = performance.now();
  const calls = await Promise.all(
    Array.from({ length: sizes.writers }, (_, w) =>
      loop(sizes.appendsPerWriter, sizes.writeMinMs, start, (i) => target.append!(threadOf(w), benchMessage(i + 1))),
    ),
  );
  const rate = calls.reduce((sum, n) => sum + n, 0) / ((performance.now() - start) / 1000);
  const perThread = new Map<string, number>();
  calls.forEach((n, w) => perThread.set(threadOf(w), (perThread.get(threadOf(w)) ?? 0) + n));
  for (const [id, n] of perThread) await expectStored(target, id, n);
  return rate;
}

export const WORKLOADS: Workload[] = [
  {
    // Each timed turn is the third of a conversation of its own: two untimed turns first give it a history (and
    // create it). Its statements are counted on one more conversation's third turn, alone.
    rows: [
      { key: 'turn', label: 'agent turn: history loaded, user message, two tool steps, answer, header updated', unit: 'ms' },
      { key: 'turnStatements', label: 'agent turn, statements sent (on PostgreSQL each a round trip)', unit: 'statements' },
    ],
    phase: 'write',
    targets: TURNERS,
    async run(target, { sizes, round, data }) {
      const conversation = (i: number) => `turn-${round}-${i}`;
      const before = async (threadId: string) => {
        for (let n = 1; n <= TURNS_BEFORE; n++) await target.turn!(threadId, agentTurn(n));
      };
      const times: number[] = [];
      let spent = 0;
      for (let i = 0; times.length < sizes.turns || spent < sizes.writeMinMs; i++) {
        await before(conversation(i));
        const took = await elapsedMs(() => target.turn!(conversation(i), agentTurn(TURNS_BEFORE + 1)));
        times.push(took);
        spent += took;
      }
      const counted = conversation(times.length);
      await before(counted);
      const statements = await data.statements.count(() => target.turn!(counted, agentTurn(TURNS_BEFORE + 1)));
      for (let i = 0; i <= times.length; i++) await expectStored(target, conversation(i), (TURNS_BEFORE + 1) * TURN_MESSAGES);
      return [median(times), statements];
    },
  },
  {
    // A target that has a tenant's view runs both loops in its turn, back to back (which first alternates by round), so that
    // the scoped result is compared with an unscoped one measured moments apart: drift of the machine would swamp a 0.9x target.
    rows: [
      { key: 'sequential', label: 'append, sequential, one thread', unit: 'msg/s' },
      { key: 'sequentialScoped', label: 'append, sequential, one thread, tenant-scoped', unit: 'msg/s', unscoped: 'sequential' },
    ],
    phase: 'write',
    targets: WRITERS,
    async run(target, context) {
      const unscoped = () => sequentialRate(target, `sequential-${context.round}`, context);
      if (!target.forTenant) return [await unscoped(), undefined];
      const scoped = () => sequentialRate(target.forTenant!(TENANT), `sequential-scoped-${context.round}`, context);
      if (context.round % 2 === 0) return [await unscoped(), await scoped()];
      const scopedRate = await scoped();
      return [await unscoped(), scopedRate];
    },
  },
  {
    // A LangGraph step stores the whole message list (a new version of its channel), so a step costs more the longer
    // the thread: a fixed number of steps, the same for every saver, not a loop that goes on for a time.
    rows: [{ key: 'langgraphStep', label: 'LangGraph step on a growing thread: getTuple, then put', unit: 'msg/s' }],
    phase: 'write',
    targets: ['langgraph', 'langgraphOurs'],
    async run(target, { sizes, round }) {
      const warm = `langgraph-${round}-warmup`;
      const timed = `langgraph-${round}`;
      for (let i = 1; i <= Math.min(sizes.warmup, sizes.langgraphAppends); i++) await target.step!(warm, benchMessage(i));
      const start = performance.now();
      for (let i = 1; i <= sizes.langgraphAppends; i++) await target.step!(timed, benchMessage(i));
      const rate = sizes.langgraphAppends / ((performance.now() - start) / 1000);
      await expectStored(target, timed, sizes.langgraphAppends);
      return [rate];
    },
  },
  {
    // Every call creates its thread: a statement the first append wastes (an update of a row not there yet) shows here.
    rows: [{ key: 'firstAppend', label: 'append, first message of a new thread', unit: 'msg/s' }],
    phase: 'write',
    targets: ['ours', 'oursClient', 'oursClientTx', 'oursClientTxCall', 'raw', 'rawPlain'],
    async run(target, { sizes, round }) {
      for (let i = 1; i <= Math.min(sizes.warmup, sizes.newThreads); i++) await target.appendFirst!(`first-${round}-warmup-${i}`, benchMessage(1));
      const thread = (i: number) => `first-${round}-${i}`;
      const start = performance.now();
      const clock = clockOf(target);
      const calls = await loop(sizes.newThreads, sizes.writeMinMs, start, (i) => target.appendFirst!(thread(i), benchMessage(1)));
      const rate = calls / (clock.elapsed() / 1000);
      for (let i = 0; i < calls; i++) await expectStored(target, thread(i), 1);
      return [rate];
    },
  },
  {
    rows: [{ key: 'batch', label: 'appendMany, one thread', unit: 'msg/s' }],
    phase: 'write',
    targets: WRITERS,
    async run(target, { sizes, round }) {
      const { warm, timed } = await threads(target, `batch-${round}`);
      for (let b = 0; b < Math.ceil(sizes.warmup / sizes.batchSize); b++) await target.appendMany!(warm, messages(b * sizes.batchSize + 1, sizes.batchSize));
      const start = performance.now();
      const clock = clockOf(target);
      const calls = await loop(sizes.batches, sizes.writeMinMs, start, (b) => target.appendMany!(timed[0], messages(b * sizes.batchSize + 1, sizes.batchSize)));
      const rate = (calls * sizes.batchSize) / (clock.elapsed() / 1000);
      await expectStored(target, timed[0], calls * sizes.batchSize);
      return [rate];
    },
  },
  {
    rows: [{ key: 'writersThreads', label: 'append, concurrent writers, a thread each', unit: 'msg/s' }],
    phase: 'write',
    targets: WRITERS,
    async run(target, { sizes, round }) {
      const { warm, timed } = await threads(target, `writers-${round}`, sizes.writers);
      await appendLoop(target, warm, 1, sizes.warmup);
      return [await concurrentRate(target, (w) => timed[w], sizes)];
    },
  },
  {
    rows: [{ key: 'writersOneThread', label: 'append, concurrent writers, one shared thread', unit: 'msg/s' }],
    phase: 'write',
    targets: WRITERS,
    async run(target, { sizes, round }) {
      const { warm, timed } = await threads(target, `shared-${round}`);
      await appendLoop(target, warm, 1, sizes.warmup);
      return [await concurrentRate(target, () => timed[0], sizes)];
    },
  },
  {
    rows: [{ key: 'history', label: 'getHistory, long thread, whole', unit: 'ms' }],
    phase: 'read',
    targets: [...READERS, 'prismaCreate', 'mastra'],
    run: async (target, { sizes, data }) => [await timedRead(() => target.getHistory!(data.historyThread), sizes.historyMessages, sizes)],
  },
  {
    rows: [{ key: 'historyScoped', label: 'getHistory, long thread, whole, tenant-scoped', unit: 'ms', unscoped: 'history' }],
    phase: 'read',
    targets: READERS,
    async run(target, { sizes, data }) {
      const scoped = target.forTenant!(TENANT);
      return [await timedRead(() => scoped.getHistory!(data.tenantHistoryThread), sizes.historyMessages, sizes)];
    },
  },
  {
    rows: [{ key: 'compactedSmall', label: 'getHistory, compacted thread', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    run: async (target, { sizes, data }) => [await timedRead(() => target.getHistory!(data.smallThread), sizes.effectiveMessages, sizes)],
  },
  {
    rows: [{ key: 'compactedLarge', label: 'getHistory, compacted thread', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    run: async (target, { sizes, data }) => [await timedRead(() => target.getHistory!(data.largeThread), sizes.effectiveMessages, sizes)],
  },
  {
    rows: [{ key: 'compactedScoped', label: 'getHistory, compacted thread, tenant-scoped', unit: 'ms', unscoped: 'compactedLarge' }],
    phase: 'read',
    targets: READERS,
    async run(target, { sizes, data }) {
      const scoped = target.forTenant!(TENANT);
      return [await timedRead(() => scoped.getHistory!(data.tenantCompactedThread), sizes.effectiveMessages, sizes)];
    },
  },
  {
    rows: [{ key: 'countSmall', label: 'count, compacted thread', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    run: async (target, { sizes, data }) => [await timedCount(target, data.smallThread, sizes)],
  },
  {
    rows: [{ key: 'countLarge', label: 'count, compacted thread', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    run: async (target, { sizes, data }) => [await timedCount(target, data.largeThread, sizes)],
  },
  {
    rows: [{ key: 'countScoped', label: 'count, compacted thread, tenant-scoped', unit: 'ms', unscoped: 'countLarge' }],
    phase: 'read',
    targets: READERS,
    run: async (target, { sizes, data }) => [await timedCount(target.forTenant!(TENANT), data.tenantCompactedThread, sizes)],
  },
  {
    rows: [{ key: 'listFirst', label: 'SessionStore.list, first page', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    async run(target, { sizes, data }) {
      return [await timedPage(target, undefined, sizes, `${data.sessionPrefix}${String(sizes.sessions).padStart(6, '0')}`)];
    },
  },
  {
    rows: [{ key: 'listDeep', label: 'SessionStore.list, deep page, cursors followed', unit: 'ms' }],
    phase: 'read',
    targets: READERS,
    async run(target, { sizes, data }) {
      let cursor: unknown;
      for (let skipped = 0; skipped < sizes.deepOffset;) {
        const page = await target.listSessions!(Math.min(PAGE_WALK, sizes.deepOffset - skipped), cursor);
        if (page.sessions.length === 0 || page.next === null) throw new Error(`the session list ended after ${skipped} sessions`);
        skipped += page.sessions.length;
        cursor = page.next;
      }
      return [await timedPage(target, cursor, sizes, `${data.sessionPrefix}${String(sizes.sessions - sizes.deepOffset).padStart(6, '0')}`)];
    },
  },
  {
    rows: [
      { key: 'delete', label: 'deleteTranscript, tree of sessions', unit: 'ms' },
      { key: 'deleteStatements', label: 'deleteTranscript, statements sent, BEGIN and COMMIT included', unit: 'statements' },
    ],
    phase: 'read',
    targets: READERS,
    async run(target, { sizes, data }) {
      const deleteTree = async (during: (work: () => Promise<unknown>) => Promise<number>) => {
        const root = await data.seedTree();
        expectEqual(await target.count!(root), sizes.treeMessages, `messages of ${root} before the delete`);
        const result = await during(() => target.deleteTranscript!(root));
        expectEqual(await target.count!(root), 0, `messages of ${root} after the delete`);
        return result;
      };
      const times: number[] = [];
      for (let run = 0; run < Math.max(1, sizes.treeRuns); run++) times.push(await deleteTree(elapsedMs));
      // Counted on a tree of its own, so that counting (MariaDB's query log) costs the timed runs nothing.
      const statements = await deleteTree((work) => data.statements.count(work));
      return [median(times), statements];
    },
  },
  {
    // Last of the reads: the threads it creates are the newest sessions, which the session list would show first.
    rows: [{ key: 'firstAppendStatements', label: 'append, first message of a new thread, statements sent, BEGIN and COMMIT included', unit: 'statements' }],
    phase: 'read',
    targets: READERS,
    async run(target, { key, data }) {
      // One untimed first append first: a connection the pool opens then is not counted against the append.
      await target.appendFirst!(`first-${key}-warmup`, benchMessage(1));
      const counts: number[] = [];
      for (let i = 1; i <= FIRST_APPEND_COUNTS; i++) {
        counts.push(await data.statements.count(() => target.appendFirst!(`first-${key}-${i}`, benchMessage(1))));
        await expectStored(target, `first-${key}-${i}`, 1);
      }
      return [median(counts)];
    },
  },
  {
    // A prune runs once: its time is one call's. Each target prunes on a database of its own that holds the
    // long thread only, so that the database's size is the thread's (see Storage for what each figure is).
    rows: [
      { key: 'prune', label: 'MessageStore.pruneTranscript, long compacted thread, one call', unit: 'ms' },
      { key: 'pruneTextBefore', label: "the thread's stored text, before the prune", unit: 'bytes' },
      { key: 'pruneTextAfter', label: "the thread's stored text, after the prune", unit: 'bytes' },
      { key: 'pruneDatabaseBefore', label: "the database's size, rebuilt, before the prune", unit: 'bytes' },
      { key: 'pruneDatabaseAfter', label: "the database's size, rebuilt, after the prune", unit: 'bytes' },
    ],
    phase: 'prune',
    targets: READERS,
    async run(target, { sizes, prune }) {
      const { threadId, storage } = prune!;
      const history = JSON.stringify(await target.getHistory!(threadId));
      const before = await storage();
      let report = { messages: 0, boundaries: 0 };
      const took = await elapsedMs(async () => (report = await target.pruneTranscript!(threadId)));
      expectEqual(report.messages, sizes.pruneMessages - sizes.effectiveMessages + 1, 'messages pruned');
      expectEqual(report.boundaries, sizes.pruneCompactions - 1, 'boundaries pruned');
      if (JSON.stringify(await target.getHistory!(threadId)) !== history) throw new Error(`the history of ${threadId} changed in the prune`);
      const after = await storage();
      return [took, before.text, after.text, before.database, after.database];
    },
  },
  {
    // The forks of the two sources alternate (which first, by turns), so that drift of the machine hits both rows alike;
    // each row is the median of `forks` forks, after an untimed one of each whose history is checked to be its source's.
    rows: [
      { key: 'forkCompacted', label: 'SessionStore.fork, compacted thread', unit: 'ms', historyAlone: 'forkShort' },
      { key: 'forkShort', label: 'SessionStore.fork, thread of as many messages, not compacted', unit: 'ms' },
    ],
    phase: 'fork',
    targets: READERS,
    async run(target, { sizes, key, fork }) {
      const sources = [fork!.compactedThread, fork!.shortThread];
      const forkId = (source: string, i: number) => `${source}-${key}-${i}`;
      for (const source of sources) {
        await target.fork!(source, forkId(source, 0));
        const [expected, copied] = [await target.getHistory!(source), await target.getHistory!(forkId(source, 0))];
        if (JSON.stringify(copied) !== JSON.stringify(expected)) throw new Error(`the fork of ${source} does not hold its history`);
      }
      const times = new Map<string, number[]>(sources.map((source) => [source, []]));
      for (let i = 1; i <= sizes.forks; i++) {
        for (const source of i % 2 === 1 ? sources : [...sources].reverse())
          times.get(source)!.push(await elapsedMs(() => target.fork!(source, forkId(source, i))));
      }
      for (const source of sources)
        expectEqual(await target.count!(forkId(source, sizes.forks)), sizes.effectiveMessages, `count of the last fork of ${source}`);
      return sources.map((source) => median(times.get(source)!));
    },
  },
];

/** The median time of `read`, whose first result `check` checks. */
export async function timed<T>(read: () => Promise<T>, check: (result: T) => void, sizes: Sizes): Promise<number> {
  let result: T | undefined;
  const first = await elapsedMs(async () => (result = await read()));
  check(result as T);
  return medianMs(read, first, { repeats: sizes.readRepeats, minMs: sizes.readMinMs, maxMs: sizes.readMaxMs });
}

const timedRead = (read: () => Promise<unknown[]>, expected: number, sizes: Sizes) =>
  timed(read, (messages) => expectEqual(messages.length, expected, 'messages read'), sizes);

const timedCount = (target: Target, threadId: string, sizes: Sizes) =>
  timed(
    () => target.count!(threadId),
    (count) => expectEqual(count, sizes.effectiveMessages, `count of ${threadId}`),
    sizes,
  );

/** Times one page after `cursor`, checked to be full and to start with `firstId`. */
function timedPage(target: Target, cursor: unknown, sizes: Sizes, firstId: string): Promise<number> {
  return timed(
    () => target.listSessions!(sizes.pageSize, cursor),
    (page) => {
      expectEqual(page.sessions.length, sizes.pageSize, 'sessions on the page');
      const first = (page.sessions[0] as { id: string }).id;
      if (first !== firstId) throw new Error(`the page starts with ${first}, not ${firstId}`);
    },
    sizes,
  );
}

/** Where the replica row's transcript page starts: after this many messages of the long thread. */
export const pageAfter = (sizes: Sizes) => Math.max(0, Math.min(500, sizes.historyMessages - sizes.pageSize));

/** Row labels with the sizes of this run. */
export function sizedLabel(key: string, label: string, sizes: Sizes): string {
  const compacted = (transcript: number) => `${fmt(transcript)}-message transcript → ${sizes.effectiveMessages}`;
  const detail: Record<string, string> = {
    sequential: `≥ ${fmt(sizes.sequential)} × ~200 B`,
    langgraphStep: `${fmt(sizes.langgraphAppends)} steps of a message each, from an empty thread`,
    turn: `the median of ≥ ${fmt(sizes.turns)} turns, each the third of a conversation, ${TURN_MESSAGES} messages a turn`,
    turnStatements: 'one turn, the third of a conversation',
    sequentialScoped: `≥ ${fmt(sizes.sequential)} × ~200 B`,
    firstAppend: `≥ ${fmt(sizes.newThreads)} new threads, a message each`,
    batch: `≥ ${fmt(sizes.batches)} batches of ${sizes.batchSize}`,
    writersThreads: `${sizes.writers} writers × ≥ ${fmt(sizes.appendsPerWriter)}`,
    writersOneThread: `${sizes.writers} writers × ≥ ${fmt(sizes.appendsPerWriter)}`,
    history: `${fmt(sizes.historyMessages)} messages`,
    historyScoped: `${fmt(sizes.historyMessages)} messages`,
    compactedSmall: compacted(sizes.smallTranscript),
    compactedLarge: compacted(sizes.largeTranscript),
    countSmall: compacted(sizes.smallTranscript),
    countLarge: compacted(sizes.largeTranscript),
    compactedScoped: compacted(sizes.largeTranscript),
    countScoped: compacted(sizes.largeTranscript),
    listFirst: `${fmt(sizes.pageSize)} of ${fmt(sizes.sessions)} sessions`,
    listDeep: `${fmt(sizes.pageSize)} after ${fmt(sizes.deepOffset)} of ${fmt(sizes.sessions)}`,
    delete: `${fmt(sizes.treeSessions)} sessions × ${sizes.treeMessages} messages`,
    deleteStatements: `${fmt(sizes.treeSessions)} sessions`,
    firstAppendStatements: `per append, the median of ${FIRST_APPEND_COUNTS}`,
    prune: `${fmt(sizes.pruneMessages)}-message transcript compacted ${sizes.pruneCompactions} times → ${sizes.effectiveMessages}`,
    forkCompacted: `${fmt(sizes.forkMessages)}-message transcript compacted ${sizes.pruneCompactions} times → ${sizes.effectiveMessages}, the median of ${sizes.forks} forks`,
    forkShort: `${sizes.effectiveMessages} messages, the median of ${sizes.forks} forks`,
    galeraThreads: `${sizes.writers} writers × ≥ ${fmt(sizes.appendsPerWriter)}`,
    galeraOneThread: `${sizes.writers} writers × ≥ ${fmt(sizes.appendsPerWriter)}`,
    replicaList: `${fmt(sizes.pageSize)} of ${fmt(sizes.sessions)} sessions`,
    replicaExport: compacted(sizes.smallTranscript),
    replicaPage: `${fmt(sizes.pageSize)} after ${fmt(pageAfter(sizes))} of ${fmt(sizes.historyMessages)} messages`,
  };
  return detail[key] ? `${label} (${detail[key]})` : label;
}
