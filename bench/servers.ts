// Throwaway database servers for one benchmark run, from the locally installed
// Debian binaries: loopback only, own data directories, stopped by pid.
//
// MariaDB comes from the test suite's startMariaDb, made durable again (the
// tests flush InnoDB's log once a second). PostgreSQL is started here because
// the tests' server runs with fsync off, a command-line setting nothing can
// turn back on; the benchmark measures PostgreSQL as it is deployed: fsync on.
// The same holds for the setups of several servers: the tests' Galera cluster
// made durable as the lone MariaDB is, and a PostgreSQL primary with a hot
// standby cloned here, both with fsync on.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import { mariadbConnection } from '../src/databases/mysql/index.js';
import { freePort, startGalera, startMariaDb, stopCluster, stopServer, type RunningCluster, type RunningServer } from '../test/support/test-servers.js';

export type { RunningCluster, RunningServer };
export { stopCluster, stopServer };

const isRoot = userInfo().uid === 0;

function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

/** A PostgreSQL with its durability defaults (fsync, synchronous_commit), or undefined without binaries. */
export async function startDurablePostgres(): Promise<RunningServer | undefined> {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  const dataDir = ownedTempDir('agent-store-bench-pg-');
  run(bin, 'initdb', ['-D', join(dataDir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  return launchPostgres(bin, dataDir);
}

/** A primary as startDurablePostgres starts it and a hot standby streaming from it (asynchronously, PostgreSQL's default), with the same settings. */
export async function startDurableReplication(): Promise<{ primary: RunningServer; standby: RunningServer } | undefined> {
  const bin = postgresBinDir();
  const primary = await startDurablePostgres();
  if (!bin || !primary) return undefined;
  const dataDir = ownedTempDir('agent-store-bench-pg-standby-');
  try {
    const { port } = new URL(primary.url);
    run(bin, 'pg_basebackup', ['-D', join(dataDir, 'data'), '-R', '-X', 'stream', '-c', 'fast', '--no-sync', '-h', '127.0.0.1', '-p', port, '-U', 'postgres']);
    return { primary, standby: await launchPostgres(bin, dataDir) };
  } catch (error) {
    await stopServer(primary);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function launchPostgres(bin: string, dataDir: string): Promise<RunningServer> {
  const port = await freePort();
  run(bin, 'pg_ctl', [
    'start',
    '-w',
    '-D',
    join(dataDir, 'data'),
    '-l',
    join(dataDir, 'log'),
    '-o',
    `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c max_connections=200`,
  ]);
  const pid = Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { name: 'PostgreSQL', url: `postgresql://postgres@127.0.0.1:${port}/postgres`, pid, dataDir };
}

function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (isRoot) chownSync(dir, idOf('-u'), idOf('-g'));
  return dir;
}

/** The tests' MariaDB, with every commit flushed to disk (the server default). */
export async function startDurableMariaDb(): Promise<RunningServer | undefined> {
  const server = await startMariaDb();
  if (!server) return undefined;
  try {
    await flushEveryCommit(server.url);
  } catch (error) {
    await stopServer(server);
    throw error;
  }
  return server;
}

/** The tests' Galera cluster of three nodes, each flushing every commit to disk; undefined without its binaries. */
export async function startDurableGalera(): Promise<RunningCluster | undefined> {
  const cluster = await startGalera(3);
  if (!cluster) return undefined;
  try {
    for (const url of cluster.urls) await flushEveryCommit(url);
  } catch (error) {
    await stopCluster(cluster);
    throw error;
  }
  return cluster;
}

/** The tests start MariaDB flushing InnoDB's log once a second; the server's default flushes it at every commit. */
async function flushEveryCommit(url: string): Promise<void> {
  const connection = await mariadb.createConnection(mariadbConnection(url));
  try {
    await connection.query('SET GLOBAL innodb_flush_log_at_trx_commit = 1');
  } finally {
    await connection.end();
  }
}

/** Runs a PostgreSQL tool as the postgres user when we are root (the server refuses root). */
function run(bin: string, tool: string, args: string[]): void {
  const file = join(bin, tool);
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' });
  else execFileSync(file, args, { stdio: 'pipe' });
}

const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
