// StoreMaintenance: checks the options, then runs the job's batches.
import type { StoreDatabase } from '../../engine/database.js';
import { purgeSessions } from './session-purge.js';
import { eraseTenantRows } from './tenant-erasure.js';
import { pruneThreads } from '../messages/index.js';
import { eraseOptionsOf, pruneAllOptionsOf, purgeOptionsOf } from '../../engine/lifecycle-options.js';
import type { EraseTenantOptions, PruneAllOptions, PruneAllReport, PurgeOptions, PurgeReport, TenantErasure } from '../../lifecycle.types.js';
import type { StoreMaintenance } from './store-maintenance.js';
import { idOf } from '../../values/validation.js';

export class PrismaStoreMaintenance implements StoreMaintenance {
  constructor(private readonly db: StoreDatabase) {}

  async pruneTranscripts(options: PruneAllOptions): Promise<PruneAllReport> {
    return pruneThreads(this.db, pruneAllOptionsOf(options));
  }

  async purge(options: PurgeOptions): Promise<PurgeReport> {
    return purgeSessions(this.db, purgeOptionsOf(options));
  }

  async eraseTenant(tenantId: string, options?: EraseTenantOptions): Promise<TenantErasure> {
    return eraseTenantRows(this.db, idOf(tenantId, 'tenantId'), eraseOptionsOf(options));
  }
}
