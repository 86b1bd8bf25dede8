// Pruning: deletes the transcript rows that a thread's latest boundary has made unreachable.
import type { PruneAllReport, PruneReport } from '../lifecycle.types.js';
import type { StoreDatabase } from './database.js';

/** Prunes one thread (scoped: only the tenant's). */
export async function pruneThread(_db: StoreDatabase, _threadId: string, _options: { keepRepairs: boolean }, _tenantId?: string): Promise<PruneReport> {
  throw new Error('pruneThread: not built yet');
}

/** Prunes every thread whose latest boundary was written before `compactedBefore`. */
export async function pruneThreads(_db: StoreDatabase, _options: { compactedBefore: Date; tenantId?: string; keepRepairs: boolean }): Promise<PruneAllReport> {
  throw new Error('pruneThreads: not built yet');
}
