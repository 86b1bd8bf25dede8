// A VACUUM rewrites the whole file: about 0.8 s for 100 MB, which on the
// process's own thread would hold every request that long. It runs on a
// connection of its own in a worker thread, then checkpoints the log it wrote;
// the process's connections wait for its lock on timers meanwhile. A checkpoint
// alone runs there too, so that no connection of the process ever waits for
// one in SQLite's busy handler. Erasing calls that end together share one
// job rather than queue one each. The
// worker is started once (a start costs about 40 ms, a small file's rebuild 5)
// and stopped when idle; it keeps the process alive only while it has work.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What a job did: `done` when the file was rebuilt (if asked) and its log checkpointed and truncated. */
export interface Outcome {
  done: boolean;
  /** The rebuild ran (and committed), even if the checkpoint was held back after it. */
  vacuumed: boolean;
  /** When the job started (performance.now()): it removed whatever was deleted before. */
  startedAt: number;
}

type Answer = Omit<Outcome, 'startedAt'>;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');
/** How long the worker stays after its last job. */
const IDLE_MS = 10_000;

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const busy = (error) => /^SQLITE_(BUSY|LOCKED)/.test(error.code);
parentPort.on('message', ({ id, path, vacuum }) => {
  let db;
  let vacuumed = false;
  try {
    // A wait for the lock in SQLite's busy handler is a sleep of this thread, not the process's.
    db = new Database(path, { timeout: 250, fileMustExist: true });
    if (vacuum) {
      db.exec('VACUUM');
      vacuumed = true;
    }
    const [{ busy: held }] = db.pragma('wal_checkpoint(TRUNCATE)');
    parentPort.postMessage({ id, answer: { done: held === 0, vacuumed } });
  } catch (error) {
    parentPort.postMessage({ id, answer: busy(error) ? { done: false, vacuumed } : { message: error.message } });
  } finally {
    db?.close();
  }
});`;

/** Each file's job under way, and the one that starts when it ends, shared by every call that asked meanwhile; by kind and file. */
const running = new Map<string, Promise<Outcome>>();
const next = new Map<string, Promise<Outcome>>();

/**
 * A rebuild (`vacuum`) and checkpoint, or a checkpoint alone, of the file at `path`, that starts
 * after this call (one under way may have started before the caller's delete committed): the
 * next one, which every caller until it starts shares.
 */
export function finishedAfterNow(path: string, vacuum: boolean): Promise<Outcome> {
  const key = `${vacuum ? 'rebuild' : 'checkpoint'}:${path}`;
  const queued = next.get(key);
  if (queued) return queued;
  const start = () => {
    next.delete(key);
    const job = offThread(path, vacuum).finally(() => {
      if (running.get(key) === job) running.delete(key);
    });
    running.set(key, job);
    return job;
  };
  const current = running.get(key);
  if (!current) return start();
  const later = current.then(start, start);
  next.set(key, later);
  return later;
}

interface Job {
  path: string;
  startedAt: number;
  resolve(outcome: Outcome): void;
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

/** The job on the worker thread, off the event loop. */
function offThread(path: string, vacuum: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const rebuilder = current ?? started();
    const id = ++lastJob;
    rebuilder.jobs.set(id, { path, startedAt: performance.now(), resolve, reject });
    clearTimeout(rebuilder.idle);
    rebuilder.thread.ref();
    rebuilder.thread.postMessage({ id, path, vacuum });
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
    if ('done' in answer) job.resolve({ ...answer, startedAt: job.startedAt });
    else job.reject(new Error(`the rebuild of ${job.path} failed: ${answer.message}`));
    if (jobs.size > 0) return;
    thread.unref();
    rebuilder.idle = setTimeout(() => {
      if (current === rebuilder) current = undefined;
      void thread.terminate();
    }, IDLE_MS).unref();
  });
  thread.on('error', stopped);
  thread.on('exit', (code) => stopped(new Error(`the rebuild's worker thread exited (${code}) without an answer`)));
  return (current = rebuilder);
}
