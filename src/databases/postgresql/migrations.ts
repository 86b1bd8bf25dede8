// The migration lock on PostgreSQL: the advisory lock key of `prisma migrate deploy`, so the two never run at
// once, taken for the transaction only (it ends with it, so it works behind PgBouncer in transaction mode).
// Prisma's CLI holds it for its session and lets it go when it disconnects; run through PgBouncer in
// transaction mode, its session is one of PgBouncer's server connections, which keeps the lock after the CLI
// exits. Waiting for it would then hang the migration (and a boot that migrates) until PgBouncer closes
// that connection: a lock held by a session that has sat idle a while is refused with a message that says so.
import type { Transaction } from '@prisma/driver-adapter-utils';
import type { MigrationSteps } from '../../engine/provider-kit.js';
import { StoreDatabaseError } from '../../store.errors.js';
import { sql } from '../../engine/adapter-statement.js';

const KEY = 72707369;
/** A migration that runs does not leave its session idle this long; one left behind does. */
const IDLE_HOLDER_S = 5;
/** As long as MySQL's GET_LOCK waits for Prisma's lock. */
const WAIT_MS = 600_000;
const POLL_MS = 250;

// The holder's session in this database, if it is idle (not in a transaction): for how many seconds.
// Another user's session shows no state without pg_read_all_stats, and is then waited for.
const IDLE_HOLDER = `SELECT EXTRACT(EPOCH FROM clock_timestamp() - a.state_change)::float8
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = ${KEY} AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND a.state = 'idle'`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lock for `tx`'s transaction, waiting for a migration that runs, refusing a lock left behind. */
export async function lockMigrations(tx: Transaction): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const [[locked]] = (await tx.queryRaw(sql(`SELECT pg_try_advisory_xact_lock(${KEY})`, []))).rows;
    if (locked) return;
    const [idle] = (await tx.queryRaw(sql(IDLE_HOLDER, []))).rows;
    if (idle && Number(idle[0]) > IDLE_HOLDER_S) {
      throw new StoreDatabaseError(
        `the migration lock (advisory lock ${KEY}, Prisma's) is held by a session idle for ${Math.round(Number(idle[0]))} s, which no running migration does: ` +
          'a `prisma migrate deploy` run through PgBouncer in transaction mode leaves it on a server connection of PgBouncer until PgBouncer closes it ' +
          "(RECONNECT in its admin console, or pg_terminate_backend of the holder); run Prisma's CLI on a direct connection to PostgreSQL",
      );
    }
    if (Date.now() > deadline) throw new StoreDatabaseError(`another migration held the migration lock (advisory lock ${KEY}) for 10 minutes`);
    await sleep(POLL_MS);
  }
}

/** How migrations record and lock themselves on PostgreSQL, as `prisma migrate deploy` does. */
export const postgresMigrations: MigrationSteps = {
  bookkeepingTable: `CREATE TABLE IF NOT EXISTS _prisma_migrations (
  id                      VARCHAR(36) PRIMARY KEY NOT NULL,
  checksum                VARCHAR(64) NOT NULL,
  finished_at             TIMESTAMPTZ,
  migration_name          VARCHAR(255) NOT NULL,
  logs                    TEXT,
  rolled_back_at          TIMESTAMPTZ,
  started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
  applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`,
  now: 'now()',
  isolation: undefined,
  ddlCommits: false,
  // A transaction-scoped advisory lock: it ends with the transaction.
  lock: lockMigrations,
  unlock: async () => {},
};
