// A fresh, empty database per test file on the run's shared servers.
// Nothing here imports the library: the conformance suite's openers build on it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mariadb from 'mariadb';
import pg from 'pg';
import { chosenBackend } from '../legs.js';
import { sharedServerAvailable } from './shared-servers.js';
import { sharedServer } from './servers.js';

/** How long a hook that may be the run's first to ask for a server may take: a Galera cluster can take a minute to start on a loaded machine. */
export const SERVER_START_MS = 180_000;

/** The shared PostgreSQL server's url (started for the run the first time a test asks). */
export const postgresServerUrl = () => sharedServer('postgresql');
/** The shared MariaDB server's url. */
export const mysqlServerUrl = () => sharedServer('mariadb');
/** PgBouncer in transaction mode in front of the shared PostgreSQL server. */
export const pgbouncerUrl = () => sharedServer('pgbouncer');
/** A PostgreSQL primary and a hot standby streaming from it. */
export const replicationUrls = async () => {
  const [primary, replica] = (await sharedServer('replication')).split(',');
  return { primary, replica };
};
/** The nodes of a MariaDB Galera cluster, a url each. */
export const galeraNodeUrls = async () => (await sharedServer('galera')).split(',');

/** A SQLite file in a new temporary directory (created on first open). */
export const tempSqliteUrl = (name = 'store.db') => `file:${join(mkdtempSync(join(tmpdir(), 'agent-store-')), name)}`;

const freshName = () => `agent_store_test_${randomBytes(6).toString('hex')}`;

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function freshPostgresUrl(serverUrl?: string): Promise<string> {
  serverUrl ??= await postgresServerUrl();
  const name = freshName();
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

export async function freshMysqlUrl(serverUrl?: string): Promise<string> {
  serverUrl ??= await mysqlServerUrl();
  const name = freshName();
  // The connector reads its own mariadb:// form of the url.
  const connection = await mariadb.createConnection(serverUrl.replace(/^mysql:/, 'mariadb:'));
  try {
    await connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  return withDatabase(serverUrl, name);
}

/** A new database on the Galera cluster, created through its first node (Galera creates it on every node): its url on each node. */
export async function freshGaleraUrls(): Promise<string[]> {
  const nodes = await galeraNodeUrls();
  const { pathname } = new URL(await freshMysqlUrl(nodes[0]));
  return nodes.map((url) => withDatabase(url, pathname.slice(1)));
}

/** A new database on the replicated PostgreSQL, created on the primary (the standby replays it): its url on each. */
export async function freshReplicatedUrls(): Promise<{ primary: string; replica: string }> {
  const servers = await replicationUrls();
  const primary = await freshPostgresUrl(servers.primary);
  return { primary, replica: withDatabase(servers.replica, new URL(primary).pathname.slice(1)) };
}

/** A new database, created on the PostgreSQL server directly (PgBouncer passes no CREATE DATABASE of its own): its url through PgBouncer. */
export async function freshPgBouncerUrl(): Promise<string> {
  return withDatabase(await pgbouncerUrl(), new URL(await freshPostgresUrl()).pathname.slice(1));
}

/** `describe` when what it needs is installed; otherwise a skipped block whose name says why (the global setup already warned, and fails under CI). */
export const describeWith = (available: unknown, why: string) =>
  available ? describe : (title: string, fn: () => void) => describe.skip(`${title} (${why}: skipped)`, fn);

export interface TestDatabase {
  provider: 'sqlite' | 'postgresql' | 'mysql';
  label: 'SQLite' | 'PostgreSQL' | 'PostgreSQL behind PgBouncer' | 'PostgreSQL with a replica' | 'MariaDB' | 'MariaDB Galera';
  available: boolean;
  /** A new, empty database (not yet migrated). */
  freshUrl(): Promise<string>;
  /** Starts the run's shared server under it, if no test has yet (SQLite: nothing to start). */
  server(): Promise<unknown>;
}

export const SQLITE: TestDatabase = {
  provider: 'sqlite',
  label: 'SQLite',
  available: true,
  freshUrl: async () => tempSqliteUrl(),
  server: async () => undefined,
};
export const POSTGRESQL: TestDatabase = {
  provider: 'postgresql',
  label: 'PostgreSQL',
  available: sharedServerAvailable('postgresql'),
  freshUrl: () => freshPostgresUrl(),
  server: postgresServerUrl,
};
export const MARIADB: TestDatabase = {
  provider: 'mysql',
  label: 'MariaDB',
  available: sharedServerAvailable('mariadb'),
  freshUrl: () => freshMysqlUrl(),
  server: mysqlServerUrl,
};
export const DATABASES: TestDatabase[] = [SQLITE, POSTGRESQL, MARIADB];
/** A Galera cluster, through its first node. Not in DATABASES: the conformance suite runs on it (test/support/openers.ts) with the nodes' urls. */
export const GALERA: TestDatabase = {
  provider: 'mysql',
  label: 'MariaDB Galera',
  available: sharedServerAvailable('galera'),
  freshUrl: async () => (await freshGaleraUrls())[0],
  server: galeraNodeUrls,
};

/** PostgreSQL through PgBouncer in transaction mode. Not in DATABASES: the conformance suite runs on it (test/support/openers.ts). */
export const PGBOUNCER: TestDatabase = {
  provider: 'postgresql',
  label: 'PostgreSQL behind PgBouncer',
  available: sharedServerAvailable('pgbouncer'),
  freshUrl: freshPgBouncerUrl,
  server: pgbouncerUrl,
};

/** A PostgreSQL primary with a hot standby, through the primary. Not in DATABASES: the conformance suite runs on it (test/support/openers.ts) with both urls. */
export const REPLICATED: TestDatabase = {
  provider: 'postgresql',
  label: 'PostgreSQL with a replica',
  available: sharedServerAvailable('replication'),
  freshUrl: async () => (await freshReplicatedUrls()).primary,
  server: replicationUrls,
};

/** The backends a run registers blocks for (test/legs.js): TEST_BACKENDS, or a jest project's `globals.testBackends`. */
const chosenWords: string | undefined = process.env.TEST_BACKENDS ?? (globalThis as { testBackends?: string }).testBackends;

/**
 * A describe block named [label] for one backend, if the run chose it: skipped, loudly, when its server is not
 * installed. Its first hook waits for `server` (the block's database's), so that the block's own hooks and tests,
 * with their shorter timeouts, never wait for a server or a cluster to start.
 */
export function describeBackend(label: string, available: boolean, suite: () => void, server: () => Promise<unknown>): void {
  if (!chosenBackend(chosenWords, label)) return;
  describeWith(available, `${label} unavailable`)(`[${label}]`, () => {
    beforeAll(() => server(), SERVER_START_MS);
    suite();
  });
}

/**
 * Runs `suite` once per database (or per one of `databases`), in a describe block named [SQLite], [PostgreSQL] or
 * [MariaDB]. A suite for some databases names them here rather than registering nothing for the others: an empty
 * block may not hold the hook that waits for its server.
 */
export function eachDatabase(suite: (database: TestDatabase) => void, databases: TestDatabase[] = DATABASES): void {
  for (const database of databases) describeBackend(database.label, database.available, () => suite(database), database.server);
}

/** Runs `statements` on `url`'s database, on a connection of its own, outside the code under test. */
export async function runSql(url: string, statements: string[]): Promise<void> {
  if (url.startsWith('file:')) {
    const db = new Database(url.slice('file:'.length));
    try {
      for (const sql of statements) db.exec(sql);
    } finally {
      db.close();
    }
  } else if (url.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mariadb.createConnection(url.replace(/^mysql:/, 'mariadb:'));
    try {
      for (const sql of statements) await connection.query(sql);
    } finally {
      await connection.end();
    }
  }
}
