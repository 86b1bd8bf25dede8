// A MariaDB Galera cluster, where each node takes writes and certifies every
// commit against the others'. Three things differ from one server:
// - A node applies what other nodes committed a moment later: a read that must
//   see it waits for the node to catch up (wsrep_sync_wait; with 1, a read and
//   the start of a transaction wait).
// - Locks are the node's own. Two nodes' transactions that wrote the same rows
//   both run to their commit, where one of them fails its certification as a
//   deadlock (1213), a conflict to retry, and more often than on one server.
// - A named lock (GET_LOCK) is the node's own too: migrations take a lock that
//   is a row of a table, which Galera certifies like any other.
import { randomUUID } from 'node:crypto';
import type { Transaction } from '@prisma/driver-adapter-utils';
import { adapterFailureOf } from '../../engine/db-errors.js';
import type { RetryPolicy } from '../../engine/provider-kit.js';
import { StoreDatabaseError } from '../../store.errors.js';
import type { Pool, PoolConnection } from 'mariadb';
import { sql } from '../../engine/adapter-statement.js';
import { takingThrough } from './mariadb-pool.js';

/** Run on each connection to a Galera node: reads, and transactions from their start, see every commit the cluster made before. */
export const SYNC_WAIT = 'SET SESSION wsrep_sync_wait = 1';

/**
 * Retries of conflicts on a cluster: certification failures (deadlocks, 1213) are common when nodes write
 * one thread at once, so more attempts, spread wider; three nodes racing 150 appends each on one thread all
 * get through. Other transient failures (a lock wait timeout, or a read that waited for its node to catch up
 * in vain, 1205) get the default retries.
 */
export const GALERA_RETRY: RetryPolicy = { attempts: 20, baseDelayMs: 5, maxDelayMs: 1_000, only: (error) => isCertificationFailure(error) };

/** Whether the server behind `query` is a node of a running Galera cluster (MySQL and a lone MariaDB have wsrep off, or no such variable). */
export async function isGaleraNode(query: (statement: string) => Promise<unknown[][]>): Promise<boolean> {
  const rows = await query("SHOW VARIABLES LIKE 'wsrep\\_on'");
  return String(rows[0]?.[1]).toUpperCase() === 'ON';
}

/** A pool whose connections are set for the cluster, once it is known whether the server is a Galera node. */
export interface GaleraAwarePool {
  pool: Pool;
  /** True once a connection found a Galera node; undefined before any connection answered. */
  galera(): boolean | undefined;
}

/**
 * `pool`, each of whose connections, the first time it is handed out, reads at the cluster's latest commit
 * when the server is a Galera node (SYNC_WAIT). The first connection that answers asks the server; until
 * one does (the server down or refusing at boot), the pool asks nothing and the store boots as on one server.
 */
export function galeraAware(pool: Pool): GaleraAwarePool {
  let galera: boolean | undefined;
  let asking: Promise<boolean> | undefined;
  // By the connector's session of each connection (its info, which a new session, a redirect's, replaces), not by thread id: a
  // restarted server, or another node behind a proxy, gives a new connection the thread id of one set before.
  const prepared = new WeakSet<object>();
  const sessionOf = (connection: PoolConnection): object | null => connection.info;
  const prepare = async (connection: PoolConnection) => {
    const query = async (statement: string) => (await connection.query({ sql: statement, rowsAsArray: true })) as unknown[][];
    asking ??= isGaleraNode(query).then(
      (answer) => (galera = answer),
      (error: unknown) => {
        asking = undefined;
        throw error;
      },
    );
    if (await asking) await connection.query(SYNC_WAIT);
    const session = sessionOf(connection);
    if (session) prepared.add(session);
  };
  const getConnection = async (): Promise<PoolConnection> => {
    const connection = await pool.getConnection();
    const session = sessionOf(connection);
    if (session && prepared.has(session)) return connection;
    try {
      await prepare(connection);
    } catch (error) {
      // A connection that could not be set is not handed out half set.
      await connection.destroy();
      throw error;
    }
    return connection;
  };
  return { pool: takingThrough(pool, getConnection), galera: () => galera };
}

/** The cluster's lock table: a row per lock, held by whoever wrote it last until it expires. */
const LOCK_TABLE = `CREATE TABLE IF NOT EXISTS _agent_store_lock (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  holder CHAR(36) NOT NULL,
  expires_at DATETIME(3) NOT NULL
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`;

/** How long a migration holds the lock at most, as long as Prisma's GET_LOCK waits: a crashed migrator's lock is taken over after it. */
const LEASE_SECONDS = 600;
const POLL_MS = 250;

const holders = new WeakMap<Transaction, string>();

const rowsOf = async (tx: Transaction, text: string, args: string[] = []) => (await tx.queryRaw(sql(text, args))).rows;
const run = (tx: Transaction, text: string, args: string[] = []) => tx.executeRaw(sql(text, args));

/**
 * Takes the cluster-wide migration lock on the migration's connection, waiting while another node's
 * migration holds it. The lock is committed at once (ending the migration's transaction, as its
 * first DDL would), so that every node sees it; from then on the connection reads at the
 * cluster's latest commit, to find what a migration that held the lock before applied.
 */
export async function lockCluster(tx: Transaction): Promise<void> {
  const holder = randomUUID();
  await run(tx, SYNC_WAIT);
  await run(tx, LOCK_TABLE);
  const deadline = Date.now() + LEASE_SECONDS * 1000;
  for (;;) {
    try {
      // Taken when free or expired; kept as it is when another holds it.
      await run(
        tx,
        `INSERT INTO _agent_store_lock (name, holder, expires_at) VALUES ('migrate', ?, NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND)
         ON DUPLICATE KEY UPDATE holder = IF(expires_at < NOW(3), VALUES(holder), holder), expires_at = IF(expires_at < NOW(3), VALUES(expires_at), expires_at)`,
        [holder],
      );
      await run(tx, 'COMMIT');
      const [row] = await rowsOf(tx, "SELECT holder FROM _agent_store_lock WHERE name = 'migrate'");
      if (row?.[0] === holder) {
        holders.set(tx, holder);
        return;
      }
    } catch (error) {
      // Another node took it at the same moment: its commit was certified first, ours failed (1213).
      if (!isCertificationFailure(error)) throw error;
      await run(tx, 'ROLLBACK').catch(() => undefined);
    }
    if (Date.now() > deadline) throw new StoreDatabaseError(`another node's migration held the cluster's migration lock for ${LEASE_SECONDS / 60} minutes`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * (0.5 + Math.random())));
  }
}

/** Releases the cluster-wide migration lock, if this connection holds it; whether it did. */
export async function unlockCluster(tx: Transaction): Promise<boolean> {
  const holder = holders.get(tx);
  if (holder === undefined) return false;
  holders.delete(tx);
  await run(tx, "DELETE FROM _agent_store_lock WHERE name = 'migrate' AND holder = ?", [holder]);
  return true;
}

/** A deadlock (a certification failure is one) as Prisma's MariaDB adapter reports it, or as the connector throws it. */
function isCertificationFailure(error: unknown): boolean {
  const failure = adapterFailureOf(error);
  return (
    failure?.kind === 'TransactionWriteConflict' ||
    (failure?.kind === 'mysql' && Number(failure.code) === 1213) ||
    (error as { errno?: unknown })?.errno === 1213
  );
}
