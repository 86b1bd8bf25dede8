// Whether the store can serve: its database answers and its schema is in place.
import { Logger } from '@nestjs/common';
import type { StoreDatabase } from '../../engine/database.js';
import { shippedMigrations } from '../../engine/migration-files.js';
import { storeHealthProblem } from '../../engine/store-health.js';
import { redactText } from '../../values/redact.js';
import type { ResolvedStoreOptions } from '../../engine/resolved-options.js';

/** The HealthIndicatorResult shape of @nestjs/terminus: `{ [key]: { status, …details } }`. */
export type StoreHealth<Key extends string = string> = Record<
  Key,
  {
    /** `'up'` when the database answers and the store's schema is in place; `'down'` otherwise. */
    status: 'up' | 'down';
    /** Why it is down, in short (the details are logged, not returned); absent when it is up. */
    message?: string;
  }
>;

/**
 * A health indicator for @nestjs/terminus (or anything else), provided by
 * StoreModule whether or not the HTTP API is mounted:
 * `@Inject(StoreHealthIndicator) store`, then
 * `health.check([() => store.isHealthy()])`. It reports, never throws.
 */
export class StoreHealthIndicator {
  private readonly logger = new Logger('AgentStore');
  /** The migrations a store opened from a url needs; null for a caller's own PrismaClient, whose migrations are the caller's. */
  private readonly migrations: string[] | null;

  /**
   * StoreModule constructs it from the store's internals; inject it by its class.
   *
   * @internal
   */
  constructor(
    private readonly db: StoreDatabase,
    options: ResolvedStoreOptions,
  ) {
    this.migrations = options.source === 'url' ? shippedMigrations(options.kit.provider).map((migration) => migration.name) : null;
  }

  /** `up` when the database answers and the store's schema is there; `down` with a short reason otherwise (the details are logged, not returned). */
  async isHealthy<const Key extends string = 'agentStore'>(key: Key = 'agentStore' as Key): Promise<StoreHealth<Key>> {
    const problem = await storeHealthProblem(this.db, this.migrations);
    if (problem?.detail !== undefined) this.logger.warn(`health check: ${redactText(problem.detail)}`);
    return { [key]: problem === undefined ? { status: 'up' } : { status: 'down', message: problem.reason } } as StoreHealth<Key>;
  }
}
