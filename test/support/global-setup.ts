// Jest global setup: a PostgreSQL and a MariaDB for the suites that need them,
// unless TEST_POSTGRES_URL / TEST_MYSQL_URL name servers of your own. They are
// throwaway servers from the locally installed Debian binaries, each with its
// own data directory, on a free loopback port, stopped by pid in the teardown.
// Missing binaries: a loud warning locally, a failed run under CI=true.
// A test that must stop and restart a server starts its own with the exports
// below. (Jest loads this file without the tests' module mapper, so it imports
// no file of ours.)
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  dataDir: string;
}

const isRoot = userInfo().uid === 0;

async function freePort(): Promise<number> {
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
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
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
    'start', '-w', '-D', join(dataDir, 'data'), '-l', join(dataDir, 'log'),
    '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
  ]);
  execFileSync(start.file, start.args, { stdio: 'pipe' });
  return Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
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
  execFileSync(bin.install, ['--no-defaults', `--datadir=${join(dataDir, 'data')}`, ...(isRoot ? ['--user=mysql'] : []), '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'pipe' });
  const port = await freePort();
  const url = `mysql://root@127.0.0.1:${port}/mysql`;
  return { name: 'MariaDB', url, pid: await launchMariaDb(bin.server, dataDir, port), dataDir };
}

/** Starts MariaDB on an installed data directory and waits until it answers; returns its pid. */
async function launchMariaDb(server: string, dataDir: string, port: number): Promise<number> {
  const child = spawn(
    server,
    [
      '--no-defaults', `--datadir=${join(dataDir, 'data')}`, ...(isRoot ? ['--user=mysql'] : []), `--port=${port}`, '--bind-address=127.0.0.1',
      `--socket=${join(dataDir, 'sock')}`, `--pid-file=${join(dataDir, 'pid')}`, '--skip-log-bin', '--innodb-flush-log-at-trx-commit=2',
      '--max-connections=300', `--log-error=${join(dataDir, 'log')}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  await waitFor(async () => {
    const connection = await mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
    await connection.end();
  }, 30_000, () => `MariaDB did not start: ${tail(join(dataDir, 'log'))}`);
  return child.pid!;
}

/** Starts a stopped server again on its own data directory and port: the same database comes back. */
export async function restartServer(server: RunningServer): Promise<RunningServer> {
  const port = Number(new URL(server.url).port);
  const pid = server.name === 'PostgreSQL' ? launchPostgres(postgresBin()!, server.dataDir, port) : await launchMariaDb(mariadbBin()!.server, server.dataDir, port);
  return { ...server, pid };
}

export async function stopServer(server: RunningServer): Promise<void> {
  await stopKeepingData(server);
  rmSync(server.dataDir, { recursive: true, force: true });
}

/** Stops the server by pid (if it still runs) and waits until it is gone; its data directory stays. */
export async function stopKeepingData(server: RunningServer): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown; MariaDB shuts down cleanly on SIGTERM.
  try {
    process.kill(server.pid, server.name === 'PostgreSQL' ? 'SIGINT' : 'SIGTERM');
  } catch {
    return; // already stopped
  }
  await waitFor(async () => {
    try {
      process.kill(server.pid, 0);
    } catch {
      return;
    }
    throw new Error('still running');
  }, 30_000, () => `${server.name} (pid ${server.pid}) did not stop`);
}

export const hasPostgresBinaries = () => postgresBin() !== undefined;
export const hasMariaDbBinaries = () => mariadbBin() !== undefined;

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


declare global {
  /** Set here, called by global-teardown.ts. */
  var agentStoreStopServers: (() => Promise<void>) | undefined;
}

const SERVERS = [
  { env: 'TEST_POSTGRES_URL', start: startPostgres, name: 'PostgreSQL', packageName: 'postgresql' },
  { env: 'TEST_MYSQL_URL', start: startMariaDb, name: 'MariaDB', packageName: 'mariadb-server' },
] as const;

export default async function globalSetup(): Promise<void> {
  const started: RunningServer[] = [];
  globalThis.agentStoreStopServers = async () => {
    await Promise.all(started.map(stopServer));
  };
  for (const server of SERVERS) {
    if (process.env[server.env]) {
      console.log(`\n${server.name}: using ${server.env}`);
      continue;
    }
    const running = await server.start();
    if (running) {
      started.push(running);
      process.env[server.env] = running.url;
      console.log(`\n${server.name}: started a throwaway server (pid ${running.pid}) at ${running.url}`);
      continue;
    }
    const message = `${server.name} binaries are missing (apt-get install ${server.packageName}) and ${server.env} is not set`;
    if (process.env.CI === 'true') throw new Error(`${message}: CI needs every database`);
    console.warn(`\n${'!'.repeat(78)}\n!! ${message}:\n!! the ${server.name} suites are SKIPPED in this local run.\n${'!'.repeat(78)}`);
  }
}
