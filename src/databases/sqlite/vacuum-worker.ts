// A VACUUM rewrites the whole file: about 0.8 s for 100 MB, which on the
// process's own thread would hold every request that long. It runs on a
// connection of its own in a worker thread, then checkpoints the log it wrote;
// the process's connections wait for its lock on timers meanwhile.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.path, { timeout: 0 });
  db.exec('VACUUM');
  const [{ busy }] = db.pragma('wal_checkpoint(TRUNCATE)');
  parentPort.postMessage(busy === 0 ? 'done' : 'busy');
} catch (error) {
  parentPort.postMessage(/^SQLITE_(BUSY|LOCKED)/.test(error.code) ? 'busy' : { message: error.message });
} finally {
  db?.close();
}`;

/** VACUUM and a truncating checkpoint of the file at `path`, off the event loop: 'busy' when another connection held them back. */
export function vacuumOffThread(path: string): Promise<'done' | 'busy'> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SOURCE, { eval: true, workerData: { driver: DRIVER, path } });
    worker.once('message', (answer: 'done' | 'busy' | { message: string }) => {
      if (typeof answer === 'string') resolve(answer);
      else reject(new Error(`VACUUM of ${path} failed: ${answer.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the VACUUM worker exited (${code}) without an answer`)));
  });
}
