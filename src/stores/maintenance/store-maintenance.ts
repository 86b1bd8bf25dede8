// The StoreMaintenance contract: an operator's calls that bound, expire and erase stored conversations.
// Inject it by its token: `@Inject(StoreMaintenance) maintenance: StoreMaintenance`.
import type { EraseTenantOptions, PruneAllOptions, PruneAllReport, PurgeOptions, PurgeReport, TenantErasure } from '../../lifecycle.types.js';

/**
 * Jobs over many sessions, each in bounded batches (a transaction each) that lock only what they
 * delete, so appends to other sessions go on; each can be run again after a crash and goes on where
 * it stopped. Invalid options are a StoreValidationError and delete nothing.
 */
export interface StoreMaintenance {
  /** MessageStore.pruneTranscript on every thread whose latest compaction or repair was written before `compactedBefore`. */
  pruneTranscripts(options: PruneAllOptions): Promise<PruneAllReport>;

  /**
   * Deletes the session trees (a root session and its subsessions, as deleteTranscript does) none of
   * whose sessions was written at or after `updatedBefore`. A session written while its batch runs
   * either survives whole (with its tree) or is deleted whole: its write then fails with
   * StoreNotFoundError.
   */
  purge(options: PurgeOptions): Promise<PurgeReport>;

  /** Deletes every row that belongs to the tenant, in every table (docs/guide/conversation-life.md says what is kept). */
  eraseTenant(tenantId: string, options?: EraseTenantOptions): Promise<TenantErasure>;
}

/** The injection token of StoreMaintenance, which StoreModule provides: `@Inject(StoreMaintenance) maintenance: StoreMaintenance`. */
export const StoreMaintenance = Symbol('StoreMaintenance');
