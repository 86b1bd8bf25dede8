// Applies the shipped migrations the way `prisma migrate deploy` does, through
// a driver adapter, so it needs no native engine. It records each migration in
// `_prisma_migrations` exactly as Prisma does, so either tool can take over.
import { randomUUID } from 'node:crypto';
import type { ArgType, SqlDriverAdapter, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import { StoreDatabaseError } from '../store.errors.js';
import { spelled } from './adapter-statement.js';
import type { MigrationSteps, ProviderKit } from './provider-kit.js';
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
  /** The class's name, `'FailedMigrationError'`. */
  override name = 'FailedMigrationError';
}

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
export async function applyMigrations(
  adapter: SqlDriverAdapter,
  kit: Pick<ProviderKit, 'migrations' | 'dialect'>,
  files: MigrationFile[],
): Promise<MigrationReport> {
  const steps = kit.migrations;
  const setting = (sql: string) => adapter.executeRaw({ sql, args: [], argTypes: [] });
  if (steps.around) await setting(steps.around.before);
  try {
    const session = new Session(await adapter.startTransaction(steps.isolation), steps, kit.dialect.placeholder);
    try {
      await steps.lock(session.tx);
      await session.run(steps.bookkeepingTable);
      const report = await applyPending(session, files);
      await steps.verify?.(session.tx);
      await session.end('COMMIT');
      return report;
    } catch (error) {
      await session.end('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    if (steps.around) await setting(steps.around.after);
  }
}

async function applyPending(session: Session, files: MigrationFile[]): Promise<MigrationReport> {
  const rows = (await session.rows('SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations')) as unknown as AppliedRow[];
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
    readonly tx: Transaction,
    private readonly steps: MigrationSteps,
    private readonly placeholder: (index: number) => string,
  ) {}

  async apply(file: MigrationFile): Promise<void> {
    const id = randomUUID();
    const { now } = this.steps;
    if (!this.steps.ddlCommits) {
      for (const statement of splitStatements(file.sql)) await this.run(statement);
      await this.record(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES (?, ?, ?, ${now}, ${now}, 1)`,
        [id, file.checksum, file.name],
      );
      return;
    }
    await this.record(`INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ${now}, 0)`, [
      id,
      file.checksum,
      file.name,
    ]);
    try {
      for (const statement of splitStatements(file.sql)) await this.run(statement);
    } catch (error) {
      await this.record(`UPDATE _prisma_migrations SET logs = ? WHERE id = ?`, [String((error as Error).message ?? error), id]);
      throw error;
    }
    await this.record(`UPDATE _prisma_migrations SET finished_at = ${now}, applied_steps_count = 1 WHERE id = ?`, [id]);
  }

  /** A statement of the bookkeeping table's, its `?` spelled as the database's parameters. */
  async record(sql: string, args: string[]): Promise<void> {
    await this.run(spelled(sql, this.placeholder), args);
  }

  /** A statement as written (a migration's statements are never rewritten). */
  async run(sql: string, args: string[] = []): Promise<void> {
    await this.tx.executeRaw(this.query(sql, args));
  }

  async rows(sql: string): Promise<Record<string, unknown>[]> {
    const result = await this.tx.queryRaw(this.query(sql, []));
    return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
  }

  async end(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.steps.unlock(this.tx);
      if (!this.tx.options.usePhantomQuery) await this.run(statement);
    } finally {
      await (statement === 'COMMIT' ? this.tx.commit() : this.tx.rollback());
    }
  }

  private query(sql: string, args: string[]): SqlQuery {
    return { sql, args, argTypes: args.map(() => STRING) };
  }
}
