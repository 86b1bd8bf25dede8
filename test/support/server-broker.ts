// The run's broker of shared servers, a process of its own that the global
// setup starts (`node --import tsx server-broker.ts <socket>`). A test process
// asks it over the unix socket (GET /postgresql) and gets the server's url or
// urls, the first asker starting it; every test process of the run shares what
// it starts. When its stdin closes (the teardown ends it, or jest died) or it is
// signalled, it stops every server it started by pid, a start still under way
// included, removes the run's directory and exits. It prints "ready" once it
// listens; its log goes to stderr.
//   node --import tsx server-broker.ts <socket> <the run's directory>
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { SHARED_SERVERS, sharedServerAvailable, type SharedServerName, type StartedServer } from './shared-servers.js';

const [socketPath, runDir] = process.argv.slice(2);
const starts = new Map<SharedServerName, Promise<StartedServer>>();
/** Set once the broker stops: no server starts after stopAll has listed what to stop. */
let stopping = false;

function get(name: SharedServerName): Promise<string> {
  if (stopping) return Promise.reject(new Error(`the broker is stopping: no ${name} starts now`));
  const yours = process.env[SHARED_SERVERS[name].env];
  if (yours !== undefined) return Promise.resolve(yours);
  let start = starts.get(name);
  if (!start) {
    const began = Date.now();
    start = SHARED_SERVERS[name].start(get).then((server) => {
      console.error(`\n${server.description}, started in ${((Date.now() - began) / 1000).toFixed(1)} s`);
      return server;
    });
    // A failed start is not tried again: every test that needs the server gets the same error.
    starts.set(name, start);
  }
  return start.then((server) => server.value);
}

async function stopAll(): Promise<void> {
  const settled = await Promise.allSettled(starts.values());
  const stops = await Promise.allSettled(settled.flatMap((each) => (each.status === 'fulfilled' ? [each.value.stop()] : [])));
  for (const failed of stops) if (failed.status === 'rejected') console.error('a shared server did not stop:', failed.reason);
}

function checkBinaries(): void {
  const missing = (Object.keys(SHARED_SERVERS) as SharedServerName[]).filter((name) => !sharedServerAvailable(name));
  if (missing.length === 0) return;
  const message = missing.map((name) => `${name} (apt-get install ${SHARED_SERVERS[name].packages}, or set ${SHARED_SERVERS[name].env})`).join(', ');
  if (process.env.CI === 'true') throw new Error(`Missing servers: ${message}. CI needs every one`);
  console.error(`\n${'!'.repeat(78)}\n!! Missing servers: ${message}:\n!! the suites that need them are SKIPPED in this local run.\n${'!'.repeat(78)}`);
}

checkBinaries();
const server = createServer((request, response) => {
  const name = request.url?.slice(1) ?? '';
  if (!Object.hasOwn(SHARED_SERVERS, name)) return void response.writeHead(404).end(`no shared server is named '${name}'`);
  get(name as SharedServerName).then(
    (value) => response.writeHead(200).end(value),
    (error: Error) => response.writeHead(500).end(`the shared ${name} did not start: ${error.stack ?? error.message}`),
  );
});
server.listen(socketPath, () => console.log('ready'));
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close();
  void stopAll().then(() => {
    rmSync(runDir, { recursive: true, force: true });
    process.exit(0);
  });
};
process.stdin.resume();
process.stdin.on('close', stop);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
