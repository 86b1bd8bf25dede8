// A VACUUM rewrites the whole file: about 0.8 s for 100 MB, which on the
// process's own thread would hold every request that long. It runs on a
// connection of its own in a worker thread, then checkpoints the log it wrote;
// the process's connections wait for its lock on timers meanwhile. Erasing
// calls that end together share one rebuild rather than queue one each. The
// worker is started once (a start costs about 40 ms, a small file's rebuild 5)
// and stopped when idle; it keeps the process alive only while it has work.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

type Answer = 'done' | 'busy';

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');
/** How long the worker stays after its last rebuild. */
const IDLE_MS = 10_000;

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
parentPort.on('message', ({ id, path }) => {
  let db;
  try {
    // A wait for the lock in SQLite's busy handler is a sleep of this thread, not the process's.
    db = new Database(path, { timeout: 250, fileMustExist: true });
    db.exec('VACUUM');
    const [{ busy }] = db.pragma('wal_checkpoint(TRUNCATE)');
    parentPort.postMessage({ id, answer: busy === 0 ? 'done' : 'busy' });
  } catch (error) {
    parentPort.postMessage({ id, answer: /^SQLITE_(BUSY|LOCKED)/.test(error.code) ? 'busy' : { message: error.message } });
  } finally {
    db?.close();
  }
});`;

/** Each file's rebuild under way, and the one that starts when it ends, shared by every call that asked meanwhile. */
const running = new Map<string, Promise<Answer>>();
const next = new Map<string, Promise<Answer>>();

/**
 * A rebuild of the file at `path` that starts after this call (one under way may have
 * started before the caller's delete committed): the next one, which every caller
 * until it starts shares. 'busy' when another connection held it back.
 */
export function rebuildAfterNow(path: string): Promise<Answer> {
  const queued = next.get(path);
  if (queued) return queued;
  const start = () => {
    next.delete(path);
    const rebuild = vacuumOffThread(path).finally(() => {
      if (running.get(path) === rebuild) running.delete(path);
    });
    running.set(path, rebuild);
    return rebuild;
  };
  const current = running.get(path);
  if (!current) return start();
  const later = current.then(start, start);
  next.set(path, later);
  return later;
}

interface Job {
  path: string;
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

/** The worker thread and the jobs sent to it. */
interface Rebuilder {
  thread: Worker;
  jobs: Map<number, Job>;
  idle?: NodeJS.Timeout;
}

let current: Rebuilder | undefined;
let lastJob = 0;

/** VACUUM and a truncating checkpoint of the file at `path`, off the event loop: 'busy' when another connection held them back. */
function vacuumOffThread(path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const rebuilder = current ?? started();
    const id = ++lastJob;
    rebuilder.jobs.set(id, { path, resolve, reject });
    clearTimeout(rebuilder.idle);
    rebuilder.thread.ref();
    rebuilder.thread.postMessage({ id, path });
  });
}

function started(): Rebuilder {
  const rebuilder: Rebuilder = { thread: new Worker(SOURCE, { eval: true, workerData: { driver: DRIVER } }), jobs: new Map() };
  const { thread, jobs } = rebuilder;
  const stopped = (error: Error) => {
    if (current === rebuilder) current = undefined;
    for (const job of jobs.values()) job.reject(error);
    jobs.clear();
  };
  thread.on('message', ({ id, answer }: { id: number; answer: Answer | { message: string } }) => {
    const job = jobs.get(id);
    if (!job) return;
    jobs.delete(id);
    if (typeof answer === 'string') job.resolve(answer);
    else job.reject(new Error(`VACUUM of ${job.path} failed: ${answer.message}`));
    if (jobs.size > 0) return;
    thread.unref();
    rebuilder.idle = setTimeout(() => {
      if (current === rebuilder) current = undefined;
      void thread.terminate();
    }, IDLE_MS).unref();
  });
  thread.on('error', stopped);
  thread.on('exit', (code) => stopped(new Error(`the VACUUM worker exited (${code}) without an answer`)));
  return (current = rebuilder);
}
