// Throwaway database servers for one benchmark run, from the locally installed
// Debian binaries: loopback only, own data directories, stopped by pid.
//
// MariaDB comes from the test suite's startMariaDb, made durable again (the
// tests flush InnoDB's log once a second). PostgreSQL is started here because
// the tests' server runs with fsync off, a command-line setting nothing can
// turn back on; the benchmark measures PostgreSQL as it is deployed: fsync on.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import { mariadbConnection } from '../src/databases/mysql/index.js';
import { startMariaDb, stopServer, type RunningServer } from '../test/support/global-setup.js';

export type { RunningServer };
export { stopServer };

const isRoot = userInfo().uid === 0;

function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], 'bin');
}

/** A PostgreSQL with its durability defaults (fsync, synchronous_commit), or undefined without binaries. */
export async function startDurablePostgres(): Promise<RunningServer | undefined> {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-store-bench-pg-'));
  if (isRoot) chownSync(dataDir, idOf('-u'), idOf('-g'));
  run(bin, 'initdb', ['-D', join(dataDir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  run(bin, 'pg_ctl', [
    'start', '-w', '-D', join(dataDir, 'data'), '-l', join(dataDir, 'log'),
    '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c max_connections=200`,
  ]);
  const pid = Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { name: 'PostgreSQL', url: `postgresql://postgres@127.0.0.1:${port}/postgres`, pid, dataDir };
}

/** The tests' MariaDB, with every commit flushed to disk (the server default). */
export async function startDurableMariaDb(): Promise<RunningServer | undefined> {
  const server = await startMariaDb();
  if (!server) return undefined;
  try {
    const connection = await mariadb.createConnection(mariadbConnection(server.url));
    try {
      await connection.query('SET GLOBAL innodb_flush_log_at_trx_commit = 1');
    } finally {
      await connection.end();
    }
  } catch (error) {
    await stopServer(server);
    throw error;
  }
  return server;
}

/** Runs a PostgreSQL tool as the postgres user when we are root (the server refuses root). */
function run(bin: string, tool: string, args: string[]): void {
  const file = join(bin, tool);
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' });
  else execFileSync(file, args, { stdio: 'pipe' });
}

const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres']).toString().trim());

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
