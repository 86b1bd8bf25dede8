// How migrations record and lock themselves on SQLite, as `prisma migrate deploy` does.
import type { Transaction } from '@prisma/driver-adapter-utils';
import type { MigrationSteps } from '../../engine/provider-kit.js';
import { StoreDatabaseError } from '../../store.errors.js';

export const sqliteMigrations: MigrationSteps = {
  bookkeepingTable: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                    TEXT PRIMARY KEY NOT NULL,
  "checksum"              TEXT NOT NULL,
  "finished_at"           DATETIME,
  "migration_name"        TEXT NOT NULL,
  "logs"                  TEXT,
  "rolled_back_at"        DATETIME,
  "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
  "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`,
  now: 'current_timestamp',
  // BEGIN IMMEDIATE: the file's write lock is the migration lock.
  isolation: 'SERIALIZABLE',
  ddlCommits: false,
  lock: async (_tx: Transaction) => {},
  unlock: async (_tx: Transaction) => {},
  // A migration that redefines a table drops the old one: with foreign keys on, that deletes
  // its rows and cascades into the tables that refer to it. PRAGMA foreign_keys is a no-op in a transaction.
  around: { before: 'PRAGMA foreign_keys = OFF', after: 'PRAGMA foreign_keys = ON' },
  verify: async (tx: Transaction) => {
    const broken = await tx.queryRaw({ sql: 'PRAGMA foreign_key_check', args: [], argTypes: [] });
    if (broken.rows.length > 0)
      throw new StoreDatabaseError(`the migrated database breaks ${broken.rows.length} foreign key reference(s), first in table ${String(broken.rows[0][0])}`);
  },
};
