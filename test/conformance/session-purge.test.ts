// StoreMaintenance.purge on SQLite, PostgreSQL and MariaDB: session trees none of whose sessions
// was written since the date are deleted whole, in batches that commit one by one; a purge racing
// appends leaves each session whole or gone, and does not stall appends to other sessions.
import { StoreNotFoundError, StoreValidationError, type MessageStore, type SessionStore } from '../../src/index.js';
import { maintenanceApp, type MaintenanceApp } from '../support/maintenance.js';
import { eachDatabaseBackend, storeOn, type StoreApp } from '../support/openers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const user = (text: string) => ({ role: 'user' as const, content: text });

eachDatabaseBackend((backend) => {
  const store = storeOn(backend);
  let ops: MaintenanceApp;
  beforeAll(async () => {
    ops = await maintenanceApp(store.url);
  });
  afterAll(() => ops?.close());

  let n = 0;
  const unique = (name: string) => `${name}-${++n}`;

  /** A root with `children` subsessions, each session with two messages, a compaction and a repair. */
  async function tree(tenantId: string, prefix: string, children = 1): Promise<string[]> {
    const { sessions, messages } = store.tenants.forTenant(tenantId);
    const root = await sessions.create({ id: `${prefix}-root` });
    const ids = [root];
    for (let i = 0; i < children; i++) ids.push(await sessions.create({ id: `${prefix}-child${i}`, parentId: root }));
    for (const id of ids) {
      await messages.appendMany(id, [user('a'), user('b')]);
      await messages.appendCompaction(id, [user('summary')], 2, 0);
      await messages.appendRepair(id, user('repair'), [user('balanced')], 1);
    }
    return ids;
  }

  /** A date after everything written so far, and before anything written next. */
  async function cutoff(): Promise<Date> {
    await sleep(5);
    const date = new Date();
    await sleep(5);
    return date;
  }

  /** The rows that name any of the sessions, in each table that holds a session's rows (tombstones apart), by table. */
  async function rowsOf(ids: string[]): Promise<Record<string, number>> {
    const { client } = ops.db;
    const threadId = { in: ids };
    const counts = {
      agent_thread: await client.agentThread.count({ where: { id: threadId } }),
      agent_message: await client.agentMessage.count({ where: { threadId } }),
      agent_boundary: await client.agentBoundary.count({ where: { threadId } }),
      agent_repair: await client.agentRepair.count({ where: { threadId } }),
      agent_subsession: await client.agentSubsession.count({ where: { OR: [{ parentId: threadId }, { childId: threadId }] } }),
    };
    return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
  }

  test('deletes the trees not written since the date, whole; a tree with a subsession written since is kept whole', async () => {
    const tenantId = unique('tenant');
    const old = await tree(tenantId, unique('old'), 2);
    const live = await tree(tenantId, unique('live'), 2);
    const before = await cutoff();
    await store.messages.append(live[2], user('recent'));

    const batches: string[][] = [];
    const report = await ops.maintenance.purge({ updatedBefore: before, tenantId, onBatch: ({ sessionIds }) => void batches.push(sessionIds) });
    expect(report).toEqual({ sessions: 3, batches: 1 });
    expect(batches.map((ids) => [...ids].sort())).toEqual([[...old].sort()]);
    expect(await rowsOf(old)).toEqual({});
    for (const id of live) expect(await store.sessions.get(id)).not.toBeNull();
    expect(await store.transcripts.getSubsessions(live[0])).toEqual(live.slice(1));
    expect((await store.messages.getTranscript(live[2])).map((m) => m.content)).toEqual(['a', 'b', 'recent']);
    expect(await store.messages.getRepairs(live[1])).toHaveLength(1);
  });

  test('a subsession added to an old tree since the date is a write: the tree it joins is kept', async () => {
    const tenantId = unique('tenant');
    const [parent] = await tree(tenantId, unique('joined'), 1);
    const child = await store.tenants.forTenant(tenantId).sessions.create({ id: unique('joiner') });
    const before = await cutoff();
    await store.transcripts.addSubsession(parent, child);
    expect((await store.sessions.get(parent))!.updatedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(await ops.maintenance.purge({ updatedBefore: before, tenantId })).toEqual({ sessions: 0, batches: 0 });
    expect(await store.transcripts.getSubsessions(parent)).toContain(child);
  });

  test('only the tenant given; a subsession alone is never deleted', async () => {
    const [mine, theirs] = [unique('tenant'), unique('tenant')];
    const kept = await tree(theirs, unique('theirs'));
    const gone = await tree(mine, unique('mine'));
    const before = await cutoff();
    await store.messages.append(gone[0], user('root written, child not'));
    expect(await ops.maintenance.purge({ updatedBefore: before, tenantId: mine })).toEqual({ sessions: 0, batches: 0 });
    expect(await ops.maintenance.purge({ updatedBefore: await cutoff(), tenantId: mine })).toEqual({ sessions: 2, batches: 1 });
    for (const id of kept) expect(await store.sessions.get(id)).not.toBeNull();
    expect(await rowsOf(gone)).toEqual({});
  });

  test('batches of batchSize trees, each told once committed; the report counts subsessions', async () => {
    const tenantId = unique('tenant');
    for (let i = 0; i < 5; i++) await tree(tenantId, unique('batch'));
    const sizes: number[] = [];
    const report = await ops.maintenance.purge({
      updatedBefore: await cutoff(),
      tenantId,
      batchSize: 2,
      onBatch: ({ sessionIds }) => void sizes.push(sessionIds.length),
    });
    expect(sizes).toEqual([4, 4, 2]);
    expect(report).toEqual({ sessions: 10, batches: 3 });
  });

  test('an error of onBatch stops the purge after its batch committed; the next run deletes the rest', async () => {
    const tenantId = unique('tenant');
    const trees = [];
    for (let i = 0; i < 5; i++) trees.push(await tree(tenantId, unique('resume')));
    const failure = new Error('the job died');
    await expect(
      ops.maintenance.purge({
        updatedBefore: await cutoff(),
        tenantId,
        batchSize: 2,
        onBatch: () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    expect((await store.tenants.forTenant(tenantId).sessions.list()).sessions).toHaveLength(3 * 2);
    expect(await ops.maintenance.purge({ updatedBefore: await cutoff(), tenantId, batchSize: 2 })).toEqual({ sessions: 6, batches: 2 });
    expect(await rowsOf(trees.flat())).toEqual({});
  });

  test('a write to a purged session is StoreNotFoundError, and brings nothing back', async () => {
    const tenantId = unique('tenant');
    const ids = await tree(tenantId, unique('late'));
    await ops.maintenance.purge({ updatedBefore: await cutoff(), tenantId });
    for (const id of ids) {
      await expect(store.messages.append(id, user('late'))).rejects.toThrow(StoreNotFoundError);
      await expect(store.sessions.append(id, { type: 'late', data: {} })).rejects.toThrow(StoreNotFoundError);
      await expect(store.transcripts.appendMessage(id, user('late'))).rejects.toThrow(StoreNotFoundError);
      await expect(store.messages.appendCompaction(id, [user('s')], 0, 0)).rejects.toThrow(StoreNotFoundError);
      await expect(store.chats.saveChat(id, [{ id: 'c', role: 'user', parts: [{ type: 'text', text: 'late' }] }])).rejects.toThrow(StoreNotFoundError);
    }
    expect(await rowsOf(ids)).toEqual({});
  });

  test('refuses bad options, deleting nothing', async () => {
    await expect(ops.maintenance.purge({} as never)).rejects.toThrow(StoreValidationError);
    await expect(ops.maintenance.purge({ updatedBefore: new Date(), batchSize: 0 })).rejects.toThrow(StoreValidationError);
    await expect(ops.maintenance.purge({ updatedBefore: new Date('nope') })).rejects.toThrow(StoreValidationError);
  });

  test('racing appends: each tree is whole with every acknowledged append, or gone with every append after failing; other sessions are not stalled', async () => {
    const tenantId = unique('tenant');
    const other = await store.another();
    try {
      const trees: string[][] = [];
      for (let i = 0; i < 24; i++) trees.push(await tree(tenantId, unique('race'), i % 3));
      const bystanders = [];
      for (let i = 0; i < 4; i++) bystanders.push(await store.sessions.create({ id: unique('bystander') }));
      const before = await cutoff();

      /** Per session: the texts acknowledged, and whether an append failed with StoreNotFoundError. */
      const acked = new Map<string, string[]>();
      const refused = new Set<string>();
      const writers: { messages: MessageStore; sessions: SessionStore }[] = [store, other as StoreApp];
      let done = false;
      async function writeTo(id: string, turn: number) {
        await sleep(Math.random() * 150);
        for (let k = 0; k < 6 && !done; k++) {
          const text = `${id} ${k}`;
          const writer = writers[(turn + k) % 2];
          try {
            if (k % 2 === 0) await writer.messages.append(id, user(text));
            else await writer.sessions.append(id, user(text));
          } catch (error) {
            if (!(error instanceof StoreNotFoundError)) throw error;
            refused.add(id);
            return;
          }
          acked.set(id, [...(acked.get(id) ?? []), text]);
          await sleep(Math.random() * 40);
        }
      }
      // Every other tree is written, one session of it (the root or a subsession).
      const written = trees.filter((_, i) => i % 2 === 0).map((ids, i) => ids[i % ids.length]);
      const latencies: number[] = [];
      async function bystander(id: string) {
        while (!done) {
          const start = performance.now();
          await store.messages.append(id, user('bystander'));
          latencies.push(performance.now() - start);
          await sleep(2);
        }
      }
      const writes = Promise.all(written.map((id, i) => writeTo(id, i)));
      const watching = Promise.all(bystanders.map(bystander));
      await sleep(30);
      const batchTimes: number[] = [];
      let last = performance.now();
      const report = await ops.maintenance.purge({
        updatedBefore: before,
        tenantId,
        batchSize: 3,
        onBatch: () => {
          const now = performance.now();
          batchTimes.push(now - last);
          last = now;
        },
      });
      await writes;
      done = true;
      await watching;

      let deleted = 0;
      for (const ids of trees) {
        const present = await Promise.all(ids.map((id) => store.sessions.get(id)));
        if (present.every((session) => session !== null)) {
          expect(await store.transcripts.getSubsessions(ids[0])).toEqual(ids.slice(1));
          for (const id of ids) {
            const texts = (await store.messages.getTranscript(id)).map((m) => m.content);
            expect(texts.slice(0, 2)).toEqual(['a', 'b']);
            expect(texts.slice(2)).toEqual(acked.get(id) ?? []);
            expect(refused.has(id)).toBe(false);
          }
        } else {
          deleted += ids.length;
          expect(present).toEqual(ids.map(() => null));
          for (const id of ids) expect(acked.get(id)).toBeUndefined();
          expect(await rowsOf(ids)).toEqual({});
          for (const id of ids) await expect(other.messages.append(id, user('after'))).rejects.toThrow(StoreNotFoundError);
        }
      }
      expect(report.sessions).toBe(deleted);
      // The trees never written are all deleted; those written may go either way.
      for (const ids of trees.filter((_, i) => i % 2 === 1)) expect(await store.sessions.get(ids[0])).toBeNull();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
      console.log(
        `[${backend.label}] purge racing appends: ${report.sessions} sessions in ${report.batches} batches of up to 3 trees (batch ${batchTimes.map((t) => t.toFixed(0)).join('/')} ms); ` +
          `${written.length - [...refused].length} of ${written.length} written trees kept; bystander appends during it: ${latencies.length}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
      );
      expect(latencies.length).toBeGreaterThan(0);
      expect(Math.max(...latencies)).toBeLessThan(2_000);
    } finally {
      await other.close();
    }
  });

  test('batch times: 100 small trees, and one session of 20,000 messages', async () => {
    const tenantId = unique('tenant');
    const { sessions, messages } = store.tenants.forTenant(tenantId);
    for (let i = 0; i < 100; i++) {
      const id = await sessions.create({ id: unique('small') });
      await messages.appendMany(id, [user('a'), user('b'), user('c')]);
    }
    let start = performance.now();
    expect(await ops.maintenance.purge({ updatedBefore: await cutoff(), tenantId, batchSize: 100 })).toEqual({ sessions: 100, batches: 1 });
    const small = performance.now() - start;

    const big = await sessions.create({ id: unique('big') });
    for (let i = 0; i < 20; i++)
      await messages.appendMany(
        big,
        Array.from({ length: 1_000 }, (_, j) => user(`message ${i * 1_000 + j} ${'x'.repeat(100)}`)),
      );
    expect(await messages.count(big)).toBe(20_000);
    const bystander = await store.sessions.create({ id: unique('bystander') });
    const latencies: number[] = [];
    let done = false;
    const watching = (async () => {
      while (!done) {
        const t = performance.now();
        await store.messages.append(bystander, user('x'));
        latencies.push(performance.now() - t);
        await sleep(2);
      }
    })();
    await sleep(20);
    start = performance.now();
    expect(await ops.maintenance.purge({ updatedBefore: await cutoff(), tenantId })).toEqual({ sessions: 1, batches: 1 });
    const large = performance.now() - start;
    done = true;
    await watching;
    console.log(
      `[${backend.label}] purge of 100 sessions (3 messages each) in one batch: ${small.toFixed(0)} ms; of one 20,000-message session: ${large.toFixed(0)} ms; ` +
        `an append to another session meanwhile: max ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length}`,
    );
    expect(await rowsOf([big])).toEqual({});
  });

  test('without a tenant: every tenant and the unscoped sessions', async () => {
    const a = await tree(unique('tenant'), unique('any'));
    const b = await store.sessions.create({ id: unique('unscoped') });
    await store.messages.append(b, user('x'));
    const report = await ops.maintenance.purge({ updatedBefore: await cutoff() });
    expect(report.sessions).toBeGreaterThanOrEqual(3);
    expect(await store.sessions.get(a[0])).toBeNull();
    expect(await store.sessions.get(b)).toBeNull();
    expect(await ops.db.client.agentThread.count()).toBe(0);
  });
});
