// Reads from a hot standby (the `replicas` option), on a primary and standby of
// this test's own: the standby serves session lists, exports and transcript pages
// once it has replayed the store's own writes, and the primary serves them when it
// has not, when it lags past maxReplicaLagMs, or when it is down. Which server
// answered is told by pausing the standby's replay and writing from another
// process: the standby does not have that write, the primary does.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import type { MessageInput } from '../../src/index.js';
import { describeWith, freshPostgresUrl } from '../support/databases.js';
import {
  hasPostgresBinaries,
  restartServer,
  startPostgresReplication,
  stopKeepingData,
  stopReplication,
  type RunningReplication,
} from '../support/test-servers.js';
import { partitionableProxy } from '../support/loopback.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sql<T>(url: string, statement: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(statement)).rows as T[];
  } finally {
    await client.end();
  }
}

describeWith(hasPostgresBinaries(), 'PostgreSQL binaries are missing')('a PostgreSQL hot standby takes the reads that tolerate one', () => {
  let servers: RunningReplication;
  let primary: string;
  let replica: string;
  /** The store under test, and another process writing to the same database without it. */
  let apps: InternalStoreApp[] = [];

  beforeAll(async () => {
    servers = (await startPostgresReplication())!;
  }, 60_000);
  afterAll(async () => {
    await sql(replica, 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await stopReplication(servers);
  });
  beforeEach(async () => {
    primary = await freshPostgresUrl(servers.primary.url);
    const database = new URL(primary).pathname;
    replica = Object.assign(new URL(servers.replica.url), { pathname: database }).toString();
  });
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
    await sql(servers.replica.url, 'SELECT pg_wal_replay_resume()');
  });

  const open = async (options: { replicas?: string[]; maxReplicaLagMs?: number } = {}) => {
    const app = await storeApp({ url: primary, ...options });
    apps.push(app);
    return app;
  };
  /** Waits until the standby has replayed everything the primary wrote so far. */
  const caughtUp = async () => {
    const [{ lsn }] = await sql<{ lsn: string }>(servers.primary.url, 'SELECT pg_current_wal_lsn()::text AS lsn');
    for (const deadline = Date.now() + 30_000; ; await sleep(20)) {
      const [{ done }] = await sql<{ done: boolean }>(servers.replica.url, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
      if (done) return;
      if (Date.now() > deadline) throw new Error('the standby did not catch up');
    }
  };
  const pauseReplay = async () => {
    await sql(servers.replica.url, 'SELECT pg_wal_replay_pause()');
    while ((await sql<{ state: string }>(servers.replica.url, 'SELECT pg_get_wal_replay_pause_state() AS state'))[0].state !== 'paused') await sleep(10);
  };
  const listed = async (app: InternalStoreApp) => (await app.sessions.list({ limit: 100 })).sessions.map((session) => session.id).sort();
  const paged = async (app: InternalStoreApp, id: string) =>
    (await app.messages.getTranscriptPage(id, { limit: 100 })).messages.map((message) => message.content);
  const exported = async (app: InternalStoreApp, id: string) => {
    let jsonl = '';
    for await (const line of app.sessions.exportJsonl(id)) jsonl += line;
    return jsonl;
  };

  test("the standby serves lists, exports and transcript pages once it has the store's writes; the primary serves them when it lacks the store's own last write", async () => {
    const store = await open({ replicas: [replica], maxReplicaLagMs: 60_000 });
    const other = await open();
    await store.sessions.create({ id: 'a' });
    await store.messages.append('a', user('first'));
    await caughtUp();
    expect(await listed(store)).toEqual(['a']);
    await pauseReplay();
    // Another process writes: the paused standby does not have it, the primary does.
    await other.sessions.create({ id: 'b' });
    await other.messages.append('a', user('from another process'));
    expect(await listed(store)).toEqual(['a']);
    expect(await paged(store, 'a')).toEqual(['first']);
    expect(await exported(store, 'a')).not.toContain('from another process');
    // The hot path reads the primary, always.
    expect((await store.messages.getHistory('a')).map((message) => message.content)).toEqual(['first', 'from another process']);
    // The store's own write: the standby lacks it, so the primary serves the reads after it.
    await store.messages.append('a', user('own'));
    expect(await listed(store)).toEqual(['a', 'b']);
    expect(await paged(store, 'a')).toEqual(['first', 'from another process', 'own']);
    expect(await exported(store, 'a')).toContain('"own"');
    await store.sessions.create({ id: 'c' });
    expect(await listed(store)).toEqual(['a', 'b', 'c']);
  });

  test('a standby that lags the primary by more than maxReplicaLagMs serves no reads', async () => {
    const store = await open({ replicas: [replica], maxReplicaLagMs: 1_000 });
    const other = await open();
    await store.sessions.create({ id: 'a' });
    await caughtUp();
    expect(await listed(store)).toEqual(['a']);
    await pauseReplay();
    await other.sessions.create({ id: 'b' });
    await other.messages.append('a', user('from another process'));
    // More than half the bound later the store asks the primary where it is, which the standby has not replayed.
    await sleep(1_100);
    expect(await listed(store)).toEqual(['a', 'b']);
    expect(await paged(store, 'a')).toEqual(['from another process']);
  });

  test('a standby that is down is skipped, said once in the log, and serves reads again once it is back', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const store = await open({ replicas: [replica], maxReplicaLagMs: 60_000 });
      const other = await open();
      await store.sessions.create({ id: 'a' });
      await caughtUp();
      expect(await listed(store)).toEqual(['a']);
      await stopKeepingData(servers.replica);
      await other.sessions.create({ id: 'b' });
      // The read the store sends to the standby fails there and runs on the primary; the next ones skip it.
      for (let i = 0; i < 5; i++) expect(await listed(store)).toEqual(['a', 'b']);
      expect(await paged(store, 'b')).toEqual([]);
      const said = warn.mock.calls.map((call) => String(call[0])).filter((message) => message.includes('takes no reads'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`replica postgresql://postgres@127.0.0.1:${new URL(replica).port}/`);
      servers = { ...servers, replica: await restartServer(servers.replica) };
      await caughtUp();
      await pauseReplay();
      await other.sessions.create({ id: 'c' });
      // Resting for 5 s after it failed, then asked again: it has the store's writes, not the other process's.
      await sleep(5_200);
      expect(await listed(store)).toEqual(['a', 'b']);
    } finally {
      warn.mockRestore();
    }
  }, 60_000);

  test('a server given as a replica that is not in recovery (a primary, a promoted standby) serves no reads', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      // The primary's url spelled otherwise (as "url" itself, it is refused at boot).
      const store = await open({ replicas: [`${primary}?application_name=as_replica`] });
      await store.sessions.create({ id: 'a' });
      expect(await listed(store)).toEqual(['a']);
      expect(warn.mock.calls.map((call) => String(call[0]))).toContainEqual(expect.stringContaining('it is not in recovery'));
    } finally {
      warn.mockRestore();
    }
  });

  test("a store whose commits do not wait for the log's flush (synchronous_commit = off) reads its own write from no standby that lacks it", async () => {
    const database = new URL(primary).pathname.slice(1);
    await sql(servers.primary.url, `ALTER DATABASE ${database} SET synchronous_commit = off`);
    // The WAL writer flushes an asynchronous commit at most this long after it: until then it is inserted, not written.
    await sql(servers.primary.url, "ALTER SYSTEM SET wal_writer_delay = '10s'");
    await sql(servers.primary.url, 'SELECT pg_reload_conf()');
    try {
      const store = await open({ replicas: [replica], maxReplicaLagMs: 60_000 });
      await caughtUp();
      await store.sessions.create({ id: 'a' });
      expect(await listed(store)).toEqual(['a']);
      await store.messages.append('a', user('own'));
      expect(await paged(store, 'a')).toEqual(['own']);
    } finally {
      await sql(servers.primary.url, 'ALTER SYSTEM RESET wal_writer_delay');
      await sql(servers.primary.url, 'SELECT pg_reload_conf()');
    }
  });

  test("a standby url that names another of the cluster's databases, or a server of another cluster, serves no reads", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const otherCluster = (await startPostgresReplication())!;
    try {
      // Another database of the same cluster, which its standby replays: its LSNs are the primary's, its rows are not ours.
      const elsewhere = await storeApp({ url: await freshPostgresUrl(servers.primary.url) });
      apps.push(elsewhere);
      await elsewhere.sessions.create({ id: 'elsewhere' });
      const otherDatabase = Object.assign(new URL(servers.replica.url), { pathname: new URL(elsewhere.url).pathname }).toString();
      // A standby of another cluster, with a database of our database's name: its LSNs are another log's.
      const name = new URL(primary).pathname;
      await sql(otherCluster.primary.url, `CREATE DATABASE ${name.slice(1)}`);
      const otherStandby = Object.assign(new URL(otherCluster.replica.url), { pathname: name }).toString();
      for (const deadline = Date.now() + 30_000; !(await sql(otherStandby, 'SELECT 1').catch(() => undefined)); await sleep(20)) {
        if (Date.now() > deadline) throw new Error('the other standby did not replay the database');
      }
      const store = await open({ replicas: [otherDatabase, otherStandby], maxReplicaLagMs: 60_000 });
      await store.sessions.create({ id: 'a' });
      await caughtUp();
      for (let i = 0; i < 4; i++) expect(await listed(store)).toEqual(['a']);
      const said = warn.mock.calls.map((call) => String(call[0])).filter((message) => message.includes('takes no reads'));
      expect(said.map((message) => /standby of another database/.test(message))).toEqual([true, true]);
    } finally {
      warn.mockRestore();
      await Promise.all(apps.map((app) => app.close()));
      apps = [];
      await stopReplication(otherCluster);
    }
  }, 60_000);

  test('a standby that drops off the network while it takes reads (no reset, no answer) leaves them to the primary within seconds', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const proxy = await partitionableProxy(replica);
    try {
      const store = await open({ replicas: [proxy.url], maxReplicaLagMs: 60_000 });
      const other = await open();
      await store.sessions.create({ id: 'a' });
      await caughtUp();
      // The standby serves these, and is known to have the store's writes: the next read goes to it unasked.
      expect(await listed(store)).toEqual(['a']);
      expect(await paged(store, 'a')).toEqual([]);
      await other.sessions.create({ id: 'b' });
      await caughtUp();
      proxy.freeze();
      const hung = sleep(8_000).then(() => 'no answer in 8 s');
      expect(await Promise.race([listed(store), hung])).toEqual(['a', 'b']);
      expect(await Promise.race([paged(store, 'a'), hung])).toEqual([]);
      expect(warn.mock.calls.map((call) => String(call[0]))).toContainEqual(expect.stringContaining('takes no reads'));
    } finally {
      warn.mockRestore();
      await proxy.close();
    }
  }, 30_000);

  test('a store boots with a standby that is down, or drops every connection, and reads from the primary', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const proxy = await partitionableProxy(replica);
    await proxy.close();
    const silent = await partitionableProxy(replica);
    silent.freeze();
    try {
      const store = await open({ replicas: [proxy.url, silent.url], maxReplicaLagMs: 60_000 });
      await store.sessions.create({ id: 'a' });
      for (let i = 0; i < 3; i++) expect(await listed(store)).toEqual(['a']);
      expect(warn.mock.calls.map((call) => String(call[0])).filter((message) => message.includes('takes no reads'))).toHaveLength(2);
    } finally {
      warn.mockRestore();
      await silent.close();
    }
  });

  test('a standby whose database is not there yet is skipped: the read runs on the primary', async () => {
    const store = await open({ replicas: [replica.replace(/\/[^/]+$/, '/no_such_database')], maxReplicaLagMs: 60_000 });
    await store.sessions.create({ id: 'a' });
    expect(await listed(store)).toEqual(['a']);
    expect(await paged(store, 'a')).toEqual([]);
  });
});
