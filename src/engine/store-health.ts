// What the health indicator asks the database: does it answer, and is the store's schema in place.
import type { StoreDatabase } from './database.js';
import { tablesOf } from './store-models.js';

/** Why the store cannot serve: `reason` may be shown to anyone; `detail` carries the database's own text, for the log only. */
export interface StoreHealthProblem {
  reason: string;
  detail?: string;
}

/**
 * Undefined when the database answers and the store's schema is in place:
 * each of `migrations` applied (by name, in `_prisma_migrations`), or, when
 * `migrations` is null (a caller's own PrismaClient, whose migrations are the
 * caller's), each of the store's tables readable. Never throws.
 */
export async function storeHealthProblem(db: StoreDatabase, migrations: readonly string[] | null): Promise<StoreHealthProblem | undefined> {
  try {
    await db.client.$queryRawUnsafe('SELECT 1');
  } catch (error) {
    return { reason: 'the database does not answer', detail: `the database does not answer: ${(error as Error).message}` };
  }
  try {
    return migrations === null ? await tablesProblem(db) : await migrationsProblem(db, migrations);
  } catch (error) {
    return { reason: "the store's tables are missing: apply its migrations", detail: `the store's schema cannot be read: ${(error as Error).message}` };
  }
}

async function migrationsProblem(db: StoreDatabase, expected: readonly string[]): Promise<StoreHealthProblem | undefined> {
  const rows = await db.client.$queryRawUnsafe<{ migration_name: string }[]>(
    'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  const missing = expected.filter((name) => !applied.has(name));
  return missing.length > 0 ? { reason: `migrations not applied: ${missing.join(', ')}` } : undefined;
}

async function tablesProblem(db: StoreDatabase): Promise<undefined> {
  for (const { table } of tablesOf('store')) await db.client.$queryRawUnsafe(`SELECT 1 FROM ${table} WHERE 1 = 0`);
  return undefined;
}
