// A server that refuses the store (a wrong password, a database it may not use
// or that does not exist) is reported at once with its reason, on PostgreSQL and
// MariaDB alike: a StoreUnavailableError, as for any database the store cannot
// reach. And nothing that may be a secret is printed on the way: not in the
// error or its causes, not by Nest when the boot fails, not by `npm run db:migrate`.
// (The shared test servers trust every login: PostgreSQL's wrong password needs a
// server of its own, which asks for one.)
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import mariadb, { type Connection } from 'mariadb';
import { StoreUnavailableError } from '../../src/store.errors.js';
import { describeWith, freshMysqlUrl, MARIADB, mysqlServerUrl } from '../support/databases.js';
import { hasPostgresBinaries, startPostgres, stopServer, type RunningServer } from '../support/test-servers.js';
import { runFixture, runTypeScript } from '../support/processes.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const RIGHT_PASSWORD = 'Right-Pa55-word';
/** A piece of every secret some url below carries (each password has Pa55 in it); none may be printed. */
const SECRETS = ['Pa55', 'Us3rinfo', 'Qu3ry', 'Tok3n'];
const SECRET_PARAMETERS = 'password=Qu3ry-Pa55&token=Tok3n-Val&sslpassword=Ssl-Pa55';
/** The store waits this long for a connection by default: failing well within it is failing at once. */
const AT_ONCE_MS = 3_000;

interface Refusal {
  name: string;
  url(): string;
  /** The server's reason, as the error must name it. */
  reason: RegExp;
}

/** Everything an error can print: util.inspect of it (every property, every cause), and each message and stack down its cause chain. */
function everythingSaid(error: unknown): string {
  const said = [inspect(error, { depth: Infinity, showHidden: true })];
  for (let each = error as { message?: unknown; stack?: unknown; cause?: unknown } | undefined; each; each = each.cause as typeof each) {
    said.push(String(each.message), String(each.stack));
  }
  return said.join('\n');
}

function expectNoSecret(text: string): void {
  expect(SECRETS.filter((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret)))).toEqual([]);
}

async function settled<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const started = Date.now();
  try {
    return { value: await work(), ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

function expectRefusedAtOnce(outcome: { error?: unknown; ms: number }, reason: RegExp): void {
  expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
  expect((outcome.error as Error).message).toMatch(reason);
  expect(outcome.ms).toBeLessThan(AT_ONCE_MS);
  expectNoSecret(everythingSaid(outcome.error));
}

/** The tests every refusal gets, on either database. */
function refusalSuite(refusals: () => Refusal[], names: string[]): void {
  describe.each(names)('%s', (name) => {
    const refusal = () => refusals().find((each) => each.name === name)!;

    test('a boot that migrates fails at once with StoreUnavailableError, naming the reason, printing no secret', async () => {
      const outcome = await settled(() => storeApp({ url: refusal().url(), migrate: true }));
      await outcome.value?.close();
      expectRefusedAtOnce(outcome, refusal().reason);
    });

    test('booted without migrating, the store fails each call at once, on the fast paths and through Prisma alike', async () => {
      const booted = await settled(() => storeApp({ url: refusal().url(), migrate: false }));
      expect(booted.ms).toBeLessThan(AT_ONCE_MS);
      const store = booted.value!;
      try {
        expectRefusedAtOnce(await settled(() => store.messages.append('t', { role: 'user', content: 'a' })), refusal().reason);
        expectRefusedAtOnce(await settled(() => store.messages.getTranscript('t')), refusal().reason);
      } finally {
        await store.close();
      }
    });
  });

  test('a failed boot as Nest prints it, and `npm run db:migrate`, name the reason and print no secret', async () => {
    const { url: urlOf, reason } = refusals()[0];
    const url = urlOf();
    const [boot, migrate] = await Promise.all([runFixture('boot-store.ts', [url]), runTypeScript('scripts/db-migrate.ts', [], { env: { DATABASE_URL: url } })]);
    for (const run of [boot, migrate]) {
      expect(run.code).toBe(1);
      expect(`${run.stdout}${run.stderr}`).toMatch(reason);
      expectNoSecret(`${run.stdout}${run.stderr}`);
    }
    expect(`${boot.stdout}${boot.stderr}`).toContain('StoreUnavailableError');
  });
}

describeWith(hasPostgresBinaries(), 'PostgreSQL binaries missing')('[PostgreSQL] refusals', () => {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startPostgres({ password: RIGHT_PASSWORD });
  });
  afterAll(async () => {
    if (server) await stopServer(server);
  });
  const at = (userinfo: string, database: string, parameters: string) => {
    const url = new URL(server!.url);
    return `postgresql://${userinfo}@${url.host}/${database}?${parameters}`;
  };

  refusalSuite(
    () => [
      // node-postgres takes a password parameter over the url's own.
      {
        name: 'a wrong password in a query parameter',
        url: () => at('postgres:Us3rinfo-Pa55', 'postgres', SECRET_PARAMETERS),
        reason: /password authentication failed for user "postgres"/,
      },
      {
        name: 'an unknown database',
        url: () => at(`postgres:${RIGHT_PASSWORD}`, 'no_such_db', 'token=Tok3n-Val'),
        reason: /database "no_such_db" does not exist/,
      },
    ],
    ['a wrong password in a query parameter', 'an unknown database'],
  );
});

describeWith(MARIADB.available, 'MariaDB unavailable')('[MariaDB] refusals', () => {
  const user = `app_${randomBytes(4).toString('hex')}`;
  let database = '';
  let root: Connection;
  let server: URL;
  const at = (userinfo: string, name: string, parameters = SECRET_PARAMETERS) => `mysql://${userinfo}@${server.host}/${name}?${parameters}`;

  beforeAll(async () => {
    server = new URL(await mysqlServerUrl());
    database = new URL(await freshMysqlUrl()).pathname.slice(1);
    root = await mariadb.createConnection({ host: server.hostname, port: Number(server.port), user: 'root' });
    await root.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${RIGHT_PASSWORD}'`);
    await root.query(`GRANT ALL ON ${database}.* TO '${user}'@'%'`);
    await root.query(`CREATE USER '${user}_locked'@'%' IDENTIFIED BY '${RIGHT_PASSWORD}' ACCOUNT LOCK`);
    await root.query(`GRANT ALL ON ${database}.* TO '${user}_locked'@'%'`);
    await root.query(`CREATE USER '${user}_expired'@'%' IDENTIFIED BY '${RIGHT_PASSWORD}' PASSWORD EXPIRE`);
    await root.query(`GRANT ALL ON ${database}.* TO '${user}_expired'@'%'`);
  });
  afterAll(async () => {
    for (const each of [user, `${user}_locked`, `${user}_expired`]) await root.query(`DROP USER IF EXISTS '${each}'@'%'`);
    await root.end();
  });

  refusalSuite(
    () => [
      { name: 'a wrong password', url: () => at(`${user}:Us3rinfo-Pa55`, database), reason: new RegExp(`Access denied for user '${user}'`) },
      // The url's last `@` ends its userinfo: the `@` before it belongs to the (wrong) password.
      {
        name: 'a wrong password with an unencoded @',
        url: () => at(`${user}:Us3rinfo@Pa55`, database),
        reason: new RegExp(`Access denied for user '${user}'`),
      },
      {
        name: 'a database the user may not use',
        url: () => at(`${user}:${RIGHT_PASSWORD}`, 'mysql'),
        reason: new RegExp(`Access denied for user '${user}'@'[^']*' to database 'mysql'`),
      },
      { name: 'an unknown database', url: () => at('root', 'no_such_db'), reason: /Unknown database 'no_such_db'/ },
      { name: 'a locked account', url: () => at(`${user}_locked:${RIGHT_PASSWORD}`, database), reason: /this account is locked/ },
      // Let in, but only to change the password: every statement is refused.
      {
        name: 'an expired password',
        url: () => at(`${user}_expired:${RIGHT_PASSWORD}`, database),
        reason: /You must SET PASSWORD before executing this statement/,
      },
    ],
    [
      'a wrong password',
      'a wrong password with an unencoded @',
      'a database the user may not use',
      'an unknown database',
      'a locked account',
      'an expired password',
    ],
  );

  test('a running store that loses access fails at once with the reason, and works again once access is back', async () => {
    const store: InternalStoreApp = await storeApp({ url: at(`${user}:${RIGHT_PASSWORD}`, database, 'token=Tok3n-Val'), migrate: true, pool: { max: 2 } });
    try {
      await store.messages.append('lost', { role: 'user', content: 'before' });
      // The password changes and the server drops the store's connections, as a restart would: the pool must open new ones.
      await root.query(`ALTER USER '${user}'@'%' IDENTIFIED BY 'Other-Pa55'`);
      const sessions: { id: number }[] = await root.query('SELECT id FROM information_schema.processlist WHERE user = ?', [user]);
      for (const { id } of sessions) await root.query(`KILL CONNECTION ${Number(id)}`);
      // Until the pool has seen its sockets close, a call may still take one of them and fail on it, as on any restart.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const reason = new RegExp(`Access denied for user '${user}'`);
      expectRefusedAtOnce(await settled(() => store.messages.append('lost', { role: 'user', content: 'refused' })), reason);
      expectRefusedAtOnce(await settled(() => store.messages.getTranscript('lost')), reason);

      await root.query(`ALTER USER '${user}'@'%' IDENTIFIED BY '${RIGHT_PASSWORD}'`);
      await expect(store.messages.append('lost', { role: 'user', content: 'after' })).resolves.toMatchObject({ seq: 2 });
    } finally {
      await store.close();
    }
  });
});
