// Stops a server a test owns (from startPostgres / startMariaDb) without
// deleting its data, and starts it again on the same data directory and port,
// with the command lines global-setup.ts uses: the same database comes back.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import { stopServer, type RunningServer } from './global-setup.js';

const isRoot = userInfo().uid === 0;
const asUser = (user: string, file: string, args: string[]) => (isRoot ? { file: 'runuser', args: ['-u', user, '--', file, ...args] } : { file, args });

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

const mariadbServer = () => ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find(existsSync);
const mariadbInstall = () => ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find(existsSync);

export const hasPostgresBinaries = () => postgresBin() !== undefined;
export const hasMariaDbBinaries = () => mariadbServer() !== undefined && mariadbInstall() !== undefined;

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(probe: () => Promise<boolean> | boolean, timeoutMs: number, failure: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve().then(probe).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops the server as stopServer does (PostgreSQL fast shutdown, MariaDB clean shutdown), keeping its data directory. */
export async function stopKeepingData(server: RunningServer): Promise<void> {
  process.kill(server.pid, server.name === 'PostgreSQL' ? 'SIGINT' : 'SIGTERM');
  await waitFor(() => !isRunning(server.pid), 30_000, `${server.name} (pid ${server.pid}) did not stop`);
}

/** Starts a stopped server again on its data directory and port; returns it with its new pid. */
export async function startAgain(server: RunningServer): Promise<RunningServer> {
  const port = Number(new URL(server.url).port);
  const { dataDir } = server;
  if (server.name === 'PostgreSQL') {
    const start = asUser('postgres', join(postgresBin()!, 'pg_ctl'), [
      'start', '-w', '-D', join(dataDir, 'data'), '-l', join(dataDir, 'log'),
      '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
    ]);
    execFileSync(start.file, start.args, { stdio: 'pipe' });
    const pid = Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { ...server, pid };
  }
  const child = spawn(
    mariadbServer()!,
    [
      '--no-defaults', `--datadir=${join(dataDir, 'data')}`, ...(isRoot ? ['--user=mysql'] : []), `--port=${port}`, '--bind-address=127.0.0.1',
      `--socket=${join(dataDir, 'sock')}`, `--pid-file=${join(dataDir, 'pid')}`, '--skip-log-bin', '--innodb-flush-log-at-trx-commit=2',
      '--max-connections=300', `--log-error=${join(dataDir, 'log')}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  await waitFor(
    async () => {
      const connection = await mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
      await connection.end();
      return true;
    },
    30_000,
    `MariaDB did not start again on port ${port}`,
  );
  return { ...server, pid: child.pid! };
}

/** Stops the server if it still runs, and removes its data directory in any case. */
export async function removeServer(server: RunningServer): Promise<void> {
  if (isRunning(server.pid)) await stopServer(server);
  rmSync(server.dataDir, { recursive: true, force: true });
}
