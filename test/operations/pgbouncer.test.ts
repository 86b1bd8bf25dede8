// PostgreSQL behind PgBouncer in transaction mode (the conformance suite also runs there, see
// test/support/openers.ts): migrations through the pooler, several at once and beside Prisma's
// own lock, and why Prisma's CLI must not go through it; a server that goes away behind the
// pooler is StoreUnavailableError, and comes back.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { schemaPath } from '../../scripts/prisma-layout.js';
import { deployWithPrisma, withSchemaEngine } from '../../scripts/schema-engine.js';
import { shippedMigrations } from '../../src/engine/migration-files.js';
import { StoreUnavailableError } from '../../src/store.errors.js';
import { describeWith, freshPgBouncerUrl, PGBOUNCER, postgresServerUrl } from '../support/databases.js';
import { restartServer, startPgBouncer, startPostgres, stopKeepingData, stopServer, type RunningServer } from '../support/test-servers.js';
import { dbMigrate } from '../support/openers.js';
import { storeApp } from '../support/store-app.js';

// `prisma migrate deploy`'s advisory lock, which the store's migrator takes too.
const PRISMA_MIGRATE_LOCK = 72707369;
/** A settled call's error as "Class: message", for assertions that say what failed. */
const named = (call: PromiseSettledResult<unknown>) =>
  call.status === 'fulfilled' ? 'no error' : `${(call.reason as Error).name}: ${(call.reason as Error).message}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same database on the PostgreSQL server, not through PgBouncer. */
async function direct(url: string): Promise<string> {
  const server = new URL(await postgresServerUrl());
  server.pathname = new URL(url).pathname;
  return server.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const appliedMigrations = (url: string) =>
  withClient(
    url,
    async (client) =>
      (await client.query('SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name')).rows as {
        migration_name: string;
        finished_at: Date | null;
      }[],
  );

describeWith(PGBOUNCER.available, 'PgBouncer unavailable')('[PostgreSQL behind PgBouncer] operations', () => {
  test('three migrators through PgBouncer at once, on a new database: each migration applied once', async () => {
    const url = await freshPgBouncerUrl();
    await Promise.all([dbMigrate(url), dbMigrate(url), dbMigrate(url)]);
    const rows = await appliedMigrations(await direct(url));
    expect(rows.map((row) => row.migration_name)).toEqual(shippedMigrations('postgresql').map((file) => file.name));
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
    const app = await storeApp({ url, migrate: true });
    try {
      await app.messages.append('t', { role: 'user', content: 'works' });
      expect((await app.messages.getHistory('t')).map((message) => message.content)).toEqual(['works']);
    } finally {
      await app.close();
    }
  });

  test('a migration through PgBouncer waits while `prisma migrate deploy` holds its lock on a direct connection', async () => {
    const url = await freshPgBouncerUrl();
    await withClient(await direct(url), async (prismaMigrate) => {
      await prismaMigrate.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
      let finished = false;
      const migrating = dbMigrate(url).then(() => (finished = true));
      await sleep(1_000);
      expect(finished).toBe(false);
      await prismaMigrate.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]);
      await migrating;
    });
    expect(await appliedMigrations(await direct(url))).toHaveLength(shippedMigrations('postgresql').length);
  });

  test("why Prisma's CLI needs a direct connection: through PgBouncer, its session lock outlives it on a server connection", async () => {
    const url = await freshPgBouncerUrl();
    const applied = await withSchemaEngine(schemaPath('postgresql'), new PrismaPg({ connectionString: url }), (engine) =>
      deployWithPrisma(engine, 'postgresql'),
    );
    expect(applied).toEqual(shippedMigrations('postgresql').map((file) => file.name));
    const held = await withClient(
      await direct(url),
      async (client) =>
        (
          await client.query(
            "SELECT count(*)::int AS held FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted AND d.datname = current_database()",
            [PRISMA_MIGRATE_LOCK],
          )
        ).rows[0].held,
    );
    expect(held).toBe(1);
  });

  test("a migration refuses, rather than waits for ever, a lock left behind by an idle session, saying to run Prisma's CLI on a direct connection", async () => {
    const url = await freshPgBouncerUrl();
    await withClient(await direct(url), async (leftBehind) => {
      await leftBehind.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK]);
      const started = Date.now();
      const refused = await Promise.race([
        dbMigrate(url).then(
          () => 'migrated',
          (error: Error) => error,
        ),
        sleep(20_000).then(() => 'still waiting after 20 s'),
      ]);
      expect(String(refused)).toMatch(/held by a session idle for \d+ s.*run Prisma's CLI on a direct connection to PostgreSQL/);
      expect(Date.now() - started).toBeGreaterThan(5_000);
      await leftBehind.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK]);
    });
    await dbMigrate(url);
    expect(await appliedMigrations(await direct(url))).toHaveLength(shippedMigrations('postgresql').length);
  });
});

describeWith(PGBOUNCER.available, 'PgBouncer unavailable')('[PostgreSQL behind PgBouncer] a server restart behind the pooler', () => {
  let server: RunningServer | undefined;
  let pooler: RunningServer | undefined;
  afterAll(async () => {
    if (pooler) await stopServer(pooler);
    if (server) await stopServer(server);
  });

  test('while the server is down, calls fail with StoreUnavailableError (PgBouncer says so as a protocol error); once it is back, they work', async () => {
    server = await startPostgres();
    // A query waits for a server up to query_wait_timeout (120 s by default), as docs/databases/scaling.md says to lower; and
    // a failed login is retried after 1 s rather than 15: the test waits for the server to come back, not for PgBouncer.
    pooler = await startPgBouncer(server!.url, ['query_wait_timeout = 2', 'server_login_retry = 1']);
    await withClient(server!.url, (client) => client.query('CREATE DATABASE agent_store_restart'));
    const url = new URL(pooler!.url);
    url.pathname = '/agent_store_restart';
    const store = await storeApp({ url: url.toString(), migrate: true, pool: { max: 4, connectionTimeoutMs: 1_000 } });
    try {
      await store.messages.append('restart', { role: 'user', content: 'before' });
      await stopKeepingData(server!);
      // The first call finds the pooled server connection gone, the next ones a server PgBouncer cannot reach.
      for (let i = 0; i < 3; i++) {
        const calls = await Promise.allSettled([
          store.messages.append('restart', { role: 'user', content: 'while down' }),
          store.messages.getHistory('restart'),
          store.messages.count('restart'),
        ]);
        expect(calls.map(named)).toEqual(calls.map(() => expect.stringMatching(/^StoreUnavailableError: the database is unavailable/)));
      }
      server = await restartServer(server!);
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await store.messages.append('restart', { role: 'user', content: 'after' });
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(StoreUnavailableError);
          if (Date.now() > deadline) throw error;
          await sleep(200);
        }
      }
      expect((await store.messages.getTranscript('restart')).map((message) => message.content)).toEqual(['before', 'after']);
    } finally {
      await store.close();
    }
  });
});
