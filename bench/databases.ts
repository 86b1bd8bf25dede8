// One database engine for a run: where fresh databases come from, the store's
// tables for the references (from the shipped migrations, so that every target
// writes the same rows into the same schema), and the server's facts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mariadb from 'mariadb';
import pg from 'pg';
import { shippedMigrations } from '../src/engine/migration-files.js';
import { mariadbConnection } from '../src/databases/mysql/index.js';
import { startDurableMariaDb, startDurablePostgres, stopServer, type RunningServer } from './servers.js';
import type { Engine } from './targets/target.js';

export interface BenchDatabase {
  engine: Engine;
  label: string;
  /** Server or library version. */
  version: string;
  /** The durability settings every target runs with. */
  settings: string;
  /** A new, empty database. */
  fresh(name: string): Promise<string>;
  /** Creates the store's tables in a fresh database. */
  applyStoreSchema(url: string): Promise<void>;
  close(): Promise<void>;
}

export const LABELS: Record<Engine, string> = { sqlite: 'SQLite', postgresql: 'PostgreSQL', mysql: 'MariaDB' };

/** The SQLite settings of the store's own adapter (src/databases/sqlite/sqlite-adapter.ts), given to every SQLite target. */
export const SQLITE_PRAGMAS =
  'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000; PRAGMA secure_delete = ON;';

const migrationSql = (engine: Engine) =>
  shippedMigrations(engine)
    .map((migration) => migration.sql)
    .join('\n');

/** Opens `engine`, starting a throwaway server for it; undefined when its binaries are missing. Closing twice closes once. */
export async function openDatabase(engine: Engine): Promise<BenchDatabase | undefined> {
  const database = await start(engine);
  if (!database) return undefined;
  let closing: Promise<void> | undefined;
  return { ...database, close: () => (closing ??= database.close()) };
}

async function start(engine: Engine): Promise<BenchDatabase | undefined> {
  switch (engine) {
    case 'sqlite':
      return sqliteDatabase();
    case 'postgresql': {
      const server = await startDurablePostgres();
      return server && stopOnFailure(server, postgresDatabase);
    }
    case 'mysql': {
      const server = await startDurableMariaDb();
      return server && stopOnFailure(server, mariadbDatabase);
    }
  }
}

async function stopOnFailure(server: RunningServer, open: (server: RunningServer) => Promise<BenchDatabase>): Promise<BenchDatabase> {
  try {
    return await open(server);
  } catch (error) {
    await stopServer(server);
    throw error;
  }
}

function sqliteDatabase(): BenchDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-bench-sqlite-'));
  const probe = new Database(':memory:');
  const version = probe.prepare('SELECT sqlite_version() AS v').get() as { v: string };
  probe.close();
  return {
    engine: 'sqlite',
    label: LABELS.sqlite,
    version: `SQLite ${version.v} (better-sqlite3)`,
    settings: "WAL, synchronous=NORMAL, foreign_keys=ON, secure_delete=ON (the store adapter's pragmas, set on every target's connection)",
    fresh: async (name) => `file:${join(dir, `${name}.db`)}`,
    async applyStoreSchema(url) {
      const db = new Database(url.slice('file:'.length));
      try {
        db.exec(SQLITE_PRAGMAS);
        db.exec(migrationSql('sqlite'));
      } finally {
        db.close();
      }
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `serverUrl` naming `database` instead. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function postgresDatabase(server: RunningServer): Promise<BenchDatabase> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  const { rows } = await admin.query<{ server_version: string }>('SHOW server_version');
  return {
    engine: 'postgresql',
    label: LABELS.postgresql,
    version: `PostgreSQL ${rows[0].server_version}`,
    settings: 'fsync=on, synchronous_commit=on (the defaults), loopback TCP; ANALYZE after each bulk load',
    async fresh(name) {
      await admin.query(`CREATE DATABASE bench_${name}`);
      return withDatabase(server.url, `bench_${name}`);
    },
    applyStoreSchema: (url) => applyServerSchema('postgresql', url),
    async close() {
      // Closed pools' backends take a moment to exit; stopping the server under them would
      // make their clients report errors nobody listens to any more.
      await settle(async () => {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname IS NOT NULL',
        );
        return rows[0].n;
      });
      // The server is stopped whatever state its connection is in.
      await admin.end().catch(() => {});
      await stopServer(server);
    },
  };
}

async function mariadbDatabase(server: RunningServer): Promise<BenchDatabase> {
  const admin = await mariadb.createConnection({ ...mariadbConnection(server.url), database: undefined });
  const [{ version }] = (await admin.query('SELECT VERSION() AS version')) as { version: string }[];
  return {
    engine: 'mysql',
    label: LABELS.mysql,
    version: `MariaDB ${version}`,
    settings: 'innodb_flush_log_at_trx_commit=1 (the default: every commit flushed), binary log off, loopback TCP; ANALYZE TABLE after each bulk load',
    async fresh(name) {
      // The store's tables set their own binary collation; the database default is the one the tests use.
      await admin.query(`CREATE DATABASE bench_${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      return withDatabase(server.url, `bench_${name}`);
    },
    applyStoreSchema: (url) => applyServerSchema('mysql', url),
    async close() {
      await settle(async () =>
        Number(
          (
            (await admin.query("SELECT COUNT(*) AS n FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND user <> 'system user'")) as {
              n: bigint;
            }[]
          )[0].n,
        ),
      );
      await admin.end().catch(() => {});
      await stopServer(server);
    },
  };
}

/** Creates the store's tables, from the shipped migrations, in a fresh database of a server. */
export async function applyServerSchema(engine: 'postgresql' | 'mysql', url: string): Promise<void> {
  if (engine === 'postgresql') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(migrationSql('postgresql'));
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mariadb.createConnection({ ...mariadbConnection(url), multipleStatements: true });
  try {
    await connection.query(migrationSql('mysql'));
  } finally {
    await connection.end();
  }
}

/** Waits (a few seconds at most) until `others` counts no connection but ours; a server that cannot answer has none worth waiting for. */
export async function settle(others: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (await others().catch(() => 0)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
