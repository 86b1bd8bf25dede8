// How migrations record and lock themselves on MySQL and MariaDB (and a Galera cluster), as `prisma migrate deploy` does.
import type { Transaction } from '@prisma/driver-adapter-utils';
import { sql } from '../../engine/adapter-statement.js';
import type { MigrationSteps } from '../../engine/provider-kit.js';
import { StoreDatabaseError } from '../../store.errors.js';
import { isGaleraNode, lockCluster, unlockCluster } from './galera.js';

export const mysqlMigrations: MigrationSteps = {
  bookkeepingTable: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
  id                      VARCHAR(36) PRIMARY KEY NOT NULL,
  checksum                VARCHAR(64) NOT NULL,
  finished_at             DATETIME(3),
  migration_name          VARCHAR(255) NOT NULL,
  logs                    TEXT,
  rolled_back_at          DATETIME(3),
  started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  now: 'CURRENT_TIMESTAMP(3)',
  isolation: undefined,
  // DDL commits as it goes: as Prisma does, a migration is recorded as started, then as finished.
  ddlCommits: true,
  // Prisma's MySQL lock: a named lock held by this connection until RELEASE_LOCK or disconnect. A Galera
  // node holds such a lock for itself alone: there, first a lock all the cluster's nodes see, then Prisma's
  // too, which `prisma migrate deploy` on the same node takes.
  async lock(tx: Transaction) {
    if (await isGaleraNode(async (statement) => (await tx.queryRaw(sql(statement, []))).rows)) await lockCluster(tx);
    const { rows } = await tx.queryRaw(sql("SELECT GET_LOCK('prisma_migrate', 600) AS locked", []));
    if (Number(rows[0]?.[0]) !== 1) throw new StoreDatabaseError('another migration held the prisma_migrate lock for 10 minutes');
  },
  async unlock(tx: Transaction) {
    try {
      await tx.queryRaw(sql("SELECT RELEASE_LOCK('prisma_migrate')", []));
    } finally {
      await unlockCluster(tx);
    }
  },
};
