// Whether the store can serve: its database answers and its schema is in place.
import { Logger } from '@nestjs/common';
import type { StoreDatabase } from '../data/database.js';
import { shippedMigrations } from '../data/migration-files.js';
import type { ResolvedStoreOptions } from '../store.options.js';

/** The HealthIndicatorResult shape of @nestjs/terminus: `{ [key]: { status, …details } }`. */
export type StoreHealth<Key extends string = string> = Record<Key, { status: 'up' | 'down'; message?: string }>;

const TABLES = ['agent_thread', 'agent_message', 'agent_boundary', 'agent_repair', 'agent_subsession', 'agent_tombstone'];

/**
 * A health indicator for @nestjs/terminus (or anything else), provided by
 * StoreModule: `@Inject(StoreHealthIndicator) store`, then
 * `health.check([() => store.isHealthy()])`. It reports, never throws.
 */
export class StoreHealthIndicator {
  private readonly logger = new Logger('AgentStore');
  /** The migrations a store opened from a url needs; null for a caller's own PrismaClient, whose migrations are the caller's. */
  private readonly migrations: string[] | null;

  constructor(
    private readonly db: StoreDatabase,
    options: ResolvedStoreOptions,
  ) {
    this.migrations = options.source === 'url' ? shippedMigrations(options.kit.provider).map((migration) => migration.name) : null;
  }

  /** `up` when the database answers and the store's schema is there; `down` with a short reason otherwise (the details are logged, not returned). */
  async isHealthy<const Key extends string = 'agentStore'>(key: Key = 'agentStore' as Key): Promise<StoreHealth<Key>> {
    const problem = await this.problem();
    return { [key]: problem === undefined ? { status: 'up' } : { status: 'down', message: problem } } as StoreHealth<Key>;
  }

  private async problem(): Promise<string | undefined> {
    try {
      await this.db.client.$queryRawUnsafe('SELECT 1');
    } catch (error) {
      this.logger.warn(`health check: the database does not answer: ${(error as Error).message}`);
      return 'the database does not answer';
    }
    try {
      return this.migrations === null ? await this.tablesProblem() : await this.migrationsProblem(this.migrations);
    } catch (error) {
      this.logger.warn(`health check: the store's schema cannot be read: ${(error as Error).message}`);
      return "the store's tables are missing: apply its migrations";
    }
  }

  private async migrationsProblem(expected: string[]): Promise<string | undefined> {
    const rows = await this.db.client.$queryRawUnsafe<{ migration_name: string }[]>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(rows.map((row) => row.migration_name));
    const missing = expected.filter((name) => !applied.has(name));
    return missing.length > 0 ? `migrations not applied: ${missing.join(', ')}` : undefined;
  }

  private async tablesProblem(): Promise<undefined> {
    for (const table of TABLES) await this.db.client.$queryRawUnsafe(`SELECT 1 FROM ${table} WHERE 1 = 0`);
    return undefined;
  }
}
