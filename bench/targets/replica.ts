// The targets of the replica rows: the store on the primary given the standby
// (StoreModule.forRoot({ url: primary, replicas: [standby], migrate: true })),
// which serves its session lists, exports and transcript pages from the standby
// once it has replayed the store's own last write; and the raw reference
// reading the same rows on the standby itself.
import { bootOurs } from './ours.js';
import { RawPostgres } from './raw-postgres.js';
import type { Target } from './target.js';

export const openStoreWithReplica = async (primary: string, standby: string): Promise<Target> =>
  (await bootOurs({ url: primary, replicas: [standby], migrate: true })).target;

export const openRawOnStandby = (standby: string): Target => new RawPostgres(standby, 'atomic');
