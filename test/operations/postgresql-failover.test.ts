// PostgreSQL failover, on a primary and a synchronous hot standby of this test's
// own: a store given both servers writes on whichever takes writes (a standby is
// passed over), and when the primary is killed (kill -9) under load and the
// standby promoted, nothing the store acknowledged is lost and the store writes on
// the new primary within RESUME_BOUND_MS. The kill comes last: it ends the pair.
import { createServer } from 'node:net';
import pg from 'pg';
import { StoreUnavailableError, type MessageInput } from '../../src/index.js';
import { describeWith } from '../support/databases.js';
import { hasPostgresBinaries, promoteStandby, startPostgresReplication, stopReplication, type RunningReplication } from '../support/test-servers.js';
import { loopbackServer, partitionableProxy, type Loopback } from '../support/loopback.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long after the promotion the store's first write on the new primary may come (docs/databases/scaling.md: PostgreSQL failover). */
const RESUME_BOUND_MS = 5_000;
const WRITERS = 4;
/** The url of the fake servers' (their host and port replaced). */
const POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

interface Ack {
  /** When it was acknowledged (Date.now()). */
  at: number;
  threadId: string;
  seq: number;
  content: string;
}

/** Appends on `app` until `stop()` says so, WRITERS at once, each to a thread of its own and to one they share: what was acknowledged, what failed. */
async function load(app: InternalStoreApp, stop: () => boolean): Promise<{ acks: Ack[]; failures: { at: number; error: unknown }[] }> {
  const acks: Ack[] = [];
  const failures: { at: number; error: unknown }[] = [];
  const writer = async (w: number) => {
    for (let i = 0; !stop(); i++) {
      const threadId = i % 2 ? 'shared' : `writer-${w}`;
      const content = `w${w} #${i}`;
      try {
        const { seq } = await app.messages.append(threadId, user(content));
        acks.push({ at: Date.now(), threadId, seq, content });
      } catch (error) {
        failures.push({ at: Date.now(), error });
        await sleep(20);
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  return { acks, failures };
}

/** The messages on the server at `url`, read directly: per thread, each seq's text. */
async function messagesOn(url: string): Promise<Map<string, Map<number, string>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ thread_id: string; seq: number; content: string }>(
      'SELECT thread_id, seq, content FROM agent_message ORDER BY thread_id, seq',
    );
    const threads = new Map<string, Map<number, string>>();
    for (const row of rows) {
      if (!threads.has(row.thread_id)) threads.set(row.thread_id, new Map());
      threads.get(row.thread_id)!.set(row.seq, JSON.parse(row.content) as string);
    }
    return threads;
  } finally {
    await client.end();
  }
}

/** A url on loopback where nothing listens, with a password in it that no message may show. */
async function deadUrl(): Promise<string> {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
  return `postgresql://postgres:s3cret-pw@127.0.0.1:${port}/postgres`;
}

/**
 * A server on loopback that lets node-postgres connect (trust, then ready for a query) and never answers a
 * query, as a server that hangs would; its url. `close` stops it.
 */
function silentServer(): Promise<Loopback> {
  const message = (type: string, body: Buffer) =>
    Buffer.concat([Buffer.from(type), Buffer.from([0, 0, 0, 0].map((_, i) => ((body.length + 4) >> (24 - 8 * i)) & 0xff)), body]);
  // The startup message is the first thing the client sends: answer it as a server that trusts everyone.
  return loopbackServer(POSTGRES_URL, (socket) =>
    socket.once('data', () => socket.write(Buffer.concat([message('R', Buffer.alloc(4)), message('K', Buffer.alloc(8)), message('Z', Buffer.from('I'))]))),
  );
}

/** A server on loopback that accepts connections and never says a word, as a host behind a black hole would; its url. */
const muteServer = (): Promise<Loopback> => loopbackServer(POSTGRES_URL, () => undefined);

describeWith(hasPostgresBinaries(), 'PostgreSQL binaries missing')('[PostgreSQL] failover to a promoted standby', () => {
  let pair: RunningReplication | undefined;
  const apps: InternalStoreApp[] = [];
  const open = async (url: string, failover: string[], migrate = true) => {
    const app = await storeApp({ url, failover, migrate });
    apps.push(app);
    return app;
  };
  beforeAll(async () => {
    pair = await startPostgresReplication({ synchronous: true });
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(apps.map((app) => app.close()));
    if (pair) await stopReplication(pair);
  }, 60_000);

  test('given the standby first, the store migrates and writes on the primary', async () => {
    const app = await open(pair!.replica.url, [pair!.primary.url]);
    const { seq } = await app.messages.append('standby-first', user('on the primary'));
    expect(seq).toBe(1);
    expect((await messagesOn(pair!.primary.url)).get('standby-first')).toEqual(new Map([[1, 'on the primary']]));
  });

  test('when no server takes writes, a call fails with StoreUnavailableError saying why, without a password', async () => {
    const dead = await deadUrl();
    const app = await open(pair!.replica.url, [dead], false);
    const failure = await app.messages.append('nowhere', user('lost')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    const { message } = failure as Error;
    expect(message).toMatch(/no PostgreSQL server takes writes/);
    expect(message).toContain(`${pair!.replica.url} is a standby (in recovery)`);
    expect(message).toMatch(/postgresql:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres cannot be reached \(connect ECONNREFUSED/);
    expect(message).not.toContain('s3cret-pw');
  });

  test('a server that takes connections but answers no query is passed over within pool.connectionTimeoutMs', async () => {
    const silent = await silentServer();
    try {
      const app = await storeApp({ url: silent.url, failover: [pair!.primary.url], migrate: false, pool: { connectionTimeoutMs: 500 } });
      apps.push(app);
      const started = Date.now();
      expect((await app.messages.append('past-a-silent-server', user('on the primary'))).seq).toBe(1);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await messagesOn(pair!.primary.url)).get('past-a-silent-server')).toEqual(new Map([[1, 'on the primary']]));
    } finally {
      await silent.close();
    }
  }, 20_000);

  test('a call in a transaction of its own waits for a connection past a server that answers nothing, and writes on the next', async () => {
    const mute = await muteServer();
    try {
      const app = await storeApp({ url: mute.url, failover: [pair!.primary.url], migrate: false, pool: { connectionTimeoutMs: 500 } });
      apps.push(app);
      const started = Date.now();
      await app.messages.clear('standby-first');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await messagesOn(pair!.primary.url)).get('standby-first')).toBeUndefined();
    } finally {
      await mute.close();
    }
  }, 20_000);

  test("a primary that takes no writes (default_transaction_read_only) is passed over, as libpq's target_session_attrs=read-write does", async () => {
    const readOnly = `${pair!.primary.url}?options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    const app = await open(readOnly, [pair!.primary.url], false);
    expect((await app.messages.append('past-a-read-only-server', user('written'))).seq).toBe(1);
  });

  test('a first server partitioned away under load (its connections hang, none closed) is passed over within twice pool.connectionTimeoutMs', async () => {
    const proxy = await partitionableProxy(pair!.primary.url);
    try {
      const app = await storeApp({ url: proxy.url, failover: [pair!.primary.url], migrate: false, pool: { max: 2, connectionTimeoutMs: 1_000 } });
      apps.push(app);
      let stopped = false;
      const running = load(app, () => stopped);
      await sleep(1_000);
      proxy.freeze();
      const frozenAt = Date.now();
      await sleep(6_000);
      stopped = true;
      // The calls hung on the partitioned connections end when those connections do.
      await proxy.close();
      const { acks } = await running;
      expect(acks.filter((ack) => ack.at < frozenAt).length).toBeGreaterThan(10);
      const resumed = acks.find((ack) => ack.at > frozenAt);
      expect(resumed && resumed.at - frozenAt).toBeLessThanOrEqual(2 * 1_000 + 2_000);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  test('kill -9 of the primary under load, standby promoted: nothing acknowledged is lost, writes resume on the new primary in time', async () => {
    const app = await open(pair!.primary.url, [pair!.replica.url]);
    let stopped = false;
    const running = load(app, () => stopped);
    await sleep(1_000);
    process.kill(pair!.primary.pid, 'SIGKILL');
    const killedAt = Date.now();
    // An outage the writers meet before an operator promotes the standby.
    await sleep(1_000);
    promoteStandby(pair!.replica);
    const promotedAt = Date.now();
    await sleep(2_000);
    stopped = true;
    const { acks, failures } = await running;

    const before = acks.filter((ack) => ack.at < killedAt);
    const after = acks.filter((ack) => ack.at > promotedAt);
    expect(before.length).toBeGreaterThan(20);
    expect(after.length).toBeGreaterThan(20);
    const resumeMs = after[0].at - promotedAt;
    console.log(
      `PostgreSQL failover: ${before.length} appends acknowledged before the kill, ${failures.length} failed, the first on the new primary ${resumeMs} ms after the promotion`,
    );
    expect(resumeMs).toBeLessThanOrEqual(RESUME_BOUND_MS);
    // The outage was met, and every call it failed was told the database is unavailable.
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.map(({ error }) => error).filter((error) => !(error instanceof StoreUnavailableError))).toEqual([]);
    expect(failures.filter(({ at }) => at < killedAt || at > promotedAt + RESUME_BOUND_MS)).toEqual([]);

    // Every acknowledged append is on the promoted server at its sequence number, each thread contiguous.
    const promoted = await messagesOn(pair!.replica.url);
    for (const ack of acks)
      expect(`${ack.threadId} ${ack.seq}: ${promoted.get(ack.threadId)?.get(ack.seq)}`).toBe(`${ack.threadId} ${ack.seq}: ${ack.content}`);
    for (const [threadId, messages] of promoted)
      expect(`${threadId}: ${[...messages.keys()].join(',')}`).toBe(`${threadId}: ${[...messages.keys()].map((_, i) => i + 1).join(',')}`);
  }, 60_000);
});
