// PostgreSQL and MariaDB: an exhausted pool fails fast with StoreUnavailableError
// instead of hanging, and a server restart in the middle of a load neither
// crashes the process nor loses an acknowledged append.
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import mariadb from 'mariadb';
import pg from 'pg';
import { KITS } from '../../src/databases/index.js';
import { toStoreError } from '../../src/engine/db-errors.js';
import { Prisma } from '../../src/generated/mysql/client.js';
import { StoreDatabaseError, StoreError, StoreUnavailableError } from '../../src/store.errors.js';
import { describeWith, freshMysqlUrl, freshPostgresUrl } from '../support/databases.js';
import {
  hasMariaDbBinaries,
  hasPostgresBinaries,
  restartServer,
  startMariaDb,
  startPostgres,
  stopKeepingData,
  stopServer,
  type RunningServer,
} from '../support/test-servers.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

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

interface Outcome<T> {
  value?: T;
  error?: unknown;
  ms: number;
}
/** Settles `promise` into its value or error, and how long it took. */
function outcome<T>(promise: Promise<T>): Promise<Outcome<T>> {
  const started = Date.now();
  return promise.then(
    (value) => ({ value, ms: Date.now() - started }),
    (error: unknown) => ({ error, ms: Date.now() - started }),
  );
}

/** The class and the gist of an error's message (its first line, and its last when Prisma put the failed call in between), for assertions that read well. */
function classOf(error: unknown): string {
  const lines = String((error as Error)?.message)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return `${(error as Error)?.name}: ${lines.length > 1 ? `${lines[0]} … ${lines[lines.length - 1]}` : (lines[0] ?? '')}`;
}

/**
 * Counts the real process's uncaught exceptions (an 'error' event nobody
 * listens to, say). Jest hands tests a copy of `process` whose
 * process.on('uncaughtException') never fires; the capture callback is process-wide.
 */
function captureUncaught(): { errors: unknown[]; release(): void } {
  const errors: unknown[] = [];
  process.setUncaughtExceptionCaptureCallback((error) => errors.push(error));
  return { errors, release: () => process.setUncaughtExceptionCaptureCallback(null) };
}

for (const engine of ENGINES) {
  describeWith(engine.available, `${engine.label} binaries missing`)(`[${engine.label}] pool and restart`, () => {
    test("with the pool's one connection held, store calls fail fast with StoreUnavailableError, and work once it is free", async () => {
      const store = await storeApp({ url: await engine.freshUrl(), migrate: true, pool: { max: 1, connectionTimeoutMs: 500 } });
      let holder: Promise<Outcome<unknown>> | undefined;
      try {
        await store.messages.append('pool', { role: 'user', content: 'before' });

        let holding!: () => void;
        const held = new Promise<void>((resolve) => (holding = resolve));
        let holderFinishedAt: number | undefined;
        // Settled in any case, so that it cannot reject after a failed assertion closed the client.
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
        // They failed, within the pool's timeout, while the holder still held the connection: no hang.
        expect(holderFinishedAt).toBeUndefined();
        for (const call of calls) {
          expect(call.error).toBeInstanceOf(StoreDatabaseError);
          expect(call.ms).toBeLessThan(2_500);
        }

        expect((await holder).error).toBeUndefined();
        await expect(store.messages.append('pool', { role: 'user', content: 'after' })).resolves.toMatchObject({ seq: 2 });
        expect((await store.messages.getTranscript('pool')).map((m) => m.content)).toEqual(['before', 'after']);

        // "No connection came free in time" is StoreUnavailableError (docs/guide/errors.md, store.errors.ts), with a message that says so.
        expect(calls.map((call) => classOf(call.error))).toEqual(calls.map(() => expect.stringMatching(/^StoreUnavailableError: the database is unavailable/)));
      } finally {
        await holder;
        await store.close();
      }
    });

    test('a server restart in the middle of a load: StoreUnavailableError while it is down, no crash, appends resume, every acknowledged append is kept', async () => {
      let server = await engine.startServer();
      if (!server) throw new Error(`${engine.label} did not start`);
      const uncaught = captureUncaught();
      let store: InternalStoreApp | undefined;
      let running = true;
      let workers: Promise<void>[] = [];
      try {
        store = await storeApp({
          url: await engine.createDatabase(server, 'agent_store_restart'),
          migrate: true,
          pool: { max: 4, connectionTimeoutMs: 1_000 },
        });
        const { messages } = store;

        // Four writers on one thread, recording what was acknowledged and what failed.
        const acks: { seq: number; content: string; at: number }[] = [];
        const failures: { error: unknown; startedAt: number; at: number }[] = [];
        workers = [0, 1, 2, 3].map(async (worker) => {
          for (let n = 0; running; n++) {
            const content = `w${worker}-${n}`;
            const startedAt = Date.now();
            try {
              const stored = await messages.append('restart', { role: 'user', content });
              acks.push({ seq: stored.seq, content, at: Date.now() });
            } catch (error) {
              failures.push({ error, startedAt, at: Date.now() });
              await sleep(50);
            }
          }
        });

        await sleep(1_000);
        expect(acks.length).toBeGreaterThan(0);
        expect(failures.map(({ error }) => classOf(error))).toEqual([]);

        await stopKeepingData(server);
        const downAt = Date.now();
        // While it is down (the process has exited): each kind of call fails, within the pool's timeout.
        const probes = await Promise.all([
          outcome(messages.append('restart', { role: 'user', content: 'while down' })),
          outcome(messages.getHistory('restart')),
          outcome(messages.count('restart')),
        ]);
        for (const probe of probes) {
          expect(probe.error).toBeInstanceOf(StoreDatabaseError);
          expect(probe.ms).toBeLessThan(2_500);
        }
        await sleep(1_000);
        const upAt = Date.now();

        server = await restartServer(server);
        const restartedAt = Date.now();
        const recoveryDeadline = restartedAt + 5_000;
        while (!acks.some((ack) => ack.at > restartedAt) && Date.now() < recoveryDeadline) await sleep(50);
        const firstAckAfter = acks.find((ack) => ack.at > restartedAt);
        expect(firstAckAfter).toBeDefined();
        await sleep(500);
        running = false;
        await Promise.all(workers);

        // Nothing was acknowledged while the server was gone, and something failed then.
        expect(acks.filter((ack) => ack.at > downAt && ack.at < upAt)).toEqual([]);
        expect(failures.filter(({ at }) => at > downAt && at < upAt).length).toBeGreaterThan(0);
        // Whatever failed, failed as a StoreDatabaseError: no raw driver error, no other class.
        for (const { error } of failures) {
          expect(error).toBeInstanceOf(StoreError);
          expect(error).toBeInstanceOf(StoreDatabaseError);
        }
        // Once appends succeed again, they keep succeeding.
        expect(failures.filter(({ startedAt }) => startedAt > firstAckAfter!.at).map(({ error }) => classOf(error))).toEqual([]);
        expect(acks.filter((ack) => ack.at > firstAckAfter!.at).length).toBeGreaterThan(0);

        // Every acknowledged append is stored at its sequence number, and the log has no holes.
        const transcript = await messages.getTranscript('restart');
        const bySeq = new Map(transcript.map((m) => [m.seq, m.content]));
        expect(acks.filter((ack) => bySeq.get(ack.seq) !== ack.content)).toEqual([]);
        expect(new Set(acks.map((ack) => ack.seq)).size).toBe(acks.length);
        expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: transcript.length }, (_, i) => i + 1));

        // A server that is not there cannot be reached: StoreUnavailableError (docs/guide/errors.md, store.errors.ts).
        expect(probes.map((probe) => classOf(probe.error))).toEqual(probes.map(() => expect.stringMatching(/^StoreUnavailableError: /)));
      } finally {
        running = false;
        await Promise.all(workers);
        await store?.close();
        uncaught.release();
        await stopServer(server);
      }
      expect(uncaught.errors.map(String)).toEqual([]);
    });
  });
}

// The driver errors the tests above meet when no connection comes free in time,
// as the adapters report them: the reproduction of the classification, without a server.
describe('toStoreError of a pool timeout', () => {
  test("PostgreSQL: pg-pool's connectionTimeoutMillis error (a plain Error, PrismaPg passes it through) is StoreUnavailableError", () => {
    const error = toStoreError(new Error('timeout exceeded when trying to connect'), KITS.postgresql);
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });

  test("MariaDB: the pool's acquireTimeout error (ER_GET_CONNECTION_TIMEOUT 45028, Prisma P2039) is StoreUnavailableError", () => {
    const message = 'pool timeout: failed to retrieve a connection from pool after 500ms\n    (pool connections: active=1 idle=0 limit=1)';
    const cause = { kind: 'mysql', code: 45028, originalCode: '45028', originalMessage: message, message, state: 'HY000' };
    const prismaError = new Prisma.PrismaClientKnownRequestError(`Database error. Code: \`45028\`. Message: \`${message}\``, {
      code: 'P2039',
      clientVersion: '7.10.1',
      meta: { driverAdapterError: new DriverAdapterError(cause as never) },
    });
    expect(toStoreError(prismaError, KITS.mysql)).toBeInstanceOf(StoreUnavailableError);
  });
});
