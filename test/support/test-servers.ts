// Throwaway database servers from the locally installed Debian binaries: a
// PostgreSQL (alone, behind PgBouncer, or with a hot standby), a MariaDB and a
// MariaDB Galera cluster, each with its own data directory, on free loopback
// ports, stopped by pid. The broker (server-broker.ts) starts the shared ones
// for a run; a test that must stop, kill or restart a server starts its own
// here, and the benchmarks (bench/servers.ts) theirs.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import pg from 'pg';

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  dataDir: string;
}

const isRoot = userInfo().uid === 0;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary as the system user that owns such servers when we are root (both refuse to run as root). */
function asUser(user: string, file: string, args: string[]) {
  return isRoot ? { file: 'runuser', args: ['-u', user, '--', file, ...args] } : { file, args };
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

/**
 * A PostgreSQL that trusts every connection, or, given `password`, one whose
 * TCP connections must log in with it (SCRAM), for the tests of a wrong password.
 */
export async function startPostgres(options: { password?: string } = {}): Promise<RunningServer | undefined> {
  const bin = postgresBin();
  if (!bin) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-store-pg-'));
  if (isRoot) chownSync(dataDir, uid('postgres'), gid('postgres'));
  const auth = ['-A', 'trust'];
  if (options.password !== undefined) {
    const passwordFile = join(dataDir, 'password');
    writeFileSync(passwordFile, `${options.password}\n`);
    if (isRoot) chownSync(passwordFile, uid('postgres'), gid('postgres'));
    auth.push('--auth-host=scram-sha-256', `--pwfile=${passwordFile}`);
  }
  const initdb = asUser('postgres', join(bin, 'initdb'), ['-D', join(dataDir, 'data'), ...auth, '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  execFileSync(initdb.file, initdb.args, { stdio: 'pipe' });
  const port = await freePort();
  const userinfo = options.password === undefined ? 'postgres' : `postgres:${encodeURIComponent(options.password)}`;
  return { name: 'PostgreSQL', url: `postgresql://${userinfo}@127.0.0.1:${port}/postgres`, pid: launchPostgres(bin, dataDir, port), dataDir };
}

/** Starts PostgreSQL on an initialized data directory; returns its pid. */
function launchPostgres(bin: string, dataDir: string, port: number): number {
  // fsync off: these servers hold test data only; benchmarks run their own with fsync on.
  const start = asUser('postgres', join(bin, 'pg_ctl'), [
    'start',
    '-w',
    '-D',
    join(dataDir, 'data'),
    '-l',
    join(dataDir, 'log'),
    '-o',
    `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
  ]);
  execFileSync(start.file, start.args, { stdio: 'pipe' });
  return Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

export interface RunningReplication {
  name: string;
  primary: RunningServer;
  /** A hot standby streaming from the primary. */
  replica: RunningServer;
}

/**
 * A PostgreSQL primary and a hot standby streaming from it, cloned by pg_basebackup (-R: it follows the
 * primary), each its own data directory and port. `synchronous`: once the standby streams, the primary's
 * commits wait for its flush (synchronous_standby_names), so no commit it acknowledged is missing there.
 */
export async function startPostgresReplication(options: { synchronous?: boolean } = {}): Promise<RunningReplication | undefined> {
  const primary = await startPostgres();
  if (!primary) return undefined;
  try {
    const replica = await startStandby(primary);
    if (options.synchronous) {
      // Set only now: before a standby streams, every commit would wait for one.
      await onServer(primary.url, ["ALTER SYSTEM SET synchronous_standby_names = '*'", 'SELECT pg_reload_conf()']);
      await waitFor(
        async () => {
          const rows = await onServer(primary.url, ["SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'"]);
          if (rows.length === 0) throw new Error('not yet synchronous');
        },
        30_000,
        () => `the standby of ${primary.url} did not become synchronous`,
      );
    }
    return { name: 'PostgreSQL replication', primary, replica };
  } catch (error) {
    await stopServer(primary);
    throw error;
  }
}

/** A hot standby of `primary` on a port of its own, streaming from it; resolves once it takes connections. */
export async function startStandby(primary: RunningServer): Promise<RunningServer> {
  const bin = postgresBin()!;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-store-pg-standby-'));
  if (isRoot) chownSync(dataDir, uid('postgres'), gid('postgres'));
  const from = new URL(primary.url);
  const backup = asUser('postgres', join(bin, 'pg_basebackup'), [
    '-D',
    join(dataDir, 'data'),
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '--no-sync',
    '-h',
    '127.0.0.1',
    '-p',
    from.port,
    '-U',
    'postgres',
  ]);
  try {
    execFileSync(backup.file, backup.args, { stdio: 'pipe' });
    const port = await freePort();
    return { name: 'PostgreSQL', url: `postgresql://postgres@127.0.0.1:${port}/postgres`, pid: launchPostgres(bin, dataDir, port), dataDir };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Makes the standby a primary (what an operator's failover tooling does) and waits until it takes writes. */
export function promoteStandby(standby: RunningServer): void {
  const promote = asUser('postgres', join(postgresBin()!, 'pg_ctl'), ['promote', '-w', '-D', join(standby.dataDir, 'data')]);
  execFileSync(promote.file, promote.args, { stdio: 'pipe' });
}

/** Stops both servers of a replication and removes their data directories. */
export async function stopReplication(replication: RunningReplication): Promise<void> {
  await Promise.all([stopServer(replication.replica), stopServer(replication.primary)]);
}

/** Runs `statements` on `url`'s server; the last one's rows. */
async function onServer(url: string, statements: string[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: unknown[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

function mariadbBin(): { server: string; install: string } | undefined {
  const server = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find(existsSync);
  const install = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find(existsSync);
  return server && install ? { server, install } : undefined;
}

export async function startMariaDb(): Promise<RunningServer | undefined> {
  const bin = mariadbBin();
  if (!bin) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-store-mariadb-'));
  if (isRoot) chownSync(dataDir, uid('mysql'), gid('mysql'));
  execFileSync(
    bin.install,
    ['--no-defaults', `--datadir=${join(dataDir, 'data')}`, ...(isRoot ? ['--user=mysql'] : []), '--auth-root-authentication-method=normal', '--skip-test-db'],
    { stdio: 'pipe' },
  );
  const port = await freePort();
  const url = `mysql://root@127.0.0.1:${port}/mysql`;
  return { name: 'MariaDB', url, pid: await launchMariaDb(bin.server, dataDir, port), dataDir };
}

/** Starts MariaDB on an installed data directory and waits until it answers; returns its pid. */
async function launchMariaDb(server: string, dataDir: string, port: number): Promise<number> {
  const child = spawn(
    server,
    [
      '--no-defaults',
      `--datadir=${join(dataDir, 'data')}`,
      ...(isRoot ? ['--user=mysql'] : []),
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dataDir, 'sock')}`,
      `--pid-file=${join(dataDir, 'pid')}`,
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=2',
      '--max-connections=300',
      `--log-error=${join(dataDir, 'log')}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  try {
    await waitFor(
      async () => {
        const connection = await mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
        await connection.end();
      },
      30_000,
      () => `MariaDB did not start: ${tail(join(dataDir, 'log'))}`,
    );
  } catch (error) {
    child.kill('SIGKILL'); // a server that never answered is not left running
    throw error;
  }
  return child.pid!;
}

export interface RunningCluster {
  name: string;
  /** A url per node, in the order the nodes joined. */
  urls: string[];
  nodes: RunningServer[];
  /** Holds the nodes' data directories. */
  dir: string;
}

const galeraProvider = () => ['/usr/lib/galera/libgalera_smm.so', '/usr/lib/galera-4/libgalera_smm.so'].find(existsSync);

/**
 * A MariaDB Galera cluster of `size` nodes on loopback (Debian's galera-4): each node its own data
 * directory and ports (SQL, group communication, incremental and snapshot state transfer), the first
 * bootstrapping the cluster, the others joining it by rsync. Resolves once every node is synced.
 */
export async function startGalera(size = 3): Promise<RunningCluster | undefined> {
  const bin = mariadbBin();
  const provider = galeraProvider();
  if (!bin || !provider || !hasGaleraBinaries()) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'agent-store-galera-'));
  if (isRoot) chownSync(root, uid('mysql'), gid('mysql'));
  const ports: { sql: number; gcomm: number; ist: number; sst: number }[] = [];
  const taken = new Set<number>();
  const port = async () => {
    for (;;) {
      const free = await freePort();
      if (!taken.has(free)) return (taken.add(free), free);
    }
  };
  for (let i = 0; i < size; i++) ports.push({ sql: await port(), gcomm: await port(), ist: await port(), sst: await port() });
  const address = `gcomm://${ports.map((each) => `127.0.0.1:${each.gcomm}`).join(',')}`;
  const nodes: RunningServer[] = [];
  const stopAll = () => Promise.all(nodes.map(stopServer)).then(() => rmSync(root, { recursive: true, force: true }));
  try {
    for (let i = 0; i < size; i++) {
      const dataDir = join(root, `n${i}`);
      execFileSync('mkdir', ['-p', join(dataDir, 'data')]);
      const config = join(dataDir, 'my.cnf');
      // A file, not flags: the server hands it to the state transfer script, which reads it.
      writeFileSync(
        config,
        [
          '[mysqld]',
          `datadir=${join(dataDir, 'data')}`,
          `socket=${join(dataDir, 'sock')}`,
          `pid-file=${join(dataDir, 'pid')}`,
          `port=${ports[i].sql}`,
          'bind-address=127.0.0.1',
          `log-error=${join(dataDir, 'log')}`,
          'max-connections=300',
          'innodb-flush-log-at-trx-commit=2',
          'innodb-buffer-pool-size=64M',
          'binlog-format=ROW',
          'default-storage-engine=InnoDB',
          'innodb-autoinc-lock-mode=2',
          'wsrep-on=ON',
          `wsrep-provider=${provider}`,
          'wsrep-cluster-name=agent_store_test',
          `wsrep-cluster-address=${address}`,
          `wsrep-node-address=127.0.0.1:${ports[i].gcomm}`,
          `wsrep-node-name=n${i}`,
          `wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${ports[i].gcomm};ist.recv_addr=127.0.0.1:${ports[i].ist};gcache.size=32M`,
          'wsrep-sst-method=rsync',
          `wsrep-sst-receive-address=127.0.0.1:${ports[i].sst}`,
          '',
        ].join('\n'),
      );
      if (isRoot) execFileSync('chown', ['-R', 'mysql:mysql', dataDir]);
      execFileSync(
        bin.install,
        [`--defaults-file=${config}`, ...(isRoot ? ['--user=mysql'] : []), '--auth-root-authentication-method=normal', '--skip-test-db'],
        { stdio: 'pipe' },
      );
    }
    for (let i = 0; i < size; i++) {
      const dataDir = join(root, `n${i}`);
      const args = [`--defaults-file=${join(dataDir, 'my.cnf')}`, ...(isRoot ? ['--user=mysql'] : []), ...(i === 0 ? ['--wsrep-new-cluster'] : [])];
      const child = spawn(bin.server, args, { detached: true, stdio: 'ignore' });
      child.unref();
      nodes.push({ name: `Galera node ${i}`, url: `mysql://root@127.0.0.1:${ports[i].sql}/mysql`, pid: child.pid!, dataDir });
      // The first node is the cluster the others join: it must be up before they ask for its state.
      if (i === 0) await galeraSynced(nodes[0], 1);
    }
    await Promise.all(nodes.map((node) => galeraSynced(node, size)));
    return { name: 'Galera', urls: nodes.map((node) => node.url), nodes, dir: root };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

/** Starts a stopped node of a cluster again on its own data directory and ports (`newCluster` when it is the only node left, to bootstrap). */
export function launchGaleraNode(node: RunningServer, newCluster = false): RunningServer {
  const args = [`--defaults-file=${join(node.dataDir, 'my.cnf')}`, ...(isRoot ? ['--user=mysql'] : []), ...(newCluster ? ['--wsrep-new-cluster'] : [])];
  const child = spawn(mariadbBin()!.server, args, { detached: true, stdio: 'ignore' });
  child.unref();
  return { ...node, pid: child.pid! };
}

/** Starts node `index` of the cluster again (after it stopped or was killed): it rejoins the cluster, which sends it what it missed. */
export async function restartGaleraNode(cluster: RunningCluster, index: number): Promise<RunningCluster> {
  const nodes = cluster.nodes.map((each, i) => (i === index ? launchGaleraNode(each) : each));
  await galeraSynced(nodes[index], nodes.length);
  return { ...cluster, nodes };
}

/** Stops every node of the cluster by pid and removes its data directories. */
export async function stopCluster(cluster: RunningCluster): Promise<void> {
  await Promise.all(cluster.nodes.map(stopKeepingData));
  rmSync(cluster.dir, { recursive: true, force: true });
}

/** Waits until `node` answers, is synced with the cluster and sees `size` nodes in it. */
export async function galeraSynced(node: RunningServer, size: number, timeoutMs = 60_000): Promise<void> {
  const { port } = new URL(node.url);
  await waitFor(
    async () => {
      const connection = await mariadb.createConnection({ host: '127.0.0.1', port: Number(port), user: 'root', connectTimeout: 1000 });
      try {
        const rows = (await connection.query("SHOW STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state_comment', 'wsrep_cluster_size')")) as {
          Variable_name: string;
          Value: string;
        }[];
        const status = Object.fromEntries(rows.map((row) => [row.Variable_name, row.Value]));
        if (status.wsrep_ready !== 'ON' || status.wsrep_local_state_comment !== 'Synced' || Number(status.wsrep_cluster_size) < size)
          throw new Error('not synced');
      } finally {
        await connection.end();
      }
    },
    timeoutMs,
    () => `${node.name} did not join a cluster of ${size}: ${tail(join(node.dataDir, 'log'))}`,
  );
}

const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * PgBouncer in transaction mode (Debian's pgbouncer) in front of the PostgreSQL at `postgresUrl`: every
 * database name goes through to the same name there, as user postgres, with no password on loopback.
 * Each database and user gets a pool of its own, and each test file makes a database of its own, so the
 * connections to the server are capped for the user as a whole (the pools of finished files close theirs
 * when another needs one), well under the server's max_connections, which direct connections share.
 * `settings` are more lines of its [pgbouncer] section.
 */
export async function startPgBouncer(postgresUrl: string, settings: string[] = []): Promise<RunningServer | undefined> {
  if (!existsSync(PGBOUNCER)) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-store-pgbouncer-'));
  const { port: serverPort } = new URL(postgresUrl);
  const port = await freePort();
  const config = join(dataDir, 'pgbouncer.ini');
  writeFileSync(join(dataDir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dataDir}`,
      'auth_type = trust',
      `auth_file = ${join(dataDir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      'max_user_connections = 100',
      'server_idle_timeout = 10',
      `logfile = ${join(dataDir, 'log')}`,
      `pidfile = ${join(dataDir, 'pid')}`,
      ...(isRoot ? ['user = postgres'] : []),
      ...settings,
      '',
    ].join('\n'),
  );
  // It refuses to run as root: as root, it becomes the user its configuration names once it has read it.
  if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
  const child = spawn(PGBOUNCER, [config], { detached: true, stdio: 'ignore' });
  child.unref();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const running = { name: 'PgBouncer', url, pid: child.pid!, dataDir };
  try {
    await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
        await client.connect();
        await client.end();
      },
      30_000,
      () => `PgBouncer did not start: ${tail(join(dataDir, 'log'))}`,
    );
  } catch (error) {
    await stopServer(running);
    throw error;
  }
  return running;
}

/** Starts a stopped server again on its own data directory and port: the same database comes back. */
export async function restartServer(server: RunningServer): Promise<RunningServer> {
  const port = Number(new URL(server.url).port);
  const pid =
    server.name === 'PostgreSQL' ? launchPostgres(postgresBin()!, server.dataDir, port) : await launchMariaDb(mariadbBin()!.server, server.dataDir, port);
  return { ...server, pid };
}

export async function stopServer(server: RunningServer): Promise<void> {
  await stopKeepingData(server);
  rmSync(server.dataDir, { recursive: true, force: true });
}

/** Stops the server by pid (if it still runs) and waits until it is gone; its data directory stays. */
export async function stopKeepingData(server: RunningServer): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown; MariaDB shuts down cleanly on SIGTERM, PgBouncer at once.
  try {
    process.kill(server.pid, server.name === 'PostgreSQL' ? 'SIGINT' : 'SIGTERM');
  } catch {
    return; // already stopped
  }
  await waitFor(
    async () => {
      try {
        process.kill(server.pid, 0);
      } catch {
        return;
      }
      throw new Error('still running');
    },
    30_000,
    () => `${server.name} (pid ${server.pid}) did not stop`,
  );
}

export const hasPostgresBinaries = () => postgresBin() !== undefined;
export const hasMariaDbBinaries = () => mariadbBin() !== undefined;
export const hasGaleraBinaries = () => mariadbBin() !== undefined && galeraProvider() !== undefined && existsSync('/usr/bin/rsync');
export const hasPgBouncerBinaries = () => existsSync(PGBOUNCER);

async function waitFor(probe: () => Promise<void>, timeoutMs: number, failure: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch {
      if (Date.now() > deadline) throw new Error(failure());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const tail = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(-10).join('\n') : '(no log)');
const uid = (user: string) => Number(execFileSync('id', ['-u', user]).toString().trim());
const gid = (user: string) => Number(execFileSync('id', ['-g', user]).toString().trim());
