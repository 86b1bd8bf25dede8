// Prisma 7's transaction hazards (issue #14, item 6), on PostgreSQL and MariaDB
// servers of the test's own (the tests pause them and hold every COMMIT),
// through the store's public API, on the store's own pool of one connection (a
// url) and on the app's own PrismaClient with a pool of one:
// - prisma/orm#29719: a transaction whose start timed out while its BEGIN was in
//   flight must not go back to the pool inside that BEGIN, where the next call's
//   statements would run uncommitted (or commit with another call's COMMIT).
// - prisma/orm#29952: a transaction timeout that fires while its COMMIT is in
//   flight, or a COMMIT cut off by a killed connection, must not crash the process
//   (a pool connection released twice); the call settles with the commit's outcome
//   or a StoreError, and the pool keeps working.
// The store gives a transaction 30 s, and an app's own client 10 s to start one:
// for those calls Prisma's timers are jest's fake timers, moved past the limit
// while the server holds the statement, so that each test takes a second or two.
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import mariadb from 'mariadb';
import pg from 'pg';
import { migrateUrl } from '../../src/engine/open-database.js';
import { MessageStore, SessionStore, StoreModule, StoreUnavailableError, type StoreModuleOptions } from '../../src/index.js';
import { resolveOptions, type ResolvedStoreOptions } from '../../src/store.options.js';
import { describeWith } from '../support/databases.js';
import { hasMariaDbBinaries, hasPostgresBinaries, startMariaDb, startPostgres, stopServer, type RunningServer } from '../support/test-servers.js';

// Taken before any test fakes the timers: the test's own waits are real.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const sleep = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

/** `promise`, or a failure naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = realSetTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => realClearTimeout(timer));
}

/** Polls `probe` until it returns a non-empty list, for at most `ms`. */
async function until<T>(probe: () => Promise<T[]>, ms: number, what: string): Promise<T[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found.length > 0) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms} ms`);
    await sleep(25);
  }
}

interface Outcome<T> {
  value?: T;
  error?: unknown;
  settled: boolean;
}
interface Pending<T> {
  result: Promise<Outcome<T>>;
  /** Filled in when the promise settles. */
  state: Outcome<T>;
}
/** Settles `promise` into its value or error. */
function outcome<T>(promise: Promise<T>): Pending<T> {
  const state: Outcome<T> = { settled: false };
  const result = promise.then(
    (value) => Object.assign(state, { value, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  );
  return { result, state };
}

/**
 * Prisma's timers (a transaction's maxWait and timeout) as jest's fake timers:
 * only setTimeout and clearTimeout are faked, which the drivers' I/O does not need.
 */
function fakePrismaClock() {
  jest.useFakeTimers({
    doNotFake: [
      'Date',
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
    ],
  });
  return {
    advance: (ms: number) => jest.advanceTimersByTime(ms),
    restore() {
      // Timers set meanwhile (a pool's idle timer, say) run now rather than never.
      jest.runOnlyPendingTimers();
      jest.useRealTimers();
    },
  };
}

/**
 * The real process's uncaught exceptions (a pool client released twice throws
 * inside the driver's socket handler). Jest hands tests a copy of `process`
 * whose 'uncaughtException' never fires; the capture callback is process-wide.
 * An unhandled rejection fails the running test by itself (jest-circus).
 */
function captureUncaught(): { errors: unknown[]; release(): void } {
  const errors: unknown[] = [];
  process.setUncaughtExceptionCaptureCallback((error) => errors.push(error));
  return { errors, release: () => process.setUncaughtExceptionCaptureCallback(null) };
}

/** What the tests ask of a server of their own, by an administrator's connection. */
interface Admin {
  /** A new, empty database; its url. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server from answering the store's connections to `database` until `resume()`. */
  pause(database: string): Promise<{ resume(): void }>;
  /** The connections to `database` that sit inside a transaction between statements. */
  openTransactions(database: string): Promise<unknown[]>;
  /** Makes every COMMIT of a transaction that wrote wait, until releaseCommits(). */
  holdCommits(): Promise<void>;
  releaseCommits(): Promise<void>;
  /** The connections to `database` whose COMMIT waits for holdCommits. */
  waitingCommits(database: string): Promise<number[]>;
  /** Ends a connection from the server's side. */
  kill(connection: number): Promise<void>;
  /** The contents of the thread's messages, in order, read on a connection of the test's own. */
  contents(database: string, threadId: string): Promise<unknown[]>;
  end(): Promise<void>;
}

interface Engine {
  label: string;
  available: boolean;
  start(): Promise<RunningServer | undefined>;
  admin(server: RunningServer): Promise<Admin>;
  /** The app's own driver adapter, with a pool of one connection. */
  ownAdapter(url: string): SqlDriverAdapterFactory;
  /** The generated client of the engine's provider. */
  client(): Promise<{ PrismaClient: new (options: { adapter: SqlDriverAdapterFactory }) => { $disconnect(): Promise<void> } }>;
}

const databaseUrl = (serverUrl: string, database: string) => Object.assign(new URL(serverUrl), { pathname: `/${database}` }).toString();

const POSTGRES: Engine = {
  label: 'PostgreSQL',
  available: hasPostgresBinaries(),
  start: () => startPostgres(),
  async admin(server) {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const rows = async (text: string, args: unknown[] = []) => (await admin.query(text, args)).rows;
    const backends = (database: string, where: string) => rows(`SELECT pid, state, query FROM pg_stat_activity WHERE datname = $1 AND ${where}`, [database]);
    // COMMIT waits for a synchronous standby that never comes; going back to none releases the waiting ones.
    const standbys = async (names: string | null) => {
      await admin.query(names === null ? 'ALTER SYSTEM RESET synchronous_standby_names' : `ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
      await admin.query('SELECT pg_reload_conf()');
      // The checkpointer applies the setting to the waiting backends as it reads the reloaded file.
      await sleep(200);
    };
    return {
      async createDatabase(name) {
        await admin.query(`CREATE DATABASE ${name}`);
        return databaseUrl(server.url, name);
      },
      async pause(database) {
        // The store's backends only: each connection is a process of its own.
        const pids = (await backends(database, 'true')).map((row) => Number(row.pid));
        if (pids.length === 0) throw new Error(`no connection to ${database} to pause`);
        for (const pid of pids) process.kill(pid, 'SIGSTOP');
        return { resume: () => pids.forEach((pid) => process.kill(pid, 'SIGCONT')) };
      },
      openTransactions: (database) => backends(database, "state LIKE 'idle in transaction%'"),
      holdCommits: () => standbys('nobody'),
      releaseCommits: () => standbys(null),
      waitingCommits: async (database) => (await backends(database, "wait_event = 'SyncRep'")).map((row) => Number(row.pid)),
      async kill(pid) {
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      },
      async contents(database, threadId) {
        const reader = new pg.Client({ connectionString: databaseUrl(server.url, database) });
        await reader.connect();
        try {
          const { rows: messages } = await reader.query('SELECT content FROM agent_message WHERE thread_id = $1 ORDER BY seq', [threadId]);
          return messages.map((row) => JSON.parse(row.content as string));
        } finally {
          await reader.end();
        }
      },
      end: () => admin.end(),
    };
  },
  ownAdapter: (url) => new PrismaPg({ connectionString: url, max: 1 }),
  client: () => import('../../src/generated/postgresql/client.js') as never,
};

const MARIADB: Engine = {
  label: 'MariaDB',
  available: hasMariaDbBinaries(),
  start: () => startMariaDb(),
  async admin(server) {
    const { hostname, port } = new URL(server.url);
    const connect = () => mariadb.createConnection({ host: hostname, port: Number(port), user: 'root' });
    const admin = await connect();
    // BACKUP STAGE BLOCK_COMMIT lets statements run and makes every COMMIT of a transaction that wrote wait for it, on a connection of its own.
    const locker = await connect();
    return {
      async createDatabase(name) {
        await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        return databaseUrl(server.url, name);
      },
      async pause() {
        // One process with a thread per connection: the whole server stops.
        process.kill(server.pid, 'SIGSTOP');
        return { resume: () => process.kill(server.pid, 'SIGCONT') };
      },
      openTransactions: (database) =>
        admin.query(
          'SELECT p.id, p.command, t.trx_state FROM information_schema.innodb_trx t JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE p.db = ?',
          [database],
        ),
      async holdCommits() {
        await locker.query('BACKUP STAGE START');
        await locker.query('BACKUP STAGE BLOCK_COMMIT');
      },
      async releaseCommits() {
        await locker.query('BACKUP STAGE END');
      },
      waitingCommits: async (database) =>
        (
          (await admin.query("SELECT id FROM information_schema.processlist WHERE db = ? AND info = 'COMMIT' AND state = 'Waiting for backup lock'", [
            database,
          ])) as { id: bigint }[]
        ).map((row) => Number(row.id)),
      async kill(id) {
        await admin.query(`KILL ${Number(id)}`);
      },
      async contents(database, threadId) {
        const rows = (await admin.query(`SELECT content FROM ${database}.agent_message WHERE thread_id = ? ORDER BY seq`, [threadId])) as { content: string }[];
        return rows.map((row) => JSON.parse(row.content));
      },
      async end() {
        await Promise.all([admin.end(), locker.end()]);
      },
    };
  },
  ownAdapter(url) {
    const { hostname, port, username, pathname } = new URL(url);
    return new PrismaMariaDb({ host: hostname, port: Number(port), user: username, database: pathname.slice(1), connectionLimit: 1 });
  },
  client: () => import('../../src/generated/mysql/client.js') as never,
};

interface App {
  messages: MessageStore;
  sessions: SessionStore;
  close(): Promise<void>;
}

interface Mode {
  label: string;
  open(engine: Engine, url: string): Promise<App>;
}

async function boot(options: StoreModuleOptions, release: () => Promise<void> = async () => {}): Promise<App> {
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot(options)] }).compile();
  await app.init();
  return {
    messages: app.get<MessageStore>(MessageStore),
    sessions: app.get<SessionStore>(SessionStore),
    async close() {
      try {
        await app.close();
      } finally {
        await release();
      }
    },
  };
}

const MODES: Mode[] = [
  {
    label: 'url, pool of one',
    // A transaction waits for a connection (and starts) within the pool's timeout.
    open: (_engine, url) => boot({ url, migrate: true, pool: { max: 1, connectionTimeoutMs: 500 } }),
  },
  {
    label: 'own PrismaClient, pool of one',
    // The store gives a transaction on a client it did not open 10 s to start.
    async open(engine, url) {
      await migrateUrl(resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>, new Logger('test'));
      const { PrismaClient } = await engine.client();
      const prisma = new PrismaClient({ adapter: engine.ownAdapter(url) });
      return boot({ prisma }, () => prisma.$disconnect());
    },
  },
];

/** Past every limit of a store transaction: the time it may wait to start, and the 30 s (and a few ms per row) it may run. */
const PAST_TRANSACTION_LIMITS_MS = 60_000;

const user = (content: string) => ({ role: 'user' as const, content });

for (const engine of [POSTGRES, MARIADB]) {
  describeWith(engine.available, `${engine.label} binaries missing`)(`[${engine.label}] Prisma 7 transaction hazards`, () => {
    let server: RunningServer | undefined;
    let admin: Admin;
    let uncaught: ReturnType<typeof captureUncaught>;
    let databases = 0;

    beforeAll(async () => {
      server = await engine.start();
      if (!server) throw new Error(`${engine.label} did not start`);
      admin = await engine.admin(server);
    });
    afterAll(async () => {
      await admin?.end();
      if (server) await stopServer(server);
    });
    beforeEach(() => {
      uncaught = captureUncaught();
    });
    afterEach(() => {
      uncaught.release();
    });

    /** A store in `mode` on a fresh database; its name beside it. */
    async function open(mode: Mode): Promise<{ app: App; database: string }> {
      const database = `hazards_${++databases}`;
      return { app: await mode.open(engine, await admin.createDatabase(database)), database };
    }

    /** Calls of every kind at once on the pool's one connection all succeed, and leave no transaction open. */
    async function expectPoolWorks(app: App, database: string, threadId: string) {
      const before = await app.messages.count(threadId);
      const calls = await within(
        Promise.all([
          app.messages.append(threadId, user('p1')),
          app.messages.getHistory(threadId),
          app.messages.append(threadId, user('p2')),
          app.sessions.list(),
          app.messages.append(threadId, user('p3')),
        ]),
        10_000,
        'calls after the hazard',
      );
      expect(new Set([calls[0].seq, calls[2].seq, calls[4].seq]).size).toBe(3);
      expect(await app.messages.count(threadId)).toBe(before + 3);
      expect(await admin.openTransactions(database)).toEqual([]);
    }

    for (const mode of MODES) {
      describe(mode.label, () => {
        test('prisma#29719: a transaction whose start timed out with its BEGIN in flight leaves no transaction open; the calls after it commit on their own', async () => {
          const { app, database } = await open(mode);
          try {
            await app.messages.append('a', user('before'));

            // The pool's one connection is idle: the next transaction takes it and sends BEGIN to a server that does not answer.
            const paused = await admin.pause(database);
            const clock = fakePrismaClock();
            let timedOut: Outcome<unknown>;
            try {
              const call = outcome(app.messages.replaceHistory('a', [user('timed out')]));
              // Usually long enough for its BEGIN to reach the server; on a loaded machine Prisma may set its
              // start timer later, so the clock moves past the limit again until the call settles (up to 15 s:
              // 5 s was once too short on CI's Node 24 leg, with the parallel phase loading both cores).
              await sleep(300);
              const deadline = Date.now() + 15_000;
              while (!call.state.settled && Date.now() < deadline) {
                clock.advance(PAST_TRANSACTION_LIMITS_MS);
                await sleep(250);
              }
              timedOut = await within(call.result, 100, 'the transaction whose start timed out, after 15 s of moving the clock,');
            } finally {
              clock.restore();
              paused.resume();
            }
            expect(timedOut.error).toBeInstanceOf(StoreUnavailableError);
            expect(String((timedOut.error as Error).message)).toMatch(/Unable to start a transaction in the given time/);

            // The late BEGIN is answered now, and the connection goes back to the pool: the next call gets it after that.
            // A single statement outside any transaction: inside a leftover BEGIN it would leave the connection in a transaction.
            await within(app.sessions.list(), 5_000, 'a listing after the timeout');
            expect(await admin.openTransactions(database)).toEqual([]);
            // An append (on the url's pool a single statement too) is committed, as a reader of its own sees.
            await within(app.messages.append('a', user('after')), 5_000, 'an append after the timeout');
            expect(await admin.contents(database, 'a')).toEqual(['before', 'after']);
            await expectPoolWorks(app, database, 'a');
            expect(await admin.contents(database, 'a')).not.toContain('timed out');
            expect(uncaught.errors).toEqual([]);
          } finally {
            await app.close();
          }
        });

        test('prisma#29952: the transaction timeout fires while its COMMIT waits: no crash, the call reports the commit, the pool works', async () => {
          const { app, database } = await open(mode);
          try {
            await app.messages.append('b', user('before'));
            await admin.holdCommits();
            let committed: Outcome<unknown>;
            let waited: Outcome<unknown>;
            const clock = fakePrismaClock();
            try {
              let call: Pending<unknown>;
              let waiting: Pending<unknown> | undefined;
              try {
                call = outcome(app.messages.replaceHistory('b', [user('replaced')]));
                await until(() => admin.waitingCommits(database), 5_000, 'the COMMIT waiting');
                clock.advance(PAST_TRANSACTION_LIMITS_MS);
                await sleep(300);
                // The outcome of a COMMIT in flight is unknown: the call waits for it rather than reporting a timeout.
                expect(call.state.settled).toBe(false);
                // Calls that queue meanwhile for the pool's one connection get it once the COMMIT is through:
                // a connection released twice would be lent to two of them at once (prisma#29952's crash).
                waiting = outcome(Promise.all([app.sessions.list(), app.messages.append('b', user('waited')), app.messages.getHistory('b')]));
                await sleep(100);
              } finally {
                await admin.releaseCommits();
              }
              committed = await within(call.result, 5_000, 'the call whose COMMIT was held');
              waited = await within(waiting.result, 5_000, 'the calls that waited for the connection');
            } finally {
              clock.restore();
            }
            expect(committed.error).toBeUndefined();
            expect(waited.error).toBeUndefined();
            expect(await admin.contents(database, 'b')).toEqual(['replaced', 'waited']);
            await expectPoolWorks(app, database, 'b');
            expect(uncaught.errors).toEqual([]);
          } finally {
            await app.close();
          }
        });

        test('a COMMIT cut off (its connection killed while it waits): StoreUnavailableError, all or nothing, no crash, the pool works', async () => {
          const { app, database } = await open(mode);
          try {
            await app.messages.append('c', user('before'));
            await expectCommitCutOff(database, () => app.messages.replaceHistory('c', [user('replaced')]));
            // PostgreSQL commits before it waits for a standby, MariaDB after the wait: either way all or nothing.
            expect([['before'], ['replaced']]).toContainEqual(await admin.contents(database, 'c'));
            await expectPoolWorks(app, database, 'c');
            expect(uncaught.errors).toEqual([]);
          } finally {
            await app.close();
          }
        });
      });
    }

    test("[url] a fast path's COMMIT cut off: StoreUnavailableError, all or nothing, no crash, the pool works", async () => {
      const { app, database } = await open(MODES[0]);
      try {
        await app.messages.append('d', user('before'));
        // A new thread's first append is a transaction of its own on PostgreSQL, as every append is on MariaDB.
        await expectCommitCutOff(database, () => app.messages.append('e', user('new')));
        expect([[], ['new']]).toContainEqual(await admin.contents(database, 'e'));
        await expectPoolWorks(app, database, 'd');
        expect(uncaught.errors).toEqual([]);
      } finally {
        await app.close();
      }
    });

    /** Holds COMMITs, starts `call`, kills its connection while its COMMIT waits, and expects the call to fail as unavailable. */
    async function expectCommitCutOff(database: string, call: () => Promise<unknown>) {
      await admin.holdCommits();
      let settled: Pending<unknown>;
      try {
        settled = outcome(call());
        const [connection] = await until(() => admin.waitingCommits(database), 5_000, 'the COMMIT waiting');
        await admin.kill(connection);
      } finally {
        await admin.releaseCommits();
      }
      const { error } = await within(settled.result, 5_000, 'the call whose COMMIT was cut off');
      expect(error).toBeInstanceOf(StoreUnavailableError);
    }
  });
}
