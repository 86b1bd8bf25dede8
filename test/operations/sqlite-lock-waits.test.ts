// SQLite locks never stall the event loop (issue #12, item 2). better-sqlite3's
// calls are synchronous, so a call that waited for a lock inside SQLite would
// stop every request of the process; the store waits on timers instead, and
// its connections to one file share one in-process queue however the file's
// path is spelled.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreBusyError, StoreDatabaseError } from '../../src/index.js';
import { holdWriteLock, withStallWatch } from '../support/sqlite-locks.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

/** How long the lock holder holds the lock: a wait inside SQLite would stall the event loop for all of it. */
const HOLD_MS = 5_000;
/** What the event loop may lag on a loaded machine (calls that do not wait settle in microtasks, without a timer's turn). */
const STALL_LIMIT_MS = 2_500;

const opened: InternalStoreApp[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
async function open(url: string, sqliteBusyTimeoutMs?: number): Promise<InternalStoreApp> {
  const store = await storeApp({ url, sqliteBusyTimeoutMs });
  opened.push(store);
  return store;
}

/** Every kind of write: the fast append, Prisma's transactions (a compaction, a create, a subtree delete). */
async function writes(store: InternalStoreApp, name: string): Promise<void> {
  await store.messages.append(name, { role: 'user', content: `${name} 1` });
  await store.messages.appendMany(name, [
    { role: 'assistant', content: `${name} 2` },
    { role: 'user', content: `${name} 3` },
  ]);
  await store.messages.appendCompaction(name, [{ role: 'system', content: `${name} summary` }], 2, 0);
  await store.sessions.create({ id: `${name}-created`, title: name });
  await store.transcripts.addSubsession(name, `${name}-child`);
  await store.messages.append(`${name}-child`, { role: 'user', content: `${name} child` });
  await store.transcripts.deleteTranscript(`${name}-child`);
}

test('two stores of one process on one file spelled two ways (a symlinked directory, a ..) write at once without waiting out the busy timeout', async () => {
  const real = mkdtempSync(join(tmpdir(), 'agent-store-real-'));
  mkdirSync(join(real, 'sub'));
  const linked = join(mkdtempSync(join(tmpdir(), 'agent-store-link-')), 'linked');
  symlinkSync(real, linked);
  const spellings = [join(real, 'store.db'), join(linked, 'store.db'), join(real, 'sub', '..', 'store.db')];
  const stores: InternalStoreApp[] = [];
  // A statement that met another store's lock would wait inside SQLite, the event loop stopped, for all of the 30 s.
  for (const path of spellings) stores.push(await open(`file:${path}`, 30_000));

  const started = Date.now();
  await Promise.all(stores.flatMap((store, s) => [0, 1, 2].map((k) => writes(store, `t${s}-${k}`))));

  // Under a second here; each store waits only for the others' statements, in one queue.
  expect(Date.now() - started).toBeLessThan(15_000);
  for (let s = 0; s < stores.length; s++) {
    for (let k = 0; k < 3; k++) {
      const name = `t${s}-${k}`;
      // Every store reads what every other one wrote: one file.
      for (const reader of stores) {
        expect((await reader.messages.getHistory(name)).map((m) => m.content)).toEqual([`${name} summary`, `${name} 3`]);
        expect((await reader.sessions.get(`${name}-created`))?.title).toBe(name);
        expect(await reader.sessions.get(`${name}-child`)).toBeNull();
      }
    }
  }
});

test("another process's write lock: every kind of call waits on timers, the event loop runs on, and the calls go on once it is released", async () => {
  const store = await open(`file:${join(mkdtempSync(join(tmpdir(), 'agent-store-held-')), 'store.db')}`);
  await store.messages.append('before', { role: 'user', content: 'before the lock' });
  const holder = await holdWriteLock(store.url.slice('file:'.length), HOLD_MS);

  const { stallMs, elapsedMs } = await withStallWatch(async () => {
    // Reads go on at once beside the lock (WAL): only the writes wait.
    const read = await store.messages.getHistory('before');
    expect(read.map((m) => m.content)).toEqual(['before the lock']);
    await Promise.all([writes(store, 'a'), writes(store, 'b'), holder.released]);
  });

  expect(stallMs).toBeLessThan(STALL_LIMIT_MS);
  // They did wait for the lock: the writes could not have ended before the release.
  expect(elapsedMs).toBeGreaterThan(HOLD_MS - 1_000);
  for (const name of ['a', 'b']) expect((await store.messages.getHistory(name)).map((m) => m.content)).toEqual([`${name} summary`, `${name} 3`]);
});

test('past sqliteBusyTimeoutMs a call fails with StoreBusyError, without stalling the event loop meanwhile, and writes nothing', async () => {
  const store = await open(`file:${join(mkdtempSync(join(tmpdir(), 'agent-store-held-')), 'store.db')}`, 100);
  await store.messages.append('thread', { role: 'user', content: 'kept' });
  const holder = await holdWriteLock(store.url.slice('file:'.length), HOLD_MS);

  const { result, stallMs, elapsedMs } = await withStallWatch(() => store.messages.append('thread', { role: 'user', content: 'refused' }).then(() => 'stored', (error: unknown) => error));

  expect(result).toBeInstanceOf(StoreBusyError);
  expect(stallMs).toBeLessThan(STALL_LIMIT_MS);
  // Each of the store's attempts waited its 100 ms, and no longer: the call gave up long before the lock was released.
  expect(elapsedMs).toBeGreaterThan(100);
  expect(elapsedMs).toBeLessThan(HOLD_MS - 1_000);
  await holder.released;
  expect((await store.messages.getTranscript('thread')).map((m) => m.content)).toEqual(['kept']);
});

test("a driver's error on the read paths, which run on better-sqlite3 directly, leaves as a StoreError read by SQLite's classifier", async () => {
  const store = await open(`file:${join(mkdtempSync(join(tmpdir(), 'agent-store-broken-')), 'store.db')}`);
  await store.messages.append('thread', { role: 'user', content: 'kept' });
  const other = new Database(store.url.slice('file:'.length));
  try {
    other.exec('DROP TABLE agent_boundary');
  } finally {
    other.close();
  }
  for (const read of [() => store.messages.getHistory('thread'), () => store.messages.count('thread')]) {
    const error = await read().then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(StoreDatabaseError);
    expect(error).toMatchObject({ message: expect.stringContaining('no such table: agent_boundary'), cause: expect.objectContaining({ code: 'SQLITE_ERROR' }) });
  }
});
