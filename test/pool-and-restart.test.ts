// PostgreSQL and MariaDB: an exhausted pool fails fast with StoreUnavailableError
// instead of hanging, and a server restart in the middle of a load neither
// crashes the process nor loses an acknowledged append.
import mariadb from 'mariadb';
import pg from 'pg';
import { StoreDatabaseError, StoreError, StoreUnavailableError } from '../src/store.errors.js';
import { freshMysqlUrl, freshPostgresUrl } from './support/databases.js';
import { startMariaDb, startPostgres, type RunningServer } from './support/global-setup.js';
import { hasMariaDbBinaries, hasPostgresBinaries, removeServer, startAgain, stopKeepingData } from './support/restartable-server.js';
import { storeApp, type StoreApp } from './support/store-app.js';

interface Engine {
  label: string;
  available: boolean;
  freshUrl(): Promise<string>;
  /** A statement that holds its connection for `seconds`. */
  sleep(seconds: number): string;
  startServer(): Promise<RunningServer | undefined>;
  /** Creates a database on a server of the test's own; returns its url. */
  createDatabase(server: RunningServer, name: string): Promise<string>;
}

const ENGINES: Engine[] = [
  {
    label: 'PostgreSQL',
    available: hasPostgresBinaries(),
    freshUrl: freshPostgresUrl,
    sleep: (seconds) => `SELECT pg_sleep(${seconds})`,
    startServer: startPostgres,
    async createDatabase(server, name) {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
  },
  {
    label: 'MariaDB',
    available: hasMariaDbBinaries(),
    freshUrl: freshMysqlUrl,
    sleep: (seconds) => `SELECT SLEEP(${seconds})`,
    startServer: startMariaDb,
    async createDatabase(server, name) {
      const url = new URL(server.url);
      const connection = await mariadb.createConnection({ host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username) });
      try {
        await connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      } finally {
        await connection.end();
      }
      url.pathname = `/${name}`;
      return url.toString();
    },
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const outcome = <T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> => {
  const started = Date.now();
  return promise.then(
    (value) => ({ value, ms: Date.now() - started }),
    (error: unknown) => ({ error, ms: Date.now() - started }),
  );
};

/**
 * Counts the uncaught exceptions of the real process (an 'error' event nobody
 * listens to, say). Jest gives tests a copy of `process` whose
 * process.on('uncaughtException') never fires, but the capture callback is
 * process-wide.
 */
function captureUncaught(): { errors: unknown[]; release(): void } {
  const errors: unknown[] = [];
  process.setUncaughtExceptionCaptureCallback((error) => errors.push(error));
  return { errors, release: () => process.setUncaughtExceptionCaptureCallback(null) };
}

const describeFor = (engine: Engine) =>
  engine.available ? describe : (title: string, fn: () => void) => describe.skip(`${title} (${engine.label} binaries missing: skipped)`, fn);

for (const engine of ENGINES) {
  describeFor(engine)(`[${engine.label}] pool and restart`, () => {
    test('with the one connection held, store calls fail fast with StoreUnavailableError, and work once it is free', async () => {
      const store = await storeApp({ url: await engine.freshUrl(), migrate: true, pool: { max: 1, connectionTimeoutMs: 500 } });
      let holder: Promise<{ error?: unknown }> | undefined;
      try {
        await store.messages.append('pool', { role: 'user', content: 'before' });

        let holding!: () => void;
        const held = new Promise<void>((resolve) => (holding = resolve));
        let holderFinishedAt: number | undefined;
        // Settled in any case, so that a failed assertion below cannot leave it rejecting after the client is closed.
        holder = outcome(
          store.db.client.$transaction(
            async (tx) => {
              holding();
              await tx.$executeRawUnsafe(engine.sleep(3));
            },
            { maxWait: 5_000, timeout: 10_000 },
          ),
        ).then((result) => {
          holderFinishedAt = Date.now();
          return result;
        });
        await held;

        // A write transaction, a read transaction and a single statement: each waits for the pool its own way.
        const calls = await Promise.all([
          outcome(store.messages.append('pool', { role: 'user', content: 'starved' })),
          outcome(store.messages.getHistory('pool')),
          outcome(store.messages.getTranscript('pool')),
        ]);
        expect(holderFinishedAt).toBeUndefined(); // they all ended while the holder still held the connection
        for (const call of calls) console.log(engine.label, call.ms, String(call.error), (call.error as any)?.cause);
        expect(calls.map((call) => [call.error, call.ms < 2_500])).toEqual(calls.map(() => [expect.any(StoreUnavailableError), true]));
        for (const call of calls) expect((call.error as Error).message).toMatch(/unavailable/i);

        expect((await holder)?.error).toBeUndefined();
        await expect(store.messages.append('pool', { role: 'user', content: 'after' })).resolves.toMatchObject({ seq: 2 });
        expect((await store.messages.getTranscript('pool')).map((m) => m.content)).toEqual(['before', 'after']);
      } finally {
        await holder;
        await store.close();
      }
    });

    test('a server restart in the middle of a load: calls fail with StoreUnavailableError while it is down, appends resume after, and every acknowledged append is kept', async () => {
      let server = await engine.startServer();
      if (!server) throw new Error(`${engine.label} did not start`);
      const uncaught = captureUncaught();
      let store: StoreApp | undefined;
      let running = true;
      let workers: Promise<void>[] = [];
      try {
        const url = await engine.createDatabase(server, 'agent_store_restart');
        store = await storeApp({ url, migrate: true, pool: { max: 4, connectionTimeoutMs: 1_000 } });
        const { messages } = store;

        const acks: { seq: number; content: string; at: number }[] = [];
        const failures: { error: unknown; at: number }[] = [];
        workers = [0, 1, 2, 3].map(async (worker) => {
          for (let n = 0; running; n++) {
            const content = `w${worker}-${n}`;
            try {
              const stored = await messages.append('restart', { role: 'user', content });
              acks.push({ seq: stored.seq, content, at: Date.now() });
            } catch (error) {
              failures.push({ error, at: Date.now() });
              await sleep(50);
            }
          }
        });

        await sleep(1_000);
        const beforeStop = acks.length;
        expect(beforeStop).toBeGreaterThan(0);
        expect(failures).toEqual([]);

        await stopKeepingData(server);
        const downAt = Date.now();

        // While it is down: every kind of call fails, as StoreUnavailableError, within the pool's timeout (and some slack).
        const probes = await Promise.all([
          outcome(messages.append('restart', { role: 'user', content: 'while down' })),
          outcome(messages.getHistory('restart')),
          outcome(messages.count('restart')),
        ]);
        for (const probe of probes) {
          expect(probe.error).toBeInstanceOf(StoreUnavailableError);
          expect(probe.ms).toBeLessThan(5_000);
        }
        await sleep(1_000);
        const upAt = Date.now();
        const acksWhileDown = acks.filter((ack) => ack.at > downAt && ack.at < upAt);
        expect(acksWhileDown).toEqual([]);

        server = await startAgain(server);
        const restartedAt = Date.now();
        const recovery = Date.now() + 5_000;
        while (!acks.some((ack) => ack.at > restartedAt) && Date.now() < recovery) await sleep(50);
        const firstAckAfter = acks.find((ack) => ack.at > restartedAt);
        expect(firstAckAfter).toBeDefined();
        await sleep(500);
        running = false;
        await Promise.all(workers);

        // Whatever failed, failed as a StoreDatabaseError: no raw driver error, no other class.
        for (const { error } of failures) {
          expect(error).toBeInstanceOf(StoreError);
          expect(error).toBeInstanceOf(StoreDatabaseError);
        }
        expect(failures.filter(({ at }) => at > downAt && at < upAt).length).toBeGreaterThan(0);
        // Once appends succeed again, they keep succeeding.
        expect(failures.filter(({ at }) => at > firstAckAfter!.at).map(({ error }) => String(error))).toEqual([]);

        // Every acknowledged append is stored, at its sequence number, and the log has no holes.
        const transcript = await messages.getTranscript('restart');
        const bySeq = new Map(transcript.map((m) => [m.seq, m.content]));
        for (const ack of acks) expect([ack.seq, bySeq.get(ack.seq)]).toEqual([ack.seq, ack.content]);
        expect(new Set(acks.map((ack) => ack.seq)).size).toBe(acks.length);
        expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: transcript.length }, (_, i) => i + 1));
        expect(acks.filter((ack) => ack.at > firstAckAfter!.at).length).toBeGreaterThan(0);

        const summary = {
          acks: acks.length,
          beforeStop,
          failures: failures.length,
          failureClasses: [...new Set(failures.map(({ error }) => (error as Error).name))],
          probeMs: probes.map((p) => p.ms),
          recoveryMs: firstAckAfter!.at - restartedAt,
        };
        console.log(`${engine.label} restart`, JSON.stringify(summary));
      } finally {
        running = false;
        await Promise.all(workers);
        await store?.close();
        uncaught.release();
        await removeServer(server);
      }
      expect(uncaught.errors.map(String)).toEqual([]);
    });
  });
}
