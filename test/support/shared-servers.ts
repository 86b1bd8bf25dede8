// The servers a test run shares, one entry each: the variable that names one
// of your own instead, the Debian packages it comes from, and how a throwaway
// one starts. The broker (server-broker.ts) starts each the first time a test
// asks for it, once per run; a run that asks for none starts none.
import {
  hasGaleraBinaries,
  hasMariaDbBinaries,
  hasPgBouncerBinaries,
  hasPostgresBinaries,
  startGalera,
  startMariaDb,
  startPgBouncer,
  startPostgres,
  startPostgresReplication,
  stopCluster,
  stopReplication,
  stopServer,
} from './test-servers.js';

/** A started server: the value of its variable (a url, or urls joined by commas), a line for the log, and how to stop it. */
export interface StartedServer {
  value: string;
  description: string;
  stop(): Promise<void>;
}

interface SharedServerKind {
  /** Names a server of your own (its url, or its urls joined by commas): it is used, and none is started. */
  env: string;
  /** The Debian packages its binaries come from, for the message when they are missing. */
  packages: string;
  installed(): boolean;
  /** Starts a throwaway one; `get` gives another shared server it builds on. */
  start(get: (name: SharedServerName) => Promise<string>): Promise<StartedServer>;
}

const missing = (name: string) => new Error(`${name} binaries are missing`);

export const SHARED_SERVERS = {
  postgresql: {
    env: 'TEST_POSTGRES_URL',
    packages: 'postgresql',
    installed: hasPostgresBinaries,
    async start() {
      const server = await startPostgres();
      if (!server) throw missing('PostgreSQL');
      return { value: server.url, description: `PostgreSQL: a throwaway server (pid ${server.pid}) at ${server.url}`, stop: () => stopServer(server) };
    },
  },
  mariadb: {
    env: 'TEST_MYSQL_URL',
    packages: 'mariadb-server',
    installed: hasMariaDbBinaries,
    async start() {
      const server = await startMariaDb();
      if (!server) throw missing('MariaDB');
      return { value: server.url, description: `MariaDB: a throwaway server (pid ${server.pid}) at ${server.url}`, stop: () => stopServer(server) };
    },
  },
  /** PgBouncer in transaction mode in front of the shared PostgreSQL (a TEST_PGBOUNCER_URL of your own must front TEST_POSTGRES_URL's server). */
  pgbouncer: {
    env: 'TEST_PGBOUNCER_URL',
    packages: 'postgresql pgbouncer',
    installed: () => hasPgBouncerBinaries() && (hasPostgresBinaries() || process.env.TEST_POSTGRES_URL !== undefined),
    async start(get) {
      const server = await startPgBouncer(await get('postgresql'));
      if (!server) throw missing('PgBouncer');
      return { value: server.url, description: `PgBouncer: in transaction mode (pid ${server.pid}) at ${server.url}`, stop: () => stopServer(server) };
    },
  },
  /** A PostgreSQL primary and its hot standby: the primary's url, then the standby's. */
  replication: {
    env: 'TEST_POSTGRES_REPLICATION_URLS',
    packages: 'postgresql',
    installed: hasPostgresBinaries,
    async start() {
      const replication = await startPostgresReplication();
      if (!replication) throw missing('PostgreSQL');
      const { primary, replica } = replication;
      return {
        value: `${primary.url},${replica.url}`,
        description: `PostgreSQL replication: a primary (pid ${primary.pid}) at ${primary.url} and a hot standby (pid ${replica.pid}) at ${replica.url}`,
        stop: () => stopReplication(replication),
      };
    },
  },
  /** A MariaDB Galera cluster of three nodes: a url per node. */
  galera: {
    env: 'TEST_GALERA_URLS',
    packages: 'mariadb-server galera-4 rsync',
    installed: hasGaleraBinaries,
    async start() {
      // A node that does not join in time (a port taken between choosing it and binding it, a state transfer
      // starved of CPU) gets the cluster started once more, on new ports and a new directory.
      const cluster = await startGalera().catch((error: unknown) => {
        console.warn(`the Galera cluster did not start (${String(error)}); starting it once more`);
        return startGalera();
      });
      if (!cluster) throw missing('MariaDB Galera');
      return {
        value: cluster.urls.join(','),
        description: `Galera: a throwaway cluster of ${cluster.nodes.length} nodes (pids ${cluster.nodes.map((node) => node.pid).join(', ')}) at ${cluster.urls.join(', ')}`,
        stop: () => stopCluster(cluster),
      };
    },
  },
} satisfies Record<string, SharedServerKind>;

export type SharedServerName = keyof typeof SHARED_SERVERS;

/** Whether a test can have the server: yours is named, or its binaries are installed. */
export const sharedServerAvailable = (name: SharedServerName): boolean =>
  process.env[SHARED_SERVERS[name].env] !== undefined || SHARED_SERVERS[name].installed();

/** The variable through which the global setup tells the test processes where the broker listens. */
export const BROKER_SOCKET_ENV = 'AGENT_STORE_TEST_BROKER';
