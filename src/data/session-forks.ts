// Forks: a new session whose history is another's, up to a point, copied in the database.
import type { CheckedFork } from '../lifecycle-options.js';
import type { SessionMeta } from '../session.types.js';
import type { StoreDatabase } from './database.js';

export async function forkSession(_db: StoreDatabase, _sourceId: string, _options: CheckedFork & { id: string }, _tenantId?: string): Promise<SessionMeta> {
  throw new Error('forkSession: not built yet');
}
