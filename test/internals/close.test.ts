// Closing the module releases every connection the store opened, also when
// every call took a fast path and Prisma's client never ran a query.
import mariadb from 'mariadb';
import pg from 'pg';
import { describeWith, MARIADB, mysqlServerUrl, POSTGRESQL, postgresServerUrl, freshMysqlUrl, freshPostgresUrl } from '../support/databases.js';
import { storeApp } from '../support/store-app.js';

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** Polls `count` until it is 0 (a server notices a closed socket a moment later), or gives up with its last value. */
async function settled(count: () => Promise<number>): Promise<number> {
  let last = await count();
  for (let tries = 0; last > 0 && tries < 40; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await count();
  }
  return last;
}

type App = Awaited<ReturnType<typeof storeApp>>;

/**
 * Opens a store on `url`, lets `work` use only fast paths, closes it, and
 * returns the connections left to that database. When `work` makes calls, their
 * connections are seen open first, so that a count of 0 is no accident.
 */
async function connectionsLeftAfter(url: string, work: ((app: App) => Promise<unknown>) | undefined, count: () => Promise<number>) {
  const app = await storeApp({ url });
  try {
    if (work) {
      await work(app);
      expect(await count()).toBeGreaterThan(0);
    }
  } finally {
    await app.close();
  }
  return settled(count);
}

const fastOnly: [string, ((app: App) => Promise<unknown>) | undefined][] = [
  ['no call at all', undefined],
  ['only reads', (app) => Promise.all([app.messages.getHistory('t'), app.messages.count('t')])],
  ['only appends', (app) => app.messages.append('t', { role: 'user', content: 'a' })],
];

describeWith(POSTGRESQL.available, 'no PostgreSQL')('PostgreSQL', () => {
  test.each(fastOnly)('after %s, no connection is left', async (_name, work) => {
    const url = await freshPostgresUrl();
    const admin = new pg.Client({ connectionString: await postgresServerUrl() });
    await admin.connect();
    try {
      const count = async () => Number((await admin.query('SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = $1', [databaseOf(url)])).rows[0].n);
      expect(await connectionsLeftAfter(url, work, count)).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

describeWith(MARIADB.available, 'no MariaDB')('MariaDB', () => {
  test.each(fastOnly)('after %s, no connection is left', async (_name, work) => {
    const url = await freshMysqlUrl();
    const admin = await mariadb.createConnection((await mysqlServerUrl()).replace(/^mysql:/, 'mariadb:'));
    try {
      const count = async () =>
        Number(((await admin.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?', [databaseOf(url)])) as { n: bigint }[])[0].n);
      expect(await connectionsLeftAfter(url, work, count)).toBe(0);
    } finally {
      await admin.end();
    }
  });
});
