// Applies the shipped migrations the way `prisma migrate deploy` does, through
// a driver adapter, so it needs no native engine. It records each migration in
// `_prisma_migrations` exactly as Prisma does, so either tool can take over.
import { randomUUID } from 'node:crypto';
import type { ArgType, SqlDriverAdapter, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import { StoreDatabaseError } from '../store.errors.js';
import type { Provider } from './dialect.js';
import { splitStatements, type MigrationFile } from './migration-files.js';

export interface MigrationReport {
  /** Applied by this run. */
  applied: string[];
  /** Applied earlier, file unchanged. */
  unchanged: string[];
  /** Applied earlier, but migration.sql changed since: reported, never re-run. */
  modified: string[];
}

/** A migration is recorded as started but not finished: a person must resolve it, as with Prisma's P3009. */
export class FailedMigrationError extends StoreDatabaseError {
  override name = 'FailedMigrationError';
}

// Prisma's own DDL for its bookkeeping table, per provider.
const MIGRATIONS_TABLE: Record<Provider, string> = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
  postgresql: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`,
  mysql: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             DATETIME(3),
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          DATETIME(3),
    started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
};

const NOW: Record<Provider, string> = { sqlite: 'current_timestamp', postgresql: 'now()', mysql: 'CURRENT_TIMESTAMP(3)' };
// The same advisory lock key as `prisma migrate deploy`, so the two never run at once.
const PG_LOCK = 'SELECT pg_advisory_xact_lock(72707369)';

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/**
 * Applies every pending migration in `files`, in order. On SQLite and
 * PostgreSQL all of it is one transaction: it applies completely or not at all.
 * MySQL commits DDL as it goes; there, as with Prisma, a failure is recorded in
 * `_prisma_migrations` and blocks later runs until resolved.
 */
export async function applyMigrations(adapter: SqlDriverAdapter, provider: Provider, files: MigrationFile[]): Promise<MigrationReport> {
  const session = new Session(await adapter.startTransaction(provider === 'sqlite' ? 'SERIALIZABLE' : undefined), provider);
  try {
    await session.lock();
    await session.run(MIGRATIONS_TABLE[provider]);
    const report = await applyPending(session, files);
    await session.end('COMMIT');
    return report;
  } catch (error) {
    await session.end('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function applyPending(session: Session, files: MigrationFile[]): Promise<MigrationReport> {
  const rows = (await session.rows(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations',
  )) as unknown as AppliedRow[];
  const failed = rows.filter((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed.length > 0) {
    throw new FailedMigrationError(
      `migration ${failed.map((row) => row.migration_name).join(', ')} failed earlier and was never finished; ` +
        'fix the database, then mark it with `prisma migrate resolve`',
    );
  }
  const applied = new Map(rows.filter((row) => row.rolled_back_at === null).map((row) => [row.migration_name, row.checksum]));
  const report: MigrationReport = { applied: [], unchanged: [], modified: [] };
  for (const file of files) {
    const checksum = applied.get(file.name);
    if (checksum === undefined) {
      await session.apply(file);
      report.applied.push(file.name);
    } else {
      (checksum === file.checksum ? report.unchanged : report.modified).push(file.name);
    }
  }
  return report;
}

const STRING: ArgType = { scalarType: 'string', arity: 'scalar' };

class Session {
  constructor(
    private readonly tx: Transaction,
    private readonly provider: Provider,
  ) {}

  async lock(): Promise<void> {
    if (this.provider === 'postgresql') await this.run(PG_LOCK);
    // Prisma's MySQL lock: a named lock held by this connection until RELEASE_LOCK or disconnect.
    if (this.provider === 'mysql') {
      const [row] = await this.rows("SELECT GET_LOCK('prisma_migrate', 600) AS locked");
      if (Number(row?.locked) !== 1) throw new StoreDatabaseError('another migration held the prisma_migrate lock for 10 minutes');
    }
    // SQLite: the transaction began IMMEDIATE, which is the lock.
  }

  async apply(file: MigrationFile): Promise<void> {
    const id = randomUUID();
    const now = NOW[this.provider];
    if (this.provider !== 'mysql') {
      for (const statement of splitStatements(file.sql)) await this.run(statement);
      await this.run(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (${this.params(3)}, ${now}, ${now}, 1)`,
        [id, file.checksum, file.name],
      );
      return;
    }
    await this.run(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ${now}, 0)`,
      [id, file.checksum, file.name],
    );
    try {
      for (const statement of splitStatements(file.sql)) await this.run(statement);
    } catch (error) {
      await this.run('UPDATE _prisma_migrations SET logs = ? WHERE id = ?', [String((error as Error).message ?? error), id]);
      throw error;
    }
    await this.run(`UPDATE _prisma_migrations SET finished_at = ${now}, applied_steps_count = 1 WHERE id = ?`, [id]);
  }

  async run(sql: string, args: string[] = []): Promise<void> {
    await this.tx.executeRaw(this.query(sql, args));
  }

  async rows(sql: string): Promise<Record<string, unknown>[]> {
    const result = await this.tx.queryRaw(this.query(sql, []));
    return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
  }

  async end(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      if (this.provider === 'mysql') await this.rows("SELECT RELEASE_LOCK('prisma_migrate')");
      if (!this.tx.options.usePhantomQuery) await this.run(statement);
    } finally {
      await (statement === 'COMMIT' ? this.tx.commit() : this.tx.rollback());
    }
  }

  private params(count: number): string {
    return Array.from({ length: count }, (_, i) => (this.provider === 'postgresql' ? `$${i + 1}` : '?')).join(', ');
  }

  private query(sql: string, args: string[]): SqlQuery {
    return { sql, args, argTypes: args.map(() => STRING) };
  }
}
