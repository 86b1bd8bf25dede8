// The boot check of an application's own PrismaClient, whose migrations are
// the application's: every table and column of the store's models must be in
// its database, or the store fails at start-up saying which are missing
// instead of failing its first call. An integration's tables (LangGraph's) are
// checked when its provider starts, so an app that does not use it need not have them. A query of a table's columns that reads
// no row fails the same way on every database when one is missing (the
// adapters call it TableDoesNotExist or ColumnNotFound); only then is each
// column tried alone, to name them all.
import type { ProviderKit } from './provider-kit.js';
import { StoreConfigurationError } from '../store.errors.js';
import { adapterFailureOf, toStoreError } from './db-errors.js';
import { tablesOf, type TablePart } from './store-models.js';

/** What the check needs of a Prisma client (an extended one too). */
export interface RawQueryClient {
  $queryRawUnsafe(query: string): Promise<unknown>;
}

type Missing = 'TableDoesNotExist' | 'ColumnNotFound';

const OWNERS: Record<TablePart, string> = { store: "the store's", langgraph: "LangGraphCheckpointer's" };

/**
 * Resolves when the database has every table and column of `part`'s models.
 * Throws StoreConfigurationError naming those it lacks and what to do; any
 * other failure of the database as the StoreError toStoreError makes of it.
 */
export async function checkStoreSchema(client: RawQueryClient, kit: ProviderKit, part: TablePart = 'store'): Promise<void> {
  const tables: string[] = [];
  const columns: string[] = [];
  for (const { table, columns: all } of tablesOf(part)) {
    const missing = await missingIn(client, kit, table, all);
    if (missing === 'TableDoesNotExist') tables.push(table);
    if (missing !== 'ColumnNotFound') continue;
    for (const column of all) if (await missingIn(client, kit, table, [column])) columns.push(`${table}.${column}`);
  }
  if (tables.length === 0 && columns.length === 0) return;
  const lacks = [tables.length > 0 && `tables ${tables.join(', ')}`, columns.length > 0 && `columns ${columns.join(', ')}`].filter(Boolean).join('; ');
  throw new StoreConfigurationError(
    `the database of the PrismaClient given to StoreModule lacks ${OWNERS[part]} ${lacks}. ` +
      `Add the store's models to your schema (npx nestjs-agent-store prisma-models --provider ${kit.provider} --merge prisma/schema.prisma), ` +
      'then create and apply a migration with them (prisma migrate dev; prisma migrate deploy where you deploy)',
  );
}

async function missingIn(client: RawQueryClient, kit: ProviderKit, table: string, columns: string[]): Promise<Missing | undefined> {
  try {
    // The names are the models' own: lower-case snake case, never keywords, so no quoting on any database.
    await client.$queryRawUnsafe(`SELECT ${columns.join(', ')} FROM ${table} WHERE 1 = 0`);
    return undefined;
  } catch (error) {
    const kind = adapterFailureOf(error)?.kind;
    if (kind === 'TableDoesNotExist' || kind === 'ColumnNotFound') return kind;
    throw toStoreError(error, kit);
  }
}
