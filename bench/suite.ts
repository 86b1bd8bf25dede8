// One database's run. Writes: every target on a fresh database of its own;
// each workload runs in rounds in which the targets take turns, in an order
// reversed every round, and the median round counts (so that drift of the
// machine hits them alike). Reads: one fresh database, migrated by the store
// at boot and seeded by the raw driver, read by the store (on its url and on an
// own PrismaClient) and the references (the tenant-scoped rows' sessions
// created by the store in their tenant). Pruning: each target on a database of
// its own. Forking: one database, each target in turn (fork-phase.ts).
import type { Sizes } from './config.js';
import type { BenchDatabase } from './databases.js';
import { openForkable, type Forkable } from './fork-phase.js';
import { elapsedMs, median } from './measure.js';
import { benchMessage, SUMMARY } from './messages.js';
import { analyze, seedSessionMessages, seedSessions, seedThread, seedTree, storageOf, type SqlReader, type SqlRunner } from './seed.js';
import { seedCompacted } from './seed-compacted.js';
import { statementCounter } from './statements.js';
import { openRaw, TARGET_KINDS } from './targets/index.js';
import { openOurs } from './targets/ours.js';
import { openOursClient } from './targets/ours-client.js';
import { openPrisma } from './targets/prisma.js';
import type { Target, TargetKey } from './targets/target.js';
import { sizedLabel, TENANT, WORKLOADS, type PruneData, type ReadData, type Unit } from './workloads.js';

/** A result (with each round's, for write workloads), or what failed. */
export type Cell = { value: number; rounds?: number[] } | { error: string };

export interface RowResult {
  key: string;
  label: string;
  unit: Unit;
  /** A tenant-scoped row: the unscoped row it is compared with. */
  unscoped?: string;
  /** A cluster's row: the row of the lone server's table (same engine) that does the same work there. */
  singleServer?: string;
  /** A row whose source holds a long transcript before its cut: the row that does the same work on a source of its effective history alone. */
  historyAlone?: string;
  cells: Partial<Record<TargetKey, Cell>>;
}

export interface SuiteResult {
  engine: BenchDatabase['engine'];
  label: string;
  version: string;
  settings: string;
  rows: RowResult[];
  notes: string[];
  errors: string[];
}

const MASTRA_BATCH = 500;

export async function runSuite(db: BenchDatabase, sizes: Sizes, cellTimeoutMs: number, log: (line: string) => void): Promise<SuiteResult> {
  const result: SuiteResult = { engine: db.engine, label: db.label, version: db.version, settings: db.settings, rows: [], notes: [], errors: [] };
  const kinds = TARGET_KINDS.filter((kind) => kind.engines.includes(db.engine));
  const rows = new Map(WORKLOADS.flatMap((workload) => workload.rows).map((row) => [row.key, { ...row, cells: {} } as RowResult]));
  result.rows = [...rows.values()];
  const fail = (keys: string[], target: TargetKey, error: unknown) => {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    for (const key of keys) rows.get(key)!.cells[target] = { error: message };
    result.errors.push(`${db.label}, ${kinds.find((kind) => kind.key === target)?.label ?? target}, ${keys.join(' + ')}: ${message}`);
    log(`  ${target}: FAILED ${message}`);
  };
  const open: Target[] = [];
  const track = <T extends Target>(target: T): T => (open.push(target), target);

  try {
    // Writes: each target on a fresh database.
    const writers = new Map<TargetKey, Target>();
    for (const kind of kinds) {
      try {
        const url = await db.fresh(kind.key.toLowerCase());
        if (kind.usesStoreSchema) await db.applyStoreSchema(url);
        writers.set(kind.key, track(await kind.open(db.engine, url)));
      } catch (error) {
        fail(
          WORKLOADS.filter((w) => w.targets.includes(kind.key)).flatMap((w) => w.rows.map((row) => row.key)),
          kind.key,
          error,
        );
      }
    }
    // The write phase's statement counter (MariaDB's reads the server's log through a database of its own).
    const counter = await statementCounter(db.engine, await db.fresh('statements'));
    open.push({ close: () => counter.close() });
    const noData = { statements: counter } as ReadData;
    for (const workload of WORKLOADS.filter((w) => w.phase === 'write')) {
      log(`${db.label}: ${sizedLabel(workload.rows[0].key, workload.rows[0].label, sizes)}`);
      const keys = workload.rows.map((row) => row.key);
      const rounds = new Map<TargetKey, (number | undefined)[][]>();
      for (let round = 0; round < sizes.rounds; round++) {
        for (const key of round % 2 === 0 ? workload.targets : [...workload.targets].reverse()) {
          const target = writers.get(key);
          if (!target || (round > 0 && !rounds.has(key))) continue;
          const values = await measure(keys, key, () => workload.run(target, { sizes, key, round, data: noData }));
          if (values) rounds.set(key, [...(rounds.get(key) ?? []), values]);
          else rounds.delete(key);
        }
      }
      for (const [key, results] of rounds) {
        keys.forEach((rowKey, i) => {
          const perRound = results.map((values) => values[i]).filter((value) => value !== undefined);
          if (perRound.length === 0) return;
          rows.get(rowKey)!.cells[key] = { value: median(perRound), ...(perRound.length > 1 && { rounds: perRound }) };
        });
      }
    }

    // Reads: one seeded database for the store (both ways), the reference and Prisma; Mastra reads its own.
    const readers = new Map<TargetKey, Target>();
    let data: ReadData;
    try {
      const url = await db.fresh('reads');
      const ours = track(await openOurs(url));
      const raw = track(openRaw(db.engine, url, 'atomic')) as Target & SqlRunner;
      readers
        .set('ours', ours)
        .set('raw', raw)
        .set('prismaCreate', track(await openPrisma(db.engine, url, 'create')));
      readers.set('oursClient', track(await openOursClient(db.engine, url, 'direct')));
      const statements = await statementCounter(db.engine, url);
      open.push({ close: () => statements.close() });
      data = { ...(await seedReads(db, sizes, ours, raw, log)), statements };
      const mastra = writers.get('mastra');
      if (mastra) {
        await mastra.prepareThread!(data.historyThread);
        for (let i = 1; i <= sizes.historyMessages; i += MASTRA_BATCH) {
          const batch = Array.from({ length: Math.min(MASTRA_BATCH, sizes.historyMessages - i + 1) }, (_, k) => benchMessage(i + k));
          await mastra.appendMany!(data.historyThread, batch);
        }
        readers.set('mastra', mastra);
      }
    } catch (error) {
      for (const workload of WORKLOADS.filter((w) => w.phase === 'read')) {
        for (const key of workload.targets)
          fail(
            workload.rows.map((row) => row.key),
            key,
            new Error(`seeding failed: ${(error as Error).message}`),
          );
      }
      return result;
    }
    for (const workload of WORKLOADS.filter((w) => w.phase === 'read')) {
      log(`${db.label}: ${sizedLabel(workload.rows[0].key, workload.rows[0].label, sizes)}`);
      for (const key of workload.targets) {
        const target = readers.get(key);
        const keys = workload.rows.map((row) => row.key);
        const values = target && (await measure(keys, key, () => workload.run(target, { sizes, key, round: 0, data })));
        if (values) keys.forEach((rowKey, i) => values[i] !== undefined && (rows.get(rowKey)!.cells[key] = { value: values[i] }));
      }
    }
    // Pruning: each target on a fresh database of its own.
    for (const workload of WORKLOADS.filter((w) => w.phase === 'prune')) {
      log(`${db.label}: ${sizedLabel(workload.rows[0].key, workload.rows[0].label, sizes)}`);
      const keys = workload.rows.map((row) => row.key);
      for (const key of workload.targets) {
        const values = await measure(keys, key, () =>
          onPrunable(db, sizes, key, (target, prune) => workload.run(target, { sizes, key, round: 0, data: noData, prune })),
        );
        if (values) keys.forEach((rowKey, i) => values[i] !== undefined && (rows.get(rowKey)!.cells[key] = { value: values[i] }));
      }
    }
    // Forking: one database holding both sources, forked by each target in its turn.
    const forking = WORKLOADS.filter((w) => w.phase === 'fork');
    let forkable: Forkable | undefined;
    try {
      if (forking.length > 0) forkable = await openForkable(db, sizes);
    } catch (error) {
      for (const workload of forking) {
        for (const key of workload.targets)
          fail(
            workload.rows.map((row) => row.key),
            key,
            new Error(`seeding failed: ${(error as Error).message}`),
          );
      }
    }
    if (forkable) {
      const { targets, fork, close } = forkable;
      open.push({ close });
      for (const workload of forking) {
        log(`${db.label}: ${sizedLabel(workload.rows[0].key, workload.rows[0].label, sizes)}`);
        const keys = workload.rows.map((row) => row.key);
        for (const key of workload.targets) {
          const target = targets.get(key)!;
          const values = await measure(keys, key, () => workload.run(target, { sizes, key, round: 0, data: noData, fork }));
          if (values) keys.forEach((rowKey, i) => values[i] !== undefined && (rows.get(rowKey)!.cells[key] = { value: values[i] }));
        }
      }
    }
    for (const [key, target] of writers) {
      for (const note of (await target.notes?.()) ?? []) result.notes.push(`${kinds.find((kind) => kind.key === key)!.label}: ${note}`);
    }
  } finally {
    for (const target of open.reverse()) await target.close().catch((error: Error) => log(`closing a target failed: ${error.message}`));
  }
  return result;

  /** The values of one run of a workload on a target; undefined when it failed (which is recorded). */
  async function measure(keys: string[], key: TargetKey, work: () => Promise<(number | undefined)[]>): Promise<(number | undefined)[] | undefined> {
    try {
      const values = await withTimeout(work(), cellTimeoutMs);
      const shown = values.flatMap((value, i) => (value === undefined ? [] : [`${value.toFixed(value < 10 ? 2 : 0)} ${rows.get(keys[i])!.unit}`]));
      log(`  ${key}: ${shown.join(', ')}`);
      return values;
    } catch (error) {
      fail(keys, key, error);
      return undefined;
    }
  }
}

async function seedReads(db: BenchDatabase, sizes: Sizes, ours: Target, raw: SqlRunner, log: (line: string) => void): Promise<Omit<ReadData, 'statements'>> {
  const engine = db.engine;
  const took = await elapsedMs(async () => {
    await seedThread(engine, raw, 'history', sizes.historyMessages);
    // A compacted thread: the transcript's first messages by the raw driver, then the
    // store's own compaction boundary and the messages after it, through the store.
    for (const [id, transcript] of [
      ['compacted-short', sizes.smallTranscript],
      ['compacted-long', sizes.largeTranscript],
    ] as const) {
      const before = transcript - sizes.effectiveMessages + 1;
      await seedThread(engine, raw, id, before);
      await ours.compact!(id, SUMMARY, before);
      await ours.appendMany!(
        id,
        Array.from({ length: sizes.effectiveMessages - 1 }, (_, i) => benchMessage(before + 1 + i)),
      );
    }
    // The tenant's sessions, created by the store's scoped sessions.create: the long thread, and
    // one compacted like compacted-long (boundary and messages after it through the scoped store).
    const tenant = ours.forTenant!(TENANT);
    await tenant.prepareThread!('tenant-history');
    await seedSessionMessages(engine, raw, 'tenant-history', sizes.historyMessages);
    const before = sizes.largeTranscript - sizes.effectiveMessages + 1;
    await tenant.prepareThread!('tenant-compacted');
    await seedSessionMessages(engine, raw, 'tenant-compacted', before);
    await tenant.compact!('tenant-compacted', SUMMARY, before);
    await tenant.appendMany!(
      'tenant-compacted',
      Array.from({ length: sizes.effectiveMessages - 1 }, (_, i) => benchMessage(before + 1 + i)),
    );
    await seedSessions(engine, raw, 'session-', sizes.sessions);
    await analyze(engine, raw);
  });
  log(`${db.label}: seeded the read workloads in ${(took / 1000).toFixed(1)} s`);
  let trees = 0;
  return {
    historyThread: 'history',
    smallThread: 'compacted-short',
    largeThread: 'compacted-long',
    sessionPrefix: 'session-',
    tenantHistoryThread: 'tenant-history',
    tenantCompactedThread: 'tenant-compacted',
    async seedTree() {
      const root = await seedTree(engine, raw, `tree${++trees}`, sizes.treeSessions, sizes.treeMessages);
      await analyze(engine, raw);
      return root;
    },
  };
}

const PRUNED_THREAD = 'long';
const WARMUP_THREAD = 'warmup';

/**
 * Runs `work` on `key`'s target (the store on its url or on its own client, or the raw driver) on a fresh
 * database that the store migrated, holding one long compacted thread; closes what it opened.
 */
async function onPrunable<T>(db: BenchDatabase, sizes: Sizes, key: TargetKey, work: (target: Target, prune: PruneData) => Promise<T>): Promise<T> {
  const url = await db.fresh(`prune_${key.toLowerCase()}`);
  const opened: Target[] = [];
  try {
    const ours = await openOurs(url);
    opened.push(ours);
    const raw = openRaw(db.engine, url, 'atomic') as Target & SqlReader;
    opened.push(raw);
    const target = key === 'ours' ? ours : key === 'raw' ? raw : await openOursClient(db.engine, url, 'direct');
    if (!opened.includes(target)) opened.push(target);
    // An untimed prune of a small thread first (then deleted), as the other rows warm up: the timed one is not the first call.
    await seedCompacted(db.engine, raw, ours, WARMUP_THREAD, { messages: sizes.effectiveMessages + 2, compactions: 2, effective: sizes.effectiveMessages });
    await target.pruneTranscript!(WARMUP_THREAD);
    await raw.run(`DELETE FROM agent_thread WHERE id = '${WARMUP_THREAD}'`);
    await seedCompacted(db.engine, raw, ours, PRUNED_THREAD, {
      messages: sizes.pruneMessages,
      compactions: sizes.pruneCompactions,
      effective: sizes.effectiveMessages,
    });
    await analyze(db.engine, raw);
    return await work(target, { threadId: PRUNED_THREAD, storage: () => storageOf(db.engine, raw, PRUNED_THREAD) });
  } finally {
    for (const target of opened.reverse()) await target.close();
  }
}

/** `work`, or a rejection saying it gave no result after `ms`. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no result after ${ms / 1000} s`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
