// The store on a MariaDB Galera cluster of three nodes (the global setup's), an
// app on each node: what one server gives by its locks, the cluster must give by
// certification, retries and causal reads. (The conformance suite runs on the
// cluster too, through test/support/openers.ts.)
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import mariadb, { type PoolConnection } from 'mariadb';
import { Test } from '@nestjs/testing';
import { MessageStore, StoreModule, type MessageInput } from '../../src/index.js';
import { shippedMigrations } from '../../src/engine/migration-files.js';
import { describeWith, freshGaleraUrls, GALERA, SERVER_START_MS } from '../support/databases.js';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import { appClient, dbMigrate } from '../support/openers.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';
import { galeraAware } from '../../src/databases/mysql/galera.js';
import { galeraSynced, launchGaleraNode, startGalera, stopCluster, stopKeepingData, type RunningCluster } from '../support/test-servers.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });
const connect = (url: string) => mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));

describeWith(GALERA.available, 'Galera unavailable')('[MariaDB Galera] three nodes', () => {
  let urls: string[];
  let apps: InternalStoreApp[] = [];
  beforeAll(async () => {
    urls = await freshGaleraUrls();
    // Migrated through the first node; the others open it as it is.
    apps = [await storeApp({ url: urls[0] })];
    for (const url of urls.slice(1)) apps.push(await storeApp({ url, migrate: false }));
  }, SERVER_START_MS);
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  test('450 appends racing on one thread from three nodes: every one acknowledged, contiguous unique seqs, exactly the acknowledged messages', async () => {
    const acks = await Promise.all(Array.from({ length: 450 }, (_, i) => apps[i % 3].messages.append('hot', user(`m${i}`))));
    for (const app of apps) {
      const transcript = await app.messages.getTranscript('hot');
      expect(transcript.map((message) => message.seq)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
      for (const ack of acks) expect(transcript[ack.seq - 1].content).toBe(ack.content);
    }
  });

  test('subsessions registered from three nodes at once: every edge, registered once', async () => {
    const children = Array.from({ length: 60 }, (_, i) => `child-${i}`);
    await Promise.all(
      children.flatMap((child, i) => [apps[i % 3].transcripts.addSubsession('parent', child), apps[(i + 1) % 3].transcripts.addSubsession('parent', child)]),
    );
    for (const app of apps) expect(new Set(await app.transcripts.getSubsessions('parent'))).toEqual(new Set(children));
  });

  test('a read through another node waits for what the cluster committed before it: held back while that node cannot apply, never stale', async () => {
    const admin = await connect(urls[1]);
    try {
      for (let i = 0; i < 3; i++) {
        await apps[0].messages.append(`causal-${i}`, user('before'));
        // The second node stops applying the cluster's writes (they queue) until its tables are unlocked.
        await admin.query('FLUSH TABLES WITH READ LOCK');
        let unlocked = false;
        try {
          await apps[0].messages.append(`causal-${i}`, user('committed on the first node'));
          const read = apps[1].messages.getHistory(`causal-${i}`).then((history) => ({ history, unlocked }));
          await new Promise((resolve) => setTimeout(resolve, 300));
          unlocked = true;
          await admin.query('UNLOCK TABLES');
          const { history, unlocked: afterUnlock } = await read;
          // A read without waiting would have answered at once, without the second message.
          expect(afterUnlock).toBe(true);
          expect(history.map((message) => message.content)).toEqual(['before', 'committed on the first node']);
        } finally {
          if (!unlocked) await admin.query('UNLOCK TABLES');
        }
      }
    } finally {
      await admin.end();
    }
  });

  test('three migrators on three nodes at once, on a new database: each migration applied once, as _prisma_migrations records', async () => {
    const fresh = await freshGaleraUrls();
    await Promise.all(fresh.map((url) => dbMigrate(url)));
    const connection = await connect(fresh[2]);
    try {
      await connection.query('SET SESSION wsrep_sync_wait = 1');
      const rows = (await connection.query('SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name')) as {
        migration_name: string;
        finished_at: Date | null;
      }[];
      expect(rows.map((row) => row.migration_name)).toEqual(shippedMigrations('mysql').map((file) => file.name));
      expect(rows.every((row) => row.finished_at !== null)).toBe(true);
      // The lock is released: nobody holds it, and a later migration finds nothing to do.
      expect(await connection.query('SELECT name FROM _agent_store_lock')).toEqual([]);
    } finally {
      await connection.end();
    }
    await dbMigrate(fresh[1]);
    const app = await storeApp({ url: fresh[1], migrate: false });
    try {
      await app.messages.append('t', user('works'));
      expect((await app.messages.getHistory('t')).map((message) => message.content)).toEqual(['works']);
    } finally {
      await app.close();
    }
  });

  test("a migration on a node waits for `prisma migrate deploy` on that node, which holds Prisma's lock (GET_LOCK), as on one server", async () => {
    const fresh = await freshGaleraUrls();
    const prisma = await connect(fresh[0]);
    try {
      expect(await prisma.query("SELECT GET_LOCK('prisma_migrate', 0) AS locked")).toEqual([{ locked: 1 }]);
      let done = false;
      const migration = dbMigrate(fresh[0]).then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(done).toBe(false);
      await prisma.query("SELECT RELEASE_LOCK('prisma_migrate')");
      await migration;
    } finally {
      await prisma.end();
    }
  });

  test('on your own PrismaClient: a warning when its pool reads without waiting for the cluster, none when it waits; conflicts retried as on the url', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      for (const initSql of [undefined, 'SET SESSION wsrep_sync_wait = 1']) {
        warn.mockClear();
        const prisma = await appClient(GALERA, urls[2], { adapter: new PrismaMariaDb({ ...mariadbConnection(urls[2]), ...(initSql && { initSql }) }) });
        const module = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
        await module.init();
        const app = { messages: module.get(MessageStore), close: () => module.close() };
        try {
          const warned = warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('wsrep_sync_wait'));
          expect(warned).toHaveLength(initSql ? 0 : 1);
          if (initSql) {
            // Two apps on two nodes race, as above: the retries of a cluster get every append through.
            const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? app : apps[0]).messages.append('own-hot', user(`m${i}`))));
            expect(new Set(acks.map((ack) => ack.seq)).size).toBe(200);
          }
        } finally {
          await app.close();
          await prisma.$disconnect();
        }
      }
    } finally {
      warn.mockRestore();
    }
  });
});

describeWith(GALERA.available, 'Galera unavailable')('[MariaDB Galera] a node restarted under a pool', () => {
  let cluster: RunningCluster | undefined;
  afterAll(async () => {
    if (cluster) await stopCluster(cluster);
  });

  test("a connection opened after the node's restart reads at the cluster's latest commit, though the server gives it the thread id of a connection before", async () => {
    // A cluster of its own (one node), since its node is restarted.
    cluster = (await startGalera(1))!;
    const [url] = cluster.urls;
    const syncWait = async (connection: PoolConnection) =>
      Number(((await connection.query({ sql: 'SELECT @@SESSION.wsrep_sync_wait', rowsAsArray: true })) as unknown[][])[0][0]);
    // Connections before the pool's, so that the restarted server, counting thread ids from the start again, reaches the pool's.
    for (let i = 0; i < 30; i++) await (await connect(url)).end();
    // No connection opened ahead (minimumIdle): the one after the restart is opened when asked for, after the others.
    const { pool } = galeraAware(mariadb.createPool({ ...mariadbConnection(url), connectionLimit: 1, minimumIdle: 0 }));
    try {
      const before = await pool.getConnection();
      const threadId = before.threadId!;
      expect(await syncWait(before)).toBe(1);
      await before.release();
      await stopKeepingData(cluster.nodes[0]);
      cluster.nodes[0] = launchGaleraNode(cluster.nodes[0], true);
      await galeraSynced(cluster.nodes[0], 1);
      for (;;) {
        const other = await connect(url);
        const id = other.threadId!;
        await other.end();
        if (id >= threadId - 1) break;
      }
      // The pool's connection died with the server: a new one, with the same thread id on the restarted server.
      const after = await pool.getConnection();
      try {
        expect(after.threadId).toBe(threadId);
        expect(await syncWait(after)).toBe(1);
      } finally {
        await after.release();
      }
    } finally {
      await pool.end();
    }
  });
});
