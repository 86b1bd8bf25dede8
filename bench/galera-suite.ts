// The Galera rows: appends spread over the three nodes of a cluster, the
// store's (an app per node) and the raw reference's (a pool per node), each on a
// fresh database, writers assigned to the nodes in turn; to a thread each, and
// to one thread that all of them append to, where the nodes' commits conflict
// and are retried. As the write rows of one server: rounds in which the targets
// take turns, in an order reversed every round, the median counting; each
// round's loops checked against what the cluster stored.
import { GALERA_RETRY } from '../src/databases/mysql/galera.js';
import type { BenchGalera } from './clusters.js';
import type { Sizes } from './config.js';
import { median } from './measure.js';
import { benchMessage } from './messages.js';
import { withTimeout, type SuiteResult } from './suite.js';
import { openRawOnNodes, openStoreOnNodes } from './targets/galera.js';
import type { Target, TargetKey } from './targets/target.js';
import { sizedLabel, type RowSpec } from './workloads.js';

/** A row of a cluster: `singleServer` names the row of the lone MariaDB's table that does the same work on one server. */
export type ClusterRowSpec = RowSpec & { singleServer?: string };

export const GALERA_ROWS: (ClusterRowSpec & { shared: boolean })[] = [
  {
    key: 'galeraThreads',
    label: 'append, concurrent writers over three Galera nodes, a thread each',
    unit: 'msg/s',
    singleServer: 'writersThreads',
    shared: false,
  },
  {
    key: 'galeraOneThread',
    label: 'append, concurrent writers over three Galera nodes, one shared thread',
    unit: 'msg/s',
    singleServer: 'writersOneThread',
    shared: true,
  },
];

const TARGETS: { key: TargetKey; open(urls: string[]): Promise<Target[]> }[] = [
  { key: 'ours', open: openStoreOnNodes },
  { key: 'raw', open: async (urls) => openRawOnNodes(urls) },
];

export async function runGaleraSuite(cluster: BenchGalera, sizes: Sizes, cellTimeoutMs: number, log: (line: string) => void): Promise<SuiteResult> {
  const result: SuiteResult = { engine: 'mysql', label: cluster.label, version: cluster.version, settings: cluster.settings, rows: [], notes: [], errors: [] };
  result.rows = GALERA_ROWS.map(({ shared: _, ...row }) => ({ ...row, cells: {} }));
  const nodes = new Map<TargetKey, Target[]>();
  const conflicts = new Map<string, number>();
  try {
    for (const { key, open } of TARGETS) {
      try {
        const urls = await cluster.fresh(`galera_${key.toLowerCase()}`);
        if (key === 'raw') await cluster.applyStoreSchema(urls[0]);
        nodes.set(key, await open(urls));
      } catch (error) {
        fail(
          key,
          GALERA_ROWS.map((row) => row.key),
          error,
        );
      }
    }
    for (const [i, row] of GALERA_ROWS.entries()) {
      log(`${cluster.label}: ${sizedLabel(row.key, row.label, sizes)}`);
      const rates = new Map<TargetKey, number[]>();
      for (let round = 0; round < sizes.rounds; round++) {
        for (const { key } of round % 2 === 0 ? TARGETS : [...TARGETS].reverse()) {
          const targets = nodes.get(key);
          if (!targets || result.rows[i].cells[key]) continue;
          try {
            const before = await cluster.conflicts();
            const rate = await withTimeout(spreadRate(cluster, targets, `${row.key}-${round}`, row.shared, sizes), cellTimeoutMs);
            const what = `${row.shared ? 'one shared thread' : 'a thread each'}, ${key === 'ours' ? 'nestjs-agent-store' : 'raw driver'}`;
            conflicts.set(what, (conflicts.get(what) ?? 0) + (await cluster.conflicts()) - before);
            rates.set(key, [...(rates.get(key) ?? []), rate]);
            log(`  ${key}: ${rate.toFixed(0)} msg/s`);
          } catch (error) {
            fail(key, [row.key], error);
          }
        }
      }
      for (const [key, values] of rates) {
        if (!result.rows[i].cells[key]) result.rows[i].cells[key] = { value: median(values), ...(values.length > 1 && { rounds: values }) };
      }
    }
    const writers = Array.from({ length: 3 }, (_, node) => Math.ceil((sizes.writers - node) / 3));
    result.notes.push(
      `Each target on a fresh database of its own. nestjs-agent-store: an app per node, StoreModule.forRoot({ url: nodeUrl }) (the first node's migrating; wsrep_sync_wait = 1 ` +
        `on every connection, as the store sets it); the raw driver: a pool of 10 per node, wsrep_sync_wait left at 0 (its appends read nothing another node wrote), ` +
        `its atomic append retried after a failed certification (1213) with the store's policy (${GALERA_RETRY_TEXT}). ${sizes.writers} writers, writer w on node w mod 3 ` +
        `(${writers.join(', ')} per node); when the lone MariaDB ran too, a last column compares the store with itself on that server (its row with the same writers), in the same run.`,
      `Commits that failed certification or were aborted by another node's (wsrep_local_cert_failures + wsrep_local_bf_aborts, summed over the nodes and ${sizes.rounds} round(s)): ` +
        [...conflicts].map(([what, n]) => `${what} ${n}`).join('; '),
    );
  } finally {
    for (const targets of nodes.values())
      await Promise.all(targets.map((target) => target.close().catch((error: Error) => log(`closing a target failed: ${error.message}`))));
  }
  return result;

  function fail(key: TargetKey, rowKeys: string[], error: unknown): void {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    for (const row of result.rows.filter((row) => rowKeys.includes(row.key))) row.cells[key] = { error: message };
    result.errors.push(`${cluster.label}, ${key}, ${rowKeys.join(' + ')}: ${message}`);
    log(`  ${key}: FAILED ${message}`);
  }
}

const GALERA_RETRY_TEXT = `up to ${GALERA_RETRY.attempts} attempts, full-jitter backoff from ${GALERA_RETRY.baseDelayMs} ms to ${GALERA_RETRY.maxDelayMs} ms`;

/**
 * Messages per second of `sizes.writers` concurrent loops, writer w appending through node w mod 3, to a thread
 * each or all to one; each loop makes at least `appendsPerWriter` calls and goes on until `writeMinMs` have passed.
 * Before: each node's warm-up appends to a thread of its own; after: every thread holds exactly the appends acknowledged.
 */
async function spreadRate(cluster: BenchGalera, nodes: Target[], name: string, shared: boolean, sizes: Sizes): Promise<number> {
  const nodeOf = (writer: number) => nodes[writer % nodes.length];
  const threadOf = (writer: number) => (shared ? name : `${name}-${writer + 1}`);
  const threads = [...new Set(Array.from({ length: sizes.writers }, (_, w) => threadOf(w)))];
  for (const [i, node] of nodes.entries()) {
    const warm = `${name}-warmup-${i}`;
    await node.prepareThread?.(warm);
    for (let m = 1; m <= sizes.warmup; m++) await node.append!(warm, benchMessage(m));
  }
  for (const thread of threads) await nodes[0].prepareThread?.(thread);
  // The threads the reference created on the first node are on every node before any writer updates them.
  await cluster.caughtUp();
  const start = performance.now();
  const calls = await Promise.all(
    Array.from({ length: sizes.writers }, async (_, w) => {
      let i = 0;
      while (i < sizes.appendsPerWriter || performance.now() - start < sizes.writeMinMs) await nodeOf(w).append!(threadOf(w), benchMessage(++i));
      return i;
    }),
  );
  const rate = calls.reduce((sum, n) => sum + n, 0) / ((performance.now() - start) / 1000);
  await cluster.caughtUp();
  for (const thread of threads) {
    const expected = calls.filter((_, w) => threadOf(w) === thread).reduce((sum, n) => sum + n, 0);
    const stored = await nodes[0].stored!(thread);
    if (stored !== expected) throw new Error(`messages stored in ${thread}: expected ${expected}, got ${stored}`);
  }
  return rate;
}
