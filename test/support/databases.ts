// A fresh, empty database per test file on the servers the global setup provides.
import { randomBytes } from 'node:crypto';
import mariadb from 'mariadb';
import pg from 'pg';
import { mariadbConnection } from '../../src/databases/mysql/index.js';
import { storeApp, tempSqliteUrl, type StoreApp } from './store-app.js';

export const postgresServerUrl = process.env.TEST_POSTGRES_URL;
export const mysqlServerUrl = process.env.TEST_MYSQL_URL;

const freshName = () => `agent_store_test_${randomBytes(6).toString('hex')}`;

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function freshPostgresUrl(): Promise<string> {
  if (!postgresServerUrl) throw new Error('TEST_POSTGRES_URL is not set');
  const name = freshName();
  const client = new pg.Client({ connectionString: postgresServerUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(postgresServerUrl, name);
}

export async function freshMysqlUrl(): Promise<string> {
  if (!mysqlServerUrl) throw new Error('TEST_MYSQL_URL is not set');
  const name = freshName();
  const connection = await mariadb.createConnection({ ...mariadbConnection(mysqlServerUrl), database: undefined });
  try {
    await connection.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  return withDatabase(mysqlServerUrl, name);
}

/** `describe` when what it needs is there; otherwise a skipped block whose name says why (the global setup already warned, and fails under CI). */
export const describeWith = (available: unknown, why: string) =>
  available ? describe : (title: string, fn: () => void) => describe.skip(`${title} (${why}: skipped)`, fn);

export interface TestDatabase {
  provider: 'sqlite' | 'postgresql' | 'mysql';
  label: string;
  available: boolean;
  /** A new, empty database (not yet migrated). */
  freshUrl(): Promise<string>;
}

export const DATABASES: TestDatabase[] = [
  { provider: 'sqlite', label: 'SQLite', available: true, freshUrl: async () => tempSqliteUrl() },
  { provider: 'postgresql', label: 'PostgreSQL', available: postgresServerUrl !== undefined, freshUrl: freshPostgresUrl },
  { provider: 'mysql', label: 'MariaDB', available: mysqlServerUrl !== undefined, freshUrl: freshMysqlUrl },
];

/** Runs `suite` once per database, in a describe block named [SQLite], [PostgreSQL] or [MariaDB]. */
export function eachDatabase(suite: (database: TestDatabase) => void): void {
  for (const database of DATABASES) {
    (database.available ? describe : describe.skip)(`[${database.label}]`, () => suite(database));
  }
}

/** The store app of a describe block: opened on a fresh database before its tests, closed after them. */
export function storeFor(database: TestDatabase): StoreApp {
  let app: StoreApp | undefined;
  beforeAll(async () => {
    app = await storeApp({ url: await database.freshUrl() });
  });
  afterAll(() => app?.close());
  return new Proxy({} as StoreApp, {
    get(_target, key) {
      if (!app) throw new Error('the store app opens in beforeAll');
      return app[key as keyof StoreApp];
    },
  });
}
