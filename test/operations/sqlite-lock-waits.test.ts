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

  // Each store waits for the others' statements only, on timers or in one queue: nothing waits out the 30 s.
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

test("another process's write lock: every kind of write waits on timers, the process's reads go on meanwhile, and the writes go on once it is released", async () => {
  const store = await open(`file:${join(mkdtempSync(join(tmpdir(), 'agent-store-held-')), 'store.db')}`);
  await store.messages.append('before', { role: 'user', content: 'before the lock' });
  const holder = await holdWriteLock(store.url.slice('file:'.length), HOLD_MS);
  const lockedAt = Date.now();

  const { stallMs } = await withStallWatch(async () => {
    const written = Promise.all([writes(store, 'a'), writes(store, 'b')]).then(() => Date.now());
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The writes wait outside the process's queue, and reads need no write lock (WAL): the fast paths and Prisma's read at once.
    const reading = Date.now();
    expect((await store.messages.getHistory('before')).map((m) => m.content)).toEqual(['before the lock']);
    expect(await store.messages.count('before')).toBe(1);
    expect((await store.sessions.get('before'))?.id).toBe('before');
    expect(Date.now() - reading).toBeLessThan(HOLD_MS / 2);
    // The writes could not end before the lock was released.
    expect(await written).toBeGreaterThanOrEqual(lockedAt + HOLD_MS - 500);
    await holder.released;
  });

  expect(stallMs).toBeLessThan(STALL_LIMIT_MS);
  for (const name of ['a', 'b']) expect((await store.messages.getHistory(name)).map((m) => m.content)).toEqual([`${name} summary`, `${name} 3`]);
});

test('past sqliteBusyTimeoutMs a write fails with StoreBusyError, on the fast path and through Prisma alike, without stalling the event loop meanwhile, and writes nothing', async () => {
  const store = await open(`file:${join(mkdtempSync(join(tmpdir(), 'agent-store-held-')), 'store.db')}`, 100);
  await store.messages.append('thread', { role: 'user', content: 'kept' });
  const holder = await holdWriteLock(store.url.slice('file:'.length), HOLD_MS);

  const timed = async (write: () => Promise<unknown>) => {
    const started = Date.now();
    const outcome = await write().then(
      () => 'stored',
      (error: unknown) => error,
    );
    return { outcome, ms: Date.now() - started };
  };
  const { result, stallMs } = await withStallWatch(() =>
    Promise.all([
      timed(() => store.messages.append('thread', { role: 'user', content: 'refused' })),
      timed(() => store.messages.appendCompaction('thread', [{ role: 'system', content: 'refused' }], 1, 0)),
      timed(() => store.sessions.create({ id: 'refused' })),
    ]),
  );

  expect(stallMs).toBeLessThan(STALL_LIMIT_MS);
  for (const { outcome, ms } of result) {
    expect(outcome).toBeInstanceOf(StoreBusyError);
    // Each of the store's 8 attempts waited its 100 ms, and no longer: the call gave up long before the lock was released.
    expect(ms).toBeGreaterThan(700);
    expect(ms).toBeLessThan(HOLD_MS - 1_000);
  }
  await holder.released;
  expect((await store.messages.getTranscript('thread')).map((m) => m.content)).toEqual(['kept']);
  expect(await store.sessions.get('refused')).toBeNull();
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
    const error = await read().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StoreDatabaseError);
    expect(error).toMatchObject({
      message: expect.stringContaining('no such table: agent_boundary'),
      cause: expect.objectContaining({ code: 'SQLITE_ERROR' }),
    });
  }
});
