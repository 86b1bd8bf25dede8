// better-sqlite3 is synchronous, and a call's promise settles without the event loop
// turning: a loop of awaited store calls would starve every timer, socket and health
// check of the process. The store gives way by elapsed time (give-way.ts). Here a 5 ms
// timer runs beside each workload, and the longest gap between its ticks stays under
// 50 ms. Each workload runs once on a small input first: Prisma compiles a query the
// first time the process runs it (50 to 200 ms, once), which no slicing can split, and
// the garbage the files run before this one left is collected first: in the alone phase
// they share one process, and a full collection of their heap stopped it for 179 ms once.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StoreMaintenance, type MessageInput } from '../../src/index.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const BOUND_MS = 50;
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const LARGE = 5_000;
const user = (content: string): MessageInput => ({ role: 'user', content });
const many = (count: number) => Array.from({ length: count }, (_, i) => user(`message ${i} ${'x'.repeat(200)}`));

/** Runs `work` beside a 5 ms interval; the longest the interval waited for a tick (the end of `work` included), and its ticks. */
async function longestGap(work: () => Promise<unknown>): Promise<{ gap: number; ticks: number; took: number }> {
  const started = performance.now();
  let last = started;
  let gap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    ticks++;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ended = performance.now();
  return { gap: Math.max(gap, ended - last), ticks, took: ended - started };
}

/** `work` (given a name for its data) once on small data, then measured on the large. */
async function expectResponsive(work: (size: 'small' | 'large') => Promise<unknown>): Promise<void> {
  await work('small');
  collectGarbage();
  const { gap, ticks, took } = await longestGap(() => work('large'));
  expect(Math.round(gap)).toBeLessThan(BOUND_MS);
  // The timer ran all along, not once at the end: at least a tick per bound's worth of time.
  expect(ticks).toBeGreaterThanOrEqual(Math.floor(took / BOUND_MS));
}

let store: InternalStoreApp;
let maintenance: StoreMaintenance;

beforeAll(async () => {
  store = await storeApp();
  maintenance = store.app.get(StoreMaintenance);
  await store.messages.appendMany('small', many(20));
  for (let from = 0; from < LARGE; from += 500) await store.messages.appendMany('large', many(500));
});
afterAll(() => store.close());

test('1,500 appends, each awaited', async () => {
  await expectResponsive(async (size) => {
    for (let i = 0; i < (size === 'large' ? 1_500 : 1); i++) await store.messages.append(`appends-${size}`, user(`m${i}`));
  });
});

test('1,500 getHistoryPage calls, each awaited', async () => {
  await expectResponsive(async (size) => {
    for (let i = 0; i < (size === 'large' ? 1_500 : 1); i++) await store.messages.getHistoryPage(size, { limit: 20 });
  });
});

test('eraseTenant of 200 sessions', async () => {
  await expectResponsive(async (size) => {
    const tenant = store.tenants.forTenant(`erased-${size}`);
    for (let i = 0; i < (size === 'large' ? 200 : 1); i++) {
      await tenant.sessions.create({ id: `erased-${size}-${i}` });
      await tenant.messages.appendMany(`erased-${size}-${i}`, [user('a'), user('b'), user('c')]);
    }
    await maintenance.eraseTenant(`erased-${size}`);
    expect((await tenant.sessions.list()).sessions).toEqual([]);
  });
});

test('purge of 200 trees, 5 a batch', async () => {
  await expectResponsive(async (size) => {
    const tenant = store.tenants.forTenant(`purged-${size}`);
    for (let i = 0; i < (size === 'large' ? 200 : 1); i++) {
      await tenant.sessions.create({ id: `purged-${size}-${i}` });
      await tenant.sessions.create({ id: `purged-${size}-${i}-child`, parentId: `purged-${size}-${i}` });
      await tenant.messages.appendMany(`purged-${size}-${i}`, [user('a'), user('b')]);
      await tenant.messages.appendMany(`purged-${size}-${i}-child`, [user('c')]);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await maintenance.purge({ updatedBefore: new Date(), tenantId: `purged-${size}`, batchSize: 5 })).toMatchObject({
      sessions: size === 'large' ? 400 : 2,
    });
  });
});

test(`export, import, fork and prune of a session of ${LARGE.toLocaleString('en')} messages`, async () => {
  const files = new Map<string, string>();
  await expectResponsive(async (size) => {
    let text = '';
    for await (const line of store.sessions.exportJsonl(size)) text += line;
    files.set(size, text);
  });
  await expectResponsive((size) => store.sessions.importJsonl(files.get(size)!, { sessionId: `imported-${size}` }));
  expect(await store.messages.count('imported-large')).toBe(LARGE);
  await expectResponsive((size) => store.sessions.fork(size, { id: `forked-${size}` }));
  expect(await store.messages.count('forked-large')).toBe(LARGE);
  for (const size of ['small', 'large']) await store.messages.appendCompaction(`forked-${size}`, [user('summary')], size === 'large' ? LARGE : 20, 0);
  await expectResponsive((size) => store.messages.pruneTranscript(`forked-${size}`));
  expect((await store.messages.getTranscript('forked-large')).length).toBeLessThan(LARGE);
});
