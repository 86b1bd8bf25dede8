// Jest global setup: the run's temporary directory, and the broker of shared
// servers (server-broker.ts), which starts a PostgreSQL, a MariaDB, a PgBouncer,
// a replica pair or a Galera cluster the first time a test asks for it, so a
// run starts only what its files use. Missing binaries: a loud warning locally,
// a failed run under CI=true, before any test runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

declare global {
  /** Set here, called by global-teardown.ts. */
  var agentStoreStopServers: (() => Promise<void>) | undefined;
}

/** Where the test processes find the broker (shared-servers.ts reads it too). */
const BROKER_SOCKET_ENV = 'AGENT_STORE_TEST_BROKER';

export default async function globalSetup(): Promise<void> {
  // Every temporary file of the run (SQLite databases, servers' data directories) in one directory, removed at its end.
  const runDir = mkdtempSync(join(tmpdir(), 'agent-store-run-'));
  // As /tmp is: the servers, under their own users, keep temporary files there too.
  chmodSync(runDir, 0o1777);
  process.env.TMPDIR = runDir;
  const socket = join(runDir, 'servers.sock');
  // detached: a process group of its own, so that a Ctrl-C to jest's group reaches it only as jest's end, its stdin closing.
  const broker = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'server-broker.ts'), socket, runDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  globalThis.agentStoreStopServers = async () => {
    try {
      await stopBroker(broker);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  };
  try {
    await brokerReady(broker);
  } catch (error) {
    // Jest runs no teardown when the setup fails.
    await globalThis.agentStoreStopServers();
    throw error;
  }
  process.env[BROKER_SOCKET_ENV] = socket;
}

function brokerReady(broker: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    broker.stdout!.once('data', () => resolve());
    broker.once('exit', (code) => reject(new Error(`the broker of shared servers exited (code ${code}) before it was ready: see its error above`)));
  });
}

/** Closes the broker's stdin, which makes it stop its servers, and waits for it to exit. */
function stopBroker(broker: ChildProcess): Promise<void> {
  if (broker.exitCode !== null || broker.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    broker.once('exit', () => resolve());
    broker.stdin!.end();
  });
}
