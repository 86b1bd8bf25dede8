// The setups of several servers, each for its own rows: a MariaDB Galera
// cluster of three nodes, and a PostgreSQL primary with a hot standby. Like
// databases.ts: where fresh databases come from, the store's tables for the
// references, the servers' facts, and stopping them.
import mariadb, { type Connection } from 'mariadb';
import pg from 'pg';
import { mariadbConnection } from '../src/databases/mysql/index.js';
import { applyServerSchema, settle, withDatabase } from './databases.js';
import { startDurableGalera, startDurableReplication, stopCluster, stopServer } from './servers.js';

export type Cluster = 'galera' | 'replica';

export const CLUSTER_LABELS: Record<Cluster, string> = { galera: 'MariaDB Galera, three nodes', replica: 'PostgreSQL, primary and hot standby' };

interface ClusterFacts {
  label: string;
  version: string;
  /** How the servers run, for the line under the section's title. */
  settings: string;
  close(): Promise<void>;
}

export interface BenchGalera extends ClusterFacts {
  /** A new, empty database, made on the first node (the cluster replicates it): its url on each node. */
  fresh(name: string): Promise<string[]>;
  applyStoreSchema(url: string): Promise<void>;
  /** Summed over the nodes: commits that failed certification, and local transactions aborted by another node's (brute force). */
  conflicts(): Promise<number>;
  /** Resolves once every node has applied everything any node had committed when it was called. */
  caughtUp(): Promise<void>;
}

export interface BenchReplication extends ClusterFacts {
  /** A new, empty database on the primary: its url there and on the standby. */
  fresh(name: string): Promise<{ primary: string; standby: string }>;
  /** Resolves once the standby has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
}

/** The Galera cluster, started; undefined without its binaries (galera-4, rsync). Closing twice closes once. */
export async function openGalera(): Promise<BenchGalera | undefined> {
  const cluster = await startDurableGalera();
  if (!cluster) return undefined;
  const admins: Connection[] = [];
  try {
    for (const url of cluster.urls) admins.push(await mariadb.createConnection({ ...mariadbConnection(url), database: undefined }));
    const [{ version }] = (await admins[0].query('SELECT VERSION() AS version')) as { version: string }[];
    const [{ Value: provider }] = (await admins[0].query("SHOW GLOBAL STATUS LIKE 'wsrep\\_provider\\_version'")) as { Value: string }[];
    const status = async (admin: Connection) =>
      ((await admin.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')")) as { Value: string }[]).reduce(
        (sum, row) => sum + Number(row.Value),
        0,
      );
    const committed = async (admin: Connection) =>
      Number(((await admin.query("SHOW GLOBAL STATUS LIKE 'wsrep\\_last\\_committed'")) as { Value: string }[])[0].Value);
    let closing: Promise<void> | undefined;
    return {
      label: CLUSTER_LABELS.galera,
      version: `MariaDB ${version}, Galera ${provider.split('(')[0].trim()}`,
      settings:
        'three nodes on this machine, loopback TCP; each node innodb_flush_log_at_trx_commit=1 (every commit flushed, as the lone MariaDB above), ' +
        "innodb_buffer_pool_size=64M, binary log off, wsrep_sst_method=rsync (the test suite's cluster, made durable)",
      async fresh(name) {
        await admins[0].query(`CREATE DATABASE bench_${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        return cluster.urls.map((url) => withDatabase(url, `bench_${name}`));
      },
      applyStoreSchema: (url) => applyServerSchema('mysql', url),
      conflicts: async () => (await Promise.all(admins.map(status))).reduce((sum, n) => sum + n, 0),
      async caughtUp() {
        const target = Math.max(...(await Promise.all(admins.map(committed))));
        const deadline = Date.now() + 60_000;
        for (const admin of admins) {
          while ((await committed(admin)) < target) {
            if (Date.now() > deadline) throw new Error(`a node did not apply the cluster's commit ${target} within 60 s`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
      },
      close: () =>
        (closing ??= (async () => {
          await settle(async () =>
            Number(
              (
                (await admins[0].query("SELECT COUNT(*) AS n FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND user <> 'system user'")) as {
                  n: bigint;
                }[]
              )[0].n,
            ),
          );
          await Promise.all(admins.map((admin) => admin.end().catch(() => {})));
          await stopCluster(cluster);
        })()),
    };
  } catch (error) {
    await Promise.all(admins.map((admin) => admin.end().catch(() => {})));
    await stopCluster(cluster);
    throw error;
  }
}

/** The primary and its standby, started; undefined without PostgreSQL's binaries. Closing twice closes once. */
export async function openReplication(): Promise<BenchReplication | undefined> {
  const servers = await startDurableReplication();
  if (!servers) return undefined;
  const { primary, standby } = servers;
  const admins: pg.Client[] = [];
  const stop = () => Promise.all([stopServer(standby), stopServer(primary)]);
  try {
    for (const server of [primary, standby]) {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      admins.push(admin);
    }
    const [toPrimary, toStandby] = admins;
    const { rows } = await toPrimary.query<{ server_version: string }>('SHOW server_version');
    let closing: Promise<void> | undefined;
    return {
      label: CLUSTER_LABELS.replica,
      version: `PostgreSQL ${rows[0].server_version}`,
      settings:
        'both on this machine, loopback TCP; fsync=on, synchronous_commit=on (the defaults) on both; the standby cloned by pg_basebackup -R and streaming asynchronously ' +
        '(no synchronous_standby_names), hot_standby=on; ANALYZE on the primary after the bulk load, the standby caught up before any read',
      async fresh(name) {
        await toPrimary.query(`CREATE DATABASE bench_${name}`);
        return { primary: withDatabase(primary.url, `bench_${name}`), standby: withDatabase(standby.url, `bench_${name}`) };
      },
      async caughtUp() {
        const { rows } = await toPrimary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
        const deadline = Date.now() + 60_000;
        for (;;) {
          const replayed = await toStandby.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [rows[0].lsn]);
          if (replayed.rows[0].done) return;
          if (Date.now() > deadline) throw new Error(`the standby did not replay ${rows[0].lsn} within 60 s`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      close: () =>
        (closing ??= (async () => {
          await settle(async () => {
            const counts = await Promise.all(
              admins.map((admin) =>
                admin.query<{ n: number }>(
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname IS NOT NULL AND backend_type = 'client backend'",
                ),
              ),
            );
            return counts.reduce((sum, { rows }) => sum + rows[0].n, 0);
          });
          await Promise.all(admins.map((admin) => admin.end().catch(() => {})));
          await stop();
        })()),
    };
  } catch (error) {
    await Promise.all(admins.map((admin) => admin.end().catch(() => {})));
    await stop();
    throw error;
  }
}
