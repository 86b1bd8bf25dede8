// Expiry: deletes the session trees not written since a date, in bounded batches.
import type { CheckedPurge } from '../lifecycle-options.js';
import type { PurgeReport } from '../lifecycle.types.js';
import type { StoreDatabase } from './database.js';

export async function purgeSessions(_db: StoreDatabase, _options: CheckedPurge): Promise<PurgeReport> {
  throw new Error('purgeSessions: not built yet');
}
