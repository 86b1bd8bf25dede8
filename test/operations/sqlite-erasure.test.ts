// Erased means gone from the SQLite file: after eraseTenant, purge, pruneTranscript and
// deleteTranscript return, no byte of what they deleted is in the database file or its
// write-ahead log, on the store's own file and on an application's own PrismaClient.
// Where another connection's open read holds the checkpoint back, the call waits a
// bounded time, then fails with a StoreBusyError that says what is left and how to finish.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { Test } from '@nestjs/testing';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import Database from 'better-sqlite3';
import {
  HistoryProviders,
  MessageStore,
  SessionStore,
  StoreBusyError,
  StoreMaintenance,
  StoreDatabaseError,
  StoreModule,
  TenantStores,
  TranscriptStore,
  type MessageInput,
  type StoreModuleOptions,
} from '../../src/index.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { IntegrationStore } from '../../src/contract/index.js';
import { ERASURE_CHECKPOINT_WAIT_MS } from '../../src/databases/sqlite/erasure.js';
import { finishedAfterNow } from '../../src/databases/sqlite/vacuum-worker.js';
import { SQLITE } from '../support/databases.js';
import { appClient, migratedUrl } from '../support/openers.js';
import { storeApp, storeThroughPrisma, type InternalStoreApp } from '../support/store-app.js';

/** How often `marker` occurs in the database file and its write-ahead log, as bytes (UTF-8 and, for safety, UTF-16). */
function occurrences(store: InternalStoreApp, marker: string): number {
  const path = store.url.replace(/^file:/, '');
  let count = 0;
  for (const file of [path, `${path}-wal`]) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const needle of [Buffer.from(marker, 'utf8'), Buffer.from(marker, 'utf16le')]) {
      for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) count++;
    }
  }
  return count;
}

const said = (marker: string, what: string): MessageInput => ({
  role: 'user',
  content: `${what} ${marker} ${'said at length '.repeat(20)}`,
  metadata: { note: marker },
});

/**
 * Appends `count` messages that say `marker` to `threadId`, interleaved with another thread's, then deletes the
 * other thread's with secure_delete off: SQLite merges the pages they shared and frees the rest, with copies of
 * `threadId`'s messages on them, as in a file an earlier release wrote (or your own client before its first erasing call).
 */
async function copiesOnFreedPages(store: InternalStoreApp, threadId: string, marker: string, count: number): Promise<void> {
  const other = `interleaved-${randomUUID()}`;
  for (let i = 0; i < count; i++) {
    await store.messages.appendMany(threadId, [said(marker, `m${i}`)]);
    await store.messages.appendMany(other, [{ role: 'user', content: `other ${'o'.repeat(1_500)}` }]);
  }
  const db = new Database(store.url.replace(/^file:/, ''));
  try {
    db.pragma('secure_delete = OFF');
    expect(db.prepare('DELETE FROM agent_message WHERE thread_id = ?').run(other).changes).toBe(count);
  } finally {
    db.close();
  }
}

/** What `job` does while another connection holds a read open on the store's file: how it failed, how long it took, the longest wait of a 5 ms timer meanwhile. */
async function whileReadHeld(store: InternalStoreApp, job: () => Promise<unknown>): Promise<{ failed: unknown; took: number; longestGap: number }> {
  const reader = new Database(store.url.replace(/^file:/, ''), { readonly: true });
  try {
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM agent_message').get();
    const started = Date.now();
    let [last, longest] = [performance.now(), 0];
    const timer = setInterval(() => {
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }, 5);
    const failed = await job().then(
      () => undefined,
      (error: unknown) => error,
    );
    clearInterval(timer);
    return { failed, took: Date.now() - started, longestGap: Math.max(longest, performance.now() - last) };
  } finally {
    reader.exec('COMMIT');
    reader.close();
  }
}

/** Expects what whileReadHeld saw of an erasing call: a StoreBusyError after the bounded wait, which ran on timers (the process went on). */
function expectHeldBack({ failed, took, longestGap }: { failed: unknown; took: number; longestGap: number }): void {
  // A wait in SQLite's busy handler would stop the event loop for the whole wait; a loaded machine, for a moment.
  expect(longestGap).toBeLessThan(2_000);
  expect(failed).toBeInstanceOf(StoreBusyError);
  expect((failed as Error).message).toMatch(
    /the erased rows are deleted, but their bytes stay in the SQLite file and its write-ahead log .* held back for \d+\.\d s: .* run the same call again/,
  );
  expect(took).toBeGreaterThanOrEqual(ERASURE_CHECKPOINT_WAIT_MS - 100);
  expect(took).toBeLessThan(ERASURE_CHECKPOINT_WAIT_MS + 5_000);
}

/** Adds `megabytes` of other data to the store's file, so that a rebuild of it takes long enough to count. */
function addFiller(store: InternalStoreApp, megabytes: number): void {
  const db = new Database(store.url.replace(/^file:/, ''));
  try {
    db.exec('CREATE TABLE IF NOT EXISTS filler (b BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(1000000))');
    for (let i = 0; i < megabytes; i++) insert.run();
  } finally {
    db.close();
  }
}

const fileSize = (store: InternalStoreApp, suffix = '') => {
  const path = `${store.url.replace(/^file:/, '')}${suffix}`;
  return existsSync(path) ? statSync(path).size : 0;
};

/** The store on an app's own PrismaClient on Prisma's stock adapter, whose connection waits in SQLite's busy handler (busy_timeout 5000). */
async function storeOnStockAdapter(options: Omit<StoreModuleOptions, 'prisma'> = {}): Promise<InternalStoreApp> {
  const url = await migratedUrl(SQLITE);
  const prisma = await appClient(SQLITE, url, { adapter: new PrismaBetterSqlite3({ url }) });
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ ...options, prisma })] }).compile();
  await app.init();
  const messages = app.get(MessageStore);
  return {
    app,
    url,
    messages,
    transcripts: app.get(TranscriptStore),
    sessions: app.get(SessionStore),
    tenants: app.get(TenantStores),
    histories: app.get(HistoryProviders),
    db: app.get(StoreDatabase),
    integration: app.get(IntegrationStore),
    close: async () => {
      await app.close();
      await prisma.$disconnect();
    },
  };
}

describe.each([
  ['the store on its own file', () => storeApp()],
  ['the store on your own PrismaClient', () => storeThroughPrisma(SQLITE)],
  ["the store on your own PrismaClient on Prisma's stock adapter", storeOnStockAdapter],
])('%s', (_name, open) => {
  let store: InternalStoreApp;
  let maintenance: StoreMaintenance;
  beforeAll(async () => {
    store = await open();
    maintenance = store.app.get(StoreMaintenance);
  });
  afterAll(() => store.close());

  /** Writes what `write` writes under a fresh marker, checks the files hold it, runs `erase`, and expects none of it left. */
  async function expectErased(write: (marker: string) => Promise<void>, erase: (marker: string) => Promise<unknown>): Promise<void> {
    const marker = `secret-${randomUUID()}`;
    await write(marker);
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    await erase(marker);
    expect(occurrences(store, marker)).toBe(0);
  }

  test("eraseTenant: none of the tenant's ids, titles, metadata or messages is left", async () => {
    await expectErased(
      async (marker) => {
        const tenant = store.tenants.forTenant(`tenant-${marker}`);
        for (let i = 0; i < 20; i++) {
          await tenant.sessions.create({ id: `${marker}-${i}`, title: `Title ${marker}`, metadata: { owner: marker } });
          await tenant.messages.appendMany(`${marker}-${i}`, [said(marker, 'one'), said(marker, 'two')]);
        }
        await tenant.transcripts.addSubsession(`${marker}-0`, `${marker}-1`);
        await tenant.transcripts.deleteTranscript(`${marker}-2`);
      },
      (marker) => maintenance.eraseTenant(`tenant-${marker}`),
    );
  });

  test('eraseTenant of a tenant whose rows are interleaved with another’s over many pages (SQLite’s page rebuilds leave stale copies of cells, which the rebuild of the file removes)', async () => {
    const big = (marker: string) => `${marker} ${'z'.repeat(6_000)} ${marker}`;
    await expectErased(
      async (marker) => {
        const [mine, other] = [store.tenants.forTenant(`big-${marker}`), store.tenants.forTenant('big-other')];
        for (let i = 0; i < 400; i++) {
          const [id, otherId] = [`k${String(i).padStart(5, '0')}a-${marker}`, `k${String(i).padStart(5, '0')}b-${randomUUID()}`];
          await mine.sessions.create({ id, title: marker, metadata: { m: marker } });
          await other.sessions.create({ id: otherId, title: 'other' });
          await mine.messages.appendMany(id, [
            { role: 'user', content: big(marker), id: `mid-${marker}-${i}` },
            { role: 'assistant', content: marker },
          ]);
          await other.messages.appendMany(otherId, [{ role: 'user', content: 'other', id: `mid-other-${i}` }]);
        }
      },
      (marker) => maintenance.eraseTenant(`big-${marker}`),
    );
  }, 120_000);

  test('purge: none of the purged trees’ titles, metadata or messages is left', async () => {
    await expectErased(
      async (marker) => {
        for (let i = 0; i < 10; i++) {
          await store.sessions.create({ id: `purged-${i}-${randomUUID()}`, tenantId: 'purged', title: `Title ${marker}`, metadata: { owner: marker } });
        }
        for (const { id } of (await store.sessions.list({ tenantId: 'purged' })).sessions) await store.messages.appendMany(id, [said(marker, 'one')]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
      () => maintenance.purge({ updatedBefore: new Date(), tenantId: 'purged', batchSize: 3 }),
    );
  });

  test('pruneTranscript: none of the pruned messages is left, what stays is read as before', async () => {
    const id = `pruned-${randomUUID()}`;
    await expectErased(
      async (marker) => {
        await store.messages.appendMany(
          id,
          Array.from({ length: 50 }, (_, i) => said(marker, `m${i}`)),
        );
        await store.messages.appendCompaction(id, [{ role: 'user', content: 'the summary' }], 50, 0);
      },
      () => store.messages.pruneTranscript(id),
    );
    expect((await store.messages.getHistory(id)).map((message) => message.content)).toEqual(['the summary']);
  });

  test('deleteTranscript: none of the tree’s titles, metadata or messages is left', async () => {
    // The ids stay, in the tombstones that keep them from being written again: the marker is not in them.
    const root = `deleted-${randomUUID()}`;
    await expectErased(
      async (marker) => {
        await store.sessions.create({ id: root, title: `Title ${marker}`, metadata: { owner: marker } });
        await store.messages.appendMany(root, [said(marker, 'root')]);
        await store.sessions.create({ id: `${root}/child`, parentId: root, title: `Child ${marker}` });
        await store.messages.appendMany(`${root}/child`, [said(marker, 'child')]);
      },
      () => store.transcripts.deleteTranscript(root),
    );
    expect(await store.sessions.get(`${root}/child`)).toBeNull();
  });

  test('pruneTranscript: no copy of the pruned messages is left either on pages freed without secure_delete (a file of an earlier release)', async () => {
    const id = `pruned-old-${randomUUID()}`;
    await expectErased(
      async (marker) => {
        await copiesOnFreedPages(store, id, marker, 200);
        await store.messages.appendCompaction(id, [{ role: 'user', content: 'the summary' }], 200, 0);
      },
      () => store.messages.pruneTranscript(id),
    );
    expect((await store.messages.getHistory(id)).map((message) => message.content)).toEqual(['the summary']);
  });

  test('deleteTranscript: no copy of the tree’s messages is left either on pages freed without secure_delete (a file of an earlier release)', async () => {
    const root = `deleted-old-${randomUUID()}`;
    await expectErased(
      async (marker) => {
        await store.sessions.create({ id: root, title: `Title ${marker}` });
        await store.sessions.create({ id: `${root}/child`, parentId: root });
        await copiesOnFreedPages(store, `${root}/child`, marker, 200);
      },
      () => store.transcripts.deleteTranscript(root),
    );
    expect(await store.sessions.get(`${root}/child`)).toBeNull();
  });

  test('a call that deletes nothing rebuilds nothing: a delete or prune of what is not there costs no rewrite of the file', async () => {
    const db = new Database(store.url.replace(/^file:/, ''));
    const freePages = () => Number(db.pragma('freelist_count', { simple: true }));
    try {
      db.exec('CREATE TABLE scratch (b BLOB)');
      db.prepare('INSERT INTO scratch VALUES (randomblob(2000000))').run();
      db.exec('DROP TABLE scratch');
      const id = `nothing-${randomUUID()}`;
      await store.messages.appendMany(id, [said('kept', 'one')]);
      const free = freePages();
      expect(free).toBeGreaterThan(0);
      expect(await store.transcripts.deleteTranscript(`missing-${randomUUID()}`)).toBe(0);
      expect(await store.transcripts.removeTranscript(`missing-${randomUUID()}`)).toBe(false);
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 0, boundaries: 0 });
      // The free pages a rebuild would have dropped are all still there.
      expect(freePages()).toBeGreaterThanOrEqual(free);
      await store.transcripts.deleteTranscript(id);
      expect(freePages()).toBe(0);
    } finally {
      db.close();
    }
  });

  test("another connection's open read holds the checkpoint back: eraseTenant fails with a StoreBusyError after the wait, the rows deleted; run again once the read ends, nothing is left", async () => {
    const marker = `secret-${randomUUID()}`;
    const tenant = store.tenants.forTenant(`held-${marker}`);
    await tenant.sessions.create({ id: marker, title: `Title ${marker}` });
    await tenant.messages.appendMany(marker, [said(marker, 'one')]);
    expectHeldBack(await whileReadHeld(store, () => maintenance.eraseTenant(`held-${marker}`)));
    expect(await tenant.sessions.get(marker)).toBeNull();
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    expect(await maintenance.eraseTenant(`held-${marker}`)).toEqual({ sessions: 0, tombstones: 0, checkpoints: 0, pendingWrites: 0 });
    expect(occurrences(store, marker)).toBe(0);
  }, 30_000);

  test('a read held open: deleteTranscript rebuilds the file once, not at each try (the log grows by one copy of the file at most), fails with a StoreBusyError, and the same call again, deleting nothing, finishes', async () => {
    addFiller(store, 10);
    const marker = `secret-${randomUUID()}`;
    const root = `held-tree-${randomUUID()}`;
    await store.sessions.create({ id: root, title: `Title ${marker}` });
    await store.messages.appendMany(root, [said(marker, 'one')]);
    expectHeldBack(await whileReadHeld(store, () => store.transcripts.deleteTranscript(root)));
    expect(fileSize(store, '-wal')).toBeLessThan(1.5 * fileSize(store) + 1_000_000);
    expect(await store.sessions.get(root)).toBeNull();
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    expect(await store.transcripts.deleteTranscript(root)).toBe(0);
    expect(occurrences(store, marker)).toBe(0);
  }, 30_000);
});

describe.each([
  ['the store on its own file', () => storeApp({ sqliteVacuum: 'bulk-jobs' })],
  ['the store on your own PrismaClient', () => storeThroughPrisma(SQLITE, { sqliteVacuum: 'bulk-jobs' })],
  ["the store on your own PrismaClient on Prisma's stock adapter", () => storeOnStockAdapter({ sqliteVacuum: 'bulk-jobs' })],
])("sqliteVacuum: 'bulk-jobs', %s", (_name, open) => {
  let store: InternalStoreApp;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store.close());

  test('deleteTranscript of one session leaves the copies a connection without secure_delete made until the next bulk job, which removes them', async () => {
    const marker = `secret-${randomUUID()}`;
    const root = `deferred-${randomUUID()}`;
    await store.sessions.create({ id: root });
    await copiesOnFreedPages(store, root, marker, 200);
    await store.transcripts.deleteTranscript(root);
    expect(await store.sessions.get(root)).toBeNull();
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    await store.app.get(StoreMaintenance).purge({ updatedBefore: new Date(0) });
    expect(occurrences(store, marker)).toBe(0);
  });

  test('pruneTranscript leaves them too until the next bulk job, which removes them', async () => {
    const marker = `secret-${randomUUID()}`;
    const id = `deferred-prune-${randomUUID()}`;
    await copiesOnFreedPages(store, id, marker, 200);
    await store.messages.appendCompaction(id, [{ role: 'user', content: 'the summary' }], 200, 0);
    expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 200, boundaries: 0 });
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    await store.app.get(StoreMaintenance).pruneTranscripts({ compactedBefore: new Date(0) });
    expect(occurrences(store, marker)).toBe(0);
  });

  test('a read held open: deleteTranscript’s checkpoint waits on timers, never in SQLite’s busy handler, then fails with a StoreBusyError; the same call again finishes', async () => {
    const marker = `secret-${randomUUID()}`;
    const root = `held-${randomUUID()}`;
    await store.sessions.create({ id: root, title: `Title ${marker}` });
    await store.messages.appendMany(root, [said(marker, 'one')]);
    expectHeldBack(await whileReadHeld(store, () => store.transcripts.deleteTranscript(root)));
    expect(occurrences(store, marker)).toBeGreaterThan(0);
    expect(await store.transcripts.deleteTranscript(root)).toBe(0);
    expect(occurrences(store, marker)).toBe(0);
  }, 30_000);
});

describe('a rebuild that cannot run', () => {
  test('fails with a StoreDatabaseError that says the rows are deleted, what is left and how to finish', async () => {
    const store = await storeApp();
    try {
      const root = `unrebuilt-${randomUUID()}`;
      await store.sessions.create({ id: root, title: 'doomed' });
      // The store's connection keeps the file it opened; the rebuild's own connection finds none at its path.
      unlinkSync(store.url.replace(/^file:/, ''));
      const failed = await store.transcripts.deleteTranscript(root).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StoreDatabaseError);
      expect((failed as Error).message).toMatch(
        /the erased rows are deleted, but their bytes stay .* which failed: .*unable to open database file.* run the same call again, or any bulk job/,
      );
      expect(await store.sessions.get(root)).toBeNull();
    } finally {
      await store.close();
    }
  });
});

describe('erasing calls that end together', () => {
  let store: InternalStoreApp;
  beforeAll(async () => {
    store = await storeApp();
  });
  afterAll(() => store.close());

  test('share a rebuild of the file: six deletes at once take less than three times one delete, and none of them is left', async () => {
    addFiller(store, 60);
    const tree = async (marker: string) => {
      const root = `together-${randomUUID()}`;
      await store.sessions.create({ id: root, title: marker });
      await store.messages.appendMany(root, [said(marker, 'one')]);
      return root;
    };
    const timed = async (job: () => Promise<unknown>) => {
      const started = performance.now();
      await job();
      return performance.now() - started;
    };
    const one = await tree(`secret-${randomUUID()}`);
    const single = await timed(() => store.transcripts.deleteTranscript(one));
    const markers = Array.from({ length: 6 }, () => `secret-${randomUUID()}`);
    const roots = await Promise.all(markers.map(tree));
    const together = await timed(() => Promise.all(roots.map((root) => store.transcripts.deleteTranscript(root))));
    expect(together).toBeLessThan(3 * single);
    for (const marker of markers) expect(occurrences(store, marker)).toBe(0);
  }, 60_000);

  test('a call made while a rebuild runs gets the next one, which starts after it (the running one may have started before the call’s delete committed); later calls share that next one', async () => {
    const path = store.url.replace(/^file:/, '');
    const first = finishedAfterNow(path, true);
    // Told before the next one can start, which waits for the same end.
    const firstEnded = first.then(() => performance.now());
    const second = finishedAfterNow(path, true);
    expect(second).not.toBe(first);
    expect(finishedAfterNow(path, true)).toBe(second);
    const [ended, next] = await Promise.all([firstEnded, second]);
    expect(next.done).toBe(true);
    expect(next.startedAt).toBeGreaterThanOrEqual(ended);
  }, 30_000);
});
