// Erasure: deletes every row of a tenant, in every table, in bounded batches.
import type { TenantErasure } from '../lifecycle.types.js';
import type { StoreDatabase } from './database.js';

export async function eraseTenantRows(_db: StoreDatabase, _tenantId: string, _options: { batchSize: number }): Promise<TenantErasure> {
  throw new Error('eraseTenantRows: not built yet');
}
