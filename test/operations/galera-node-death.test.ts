// A Galera node killed (kill -9) under a write load spread over the three nodes,
// on a cluster of this test's own: every acknowledged append is on the surviving
// nodes, writes go on through them, and the killed node, started again, rejoins
// with the same data as the others (per-table checksums).
import mariadb from 'mariadb';
import { StoreUnavailableError, type MessageInput } from '../../src/index.js';
import { describeWith } from '../support/databases.js';
import { hasGaleraBinaries, restartGaleraNode, startGalera, stopCluster, type RunningCluster } from '../support/test-servers.js';
import { dbMigrate } from '../support/openers.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DATABASE = 'agent_store_node_death';
const onDatabase = (url: string) => url.replace(/\/mysql$/, `/${DATABASE}`);

interface Ack {
  node: number;
  /** When it was acknowledged (Date.now()). */
  at: number;
  threadId: string;
  seq: number;
  content: string;
}

/** Appends on `app` until `stop()` says so, a few writers at once, to a thread of the node's own and to one every node writes: what was acknowledged, what failed. */
async function load(app: InternalStoreApp, node: number, stop: () => boolean, failsOver: boolean, acks: Ack[]): Promise<{ acks: Ack[]; failures: unknown[] }> {
  const failures: unknown[] = [];
  const writer = async (w: number) => {
    for (let i = 0; !stop(); i++) {
      const threadId = i % 2 ? 'shared' : `node-${node}`;
      const content = `n${node} w${w} #${i}`;
      try {
        const { seq } = await app.messages.append(threadId, user(content));
        acks.push({ node, at: Date.now(), threadId, seq, content });
      } catch (error) {
        failures.push(error);
        // A dead node's writers stop, unless their app has other nodes to go to.
        if (error instanceof StoreUnavailableError && !failsOver) return;
        await sleep(10);
      }
    }
  };
  await Promise.all([0, 1, 2].map(writer));
  return { acks, failures };
}

/** Each table's checksum on the node at `url`, once it has applied everything the cluster committed. */
async function checksums(url: string): Promise<Record<string, string>> {
  const connection = await mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));
  try {
    await connection.query('SET SESSION wsrep_sync_wait = 15');
    const tables = ((await connection.query('SHOW TABLES')) as Record<string, string>[]).map((row) => Object.values(row)[0]);
    const rows = (await connection.query(`CHECKSUM TABLE ${tables.join(', ')} EXTENDED`)) as { Table: string; Checksum: bigint | number }[];
    return Object.fromEntries(rows.map((row) => [row.Table.split('.').pop()!, String(row.Checksum)]));
  } finally {
    await connection.end();
  }
}

describeWith(hasGaleraBinaries(), 'Galera binaries missing')('[MariaDB Galera] a node dies', () => {
  let cluster: RunningCluster | undefined;
  const apps: InternalStoreApp[] = [];
  beforeAll(async () => {
    // Once more if it fails to start (another process can take a port between its choice and the node's bind); the first error is printed.
    cluster = await startGalera().catch((error: unknown) => {
      console.warn(`the Galera cluster did not start, starting another: ${String(error)}`);
      return startGalera();
    });
    const admin = await mariadb.createConnection(cluster!.urls[0].replace(/^mysql:/, 'mariadb:'));
    await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    await dbMigrate(onDatabase(cluster!.urls[0]));
    for (const url of cluster!.urls) apps.push(await storeApp({ url: onDatabase(url), migrate: false }));
    // A fourth app on the node that dies, given the two others to fail over to.
    const [first, second, third] = cluster!.urls.map(onDatabase);
    apps.push(await storeApp({ url: third, failover: [first, second], migrate: false }));
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(apps.map((app) => app.close()));
    if (cluster) await stopCluster(cluster);
  }, 60_000);

  test('kill -9 of a node under load: nothing acknowledged is lost, the other nodes go on, the node rejoins with identical data', async () => {
    let stopped = false;
    let killedAt = 0;
    const acked: Ack[][] = apps.map(() => []);
    const loads = apps.map((app, node) => load(app, node, () => stopped, node === 3, acked[node]));
    await sleep(1_000);
    process.kill(cluster!.nodes[2].pid, 'SIGKILL');
    killedAt = Date.now();
    // Until each surviving node, and the app that failed over, has had the shared thread written through it after the
    // kill (the cluster takes a moment, longer on a busy machine, to see the node gone): at least 1.5 s, at most 30 s.
    const wroteAfterKill = (node: number) => acked[node].some((ack) => ack.threadId === 'shared' && ack.at > killedAt + 500);
    for (const deadline = killedAt + 30_000; Date.now() < killedAt + 1_500 || (![0, 1, 3].every(wroteAfterKill) && Date.now() < deadline);) await sleep(100);
    stopped = true;
    const results = await Promise.all(loads);

    // The dead node's writers were told it is unavailable; the others' were never refused.
    expect(results[2].failures.some((error) => error instanceof StoreUnavailableError)).toBe(true);
    for (const node of [0, 1]) expect(results[node].failures.filter((error) => error instanceof StoreUnavailableError)).toEqual([]);
    // Writes went on through both surviving nodes after the kill, on the shared thread too, and the app given failover urls moved to one of them.
    const acks = results.flatMap((result) => result.acks);
    for (const node of [0, 1, 3])
      expect(acks.filter((ack) => ack.node === node && ack.threadId === 'shared' && ack.at > killedAt + 500).length).toBeGreaterThan(0);

    // Every acknowledged append is on both survivors, at its sequence number; the shared thread is contiguous.
    expect(acks.filter((ack) => ack.threadId === 'shared').length).toBeGreaterThan(20);
    for (const app of apps.slice(0, 2)) {
      for (const threadId of ['shared', 'node-0', 'node-1', 'node-2', 'node-3']) {
        const transcript = await app.messages.getTranscript(threadId);
        expect(transcript.map((message) => message.seq)).toEqual(transcript.map((_, i) => i + 1));
        for (const ack of acks.filter((each) => each.threadId === threadId)) expect(transcript[ack.seq - 1]?.content).toBe(ack.content);
      }
    }

    // Started again, the node catches up and holds what the others hold.
    cluster = await restartGaleraNode(cluster!, 2);
    const [first, ...others] = await Promise.all(cluster.urls.map((url) => checksums(onDatabase(url))));
    expect(Object.keys(first)).toContain('agent_message');
    for (const other of others) expect(other).toEqual(first);
  }, 120_000);
});
