// MessageStore.pruneTranscript and StoreMaintenance.pruneTranscripts on the three databases: what
// the latest compaction or repair made unreachable is deleted, and nothing the effective history,
// the repairs' evidence, a session's events or a concurrent append needs.
import {
  StoreConflictError,
  StoreNotFoundError,
  StoreValidationError,
  type MessageInput,
  type MessageStore,
  type SessionStore,
  type StoredMessage,
} from '../../src/index.js';
import { PRUNE_BATCH, PRUNE_BOUNDARY_BATCH } from '../../src/stores/messages/transcript-pruning.js';
import { eachDatabase, runSql } from '../support/databases.js';
import { exportedLines } from '../../src/testing/footprint.js';
import { eachDatabaseBackend, ownClientStores, storeOn, type AppClient, type OwnClientStores, type StoreApp } from '../support/openers.js';

const user = (text: string, id?: string): MessageInput => ({ role: 'user', content: text, ...(id !== undefined && { id }) });
const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);
const numbered = (prefix: string, count: number, withIds = false) =>
  Array.from({ length: count }, (_, i) => user(`${prefix}${i + 1}`, withIds ? `${prefix}${i + 1}` : undefined));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every page of the effective history, `limit` a page, and the startSeq each page gave. */
async function historyPages(messages: MessageStore, id: string, limit: number) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await messages.getHistoryPage(id, { limit, ...(cursor !== undefined && { cursor }) });
    pages.push({ messages: page.messages, startSeq: page.startSeq });
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

/** What a reader of the effective history sees. */
async function historyView(messages: MessageStore, id: string) {
  return { history: await messages.getHistory(id), count: await messages.count(id), pages: await historyPages(messages, id, 7) };
}

async function jsonlOf(store: Pick<StoreApp, 'sessions'>, id: string): Promise<string> {
  let text = '';
  for await (const line of store.sessions.exportJsonl(id)) text += line;
  return text;
}

eachDatabaseBackend((backend) => {
  const store = storeOn(backend);

  let n = 0;
  const thread = (name = 'prune') => `${name}-${++n}`;

  /** `count` messages, then a compaction of the first `source` of them to one summary: the cut is seq `source`. */
  async function compacted(id: string, count: number, source: number, withIds = false): Promise<StoredMessage[]> {
    const stored = await store.messages.appendMany(id, numbered(`${id}:m`, count, withIds));
    await store.messages.appendCompaction(id, [user('summary')], source, 0);
    return stored;
  }

  describe('pruneTranscript', () => {
    test('deletes the messages at or below the cut and the earlier boundaries; the effective history reads exactly as before', async () => {
      const id = thread();
      await store.messages.appendMany(id, numbered('a', 10));
      await store.messages.appendCompaction(id, [user('first summary')], 4, 0);
      await store.messages.appendMany(id, numbered('b', 5));
      // The second compaction replaces the first summary and 6 messages: its cut is a10, seq 10.
      await store.messages.appendCompaction(id, [user('second summary')], 7, 0);
      await store.messages.appendMany(id, numbered('c', 3));
      const before = await historyView(store.messages, id);
      const transcript = await store.messages.getTranscript(id);

      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 10, boundaries: 1 });

      expect(await historyView(store.messages, id)).toEqual(before);
      expect(texts(before.history)).toEqual(['second summary', 'b1', 'b2', 'b3', 'b4', 'b5', 'c1', 'c2', 'c3']);
      // The transcript now starts after the cut.
      expect(await store.messages.getTranscript(id)).toEqual(transcript.filter((message) => message.seq > 10));
      const boundaries = (await exportedLines(store, id)).filter((line) => line.type === 'compaction');
      expect(boundaries.map((line) => line.messages)).toEqual([[expect.objectContaining({ content: 'second summary' })]]);
    });

    test('a second call, a thread without a boundary and an unknown thread prune nothing', async () => {
      const id = thread();
      await compacted(id, 6, 3);
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 3, boundaries: 0 });
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 0, boundaries: 0 });

      const plain = thread();
      await store.messages.appendMany(plain, numbered('p', 4));
      expect(await store.messages.pruneTranscript(plain)).toEqual({ messages: 0, boundaries: 0 });
      expect(texts(await store.messages.getTranscript(plain))).toEqual(['p1', 'p2', 'p3', 'p4']);

      expect(await store.messages.pruneTranscript(thread('unknown'))).toEqual({ messages: 0, boundaries: 0 });
    });

    test('a compaction inside the previous summary leaves the cut where it was: only the earlier boundary goes', async () => {
      const id = thread();
      await store.messages.appendMany(id, numbered('m', 5));
      await store.messages.appendCompaction(id, [user('s1'), user('s2')], 3, 0);
      await store.messages.appendCompaction(id, [user('s')], 2, 0);
      const before = await historyView(store.messages, id);
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 3, boundaries: 1 });
      expect(await historyView(store.messages, id)).toEqual(before);
      expect(texts(before.history)).toEqual(['s', 'm4', 'm5']);
    });

    test("keeps the repairs' evidence by default, without their replacement messages; keepRepairs false deletes them", async () => {
      for (const keepRepairs of [true, false]) {
        const id = thread();
        await store.messages.appendMany(id, numbered('m', 6));
        await store.messages.appendRepair(id, user('the repair'), [user('m1'), user('m2'), user('balanced')], 3);
        await store.messages.appendMany(id, numbered('n', 2));
        await store.messages.appendCompaction(id, [user('summary')], 5, 0);
        const repairs = await store.messages.getRepairs(id);
        expect(repairs).toHaveLength(1);
        const before = await historyView(store.messages, id);

        const report = await store.messages.pruneTranscript(id, keepRepairs ? undefined : { keepRepairs: false });

        // The compaction replaced the 3 balanced messages and m4, m5: its cut is m5, seq 5.
        expect(report).toEqual({ messages: 5, boundaries: keepRepairs ? 0 : 1 });
        expect(await historyView(store.messages, id)).toEqual(before);
        expect(await store.messages.getRepairs(id)).toEqual(keepRepairs ? repairs : []);
        const boundaries = (await exportedLines(store, id)).filter((line) => line.type !== 'session' && line.type !== 'message');
        expect(boundaries.map((line) => [line.type, line.messages])).toEqual([
          ...(keepRepairs ? [['repair', []]] : []),
          ['compaction', [expect.objectContaining({ content: 'summary' })]],
        ]);
      }
    });

    test("keeps a session's events, whichever side of the cut they are on", async () => {
      const id = await store.sessions.create();
      await store.sessions.append(id, user('m1'));
      await store.sessions.append(id, { type: 'tool-started', data: { n: 1 } });
      await store.sessions.append(id, user('m2'));
      await store.sessions.append(id, user('m3'));
      await store.sessions.append(id, { type: 'tool-finished', data: { n: 2 } });
      await store.messages.appendCompaction(id, [user('summary')], 2, 0);

      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 2, boundaries: 0 });

      const entries = await store.sessions.load(id);
      expect(entries.map((entry) => ('role' in entry ? entry.content : entry.type))).toEqual(['tool-started', 'm3', 'tool-finished']);
      expect(texts(await store.messages.getHistory(id))).toEqual(['summary', 'm3']);
    });

    test("writes nothing to the thread: its updatedAt stays the last write's", async () => {
      const id = thread();
      await compacted(id, 5, 4);
      const meta = await store.sessions.get(id);
      await sleep(20);
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 4, boundaries: 0 });
      expect(await store.sessions.get(id)).toEqual(meta);
    });

    test('prunes a thread larger than one batch whole, boundaries included', async () => {
      const id = thread();
      const count = 2 * PRUNE_BATCH + 7;
      await store.messages.appendMany(id, numbered('m', count));
      // One more boundary than a batch of them, each cutting one message further, then one that keeps the last 10.
      await store.messages.appendCompaction(id, [user('summary 0')], 1, 0);
      for (let i = 1; i <= PRUNE_BOUNDARY_BATCH; i++) await store.messages.appendCompaction(id, [user(`summary ${i}`)], 2, 0);
      const effective = await store.messages.count(id);
      await store.messages.appendCompaction(id, [user('last summary')], effective - 10, 0);
      const before = await historyView(store.messages, id);

      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: count - 10, boundaries: PRUNE_BOUNDARY_BATCH + 1 });

      expect(await historyView(store.messages, id)).toEqual(before);
      expect(texts(await store.messages.getTranscript(id))).toEqual(
        numbered('m', count)
          .slice(-10)
          .map((m) => m.content),
      );
      expect((await exportedLines(store, id)).filter((line) => line.type === 'compaction')).toHaveLength(1);
    });

    test('a prune cut short after its first batch (as a crash leaves it) reads, exports and imports the same history; the next call finishes it', async () => {
      const id = thread();
      await compacted(id, PRUNE_BATCH + 500, PRUNE_BATCH + 400);
      const before = await historyView(store.messages, id);
      // The first batch deletes the highest PRUNE_BATCH messages at or below the cut (seq PRUNE_BATCH + 400), in a transaction of its own.
      await runSql(store.url, [`DELETE FROM agent_message WHERE thread_id = '${id}' AND seq > 400 AND seq <= ${PRUNE_BATCH + 400} AND event_type IS NULL`]);
      expect(await historyView(store.messages, id)).toEqual(before);
      const copy = `${id}-copy`;
      await store.sessions.importJsonl(await jsonlOf(store, id), { sessionId: copy });
      expect(await historyView(store.messages, copy)).toEqual(before);

      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 400, boundaries: 0 });
      expect(await historyView(store.messages, id)).toEqual(before);
      expect(await store.messages.getTranscript(id)).toHaveLength(100);
    });

    test('appends racing a prune are all stored, after the history they extend', async () => {
      const id = thread();
      const count = 2 * PRUNE_BATCH + 50;
      await compacted(id, count, count - 20);
      const before = await store.messages.getHistory(id);
      const writers = [1, 2, 3].map(async (writer) => {
        const acknowledged: StoredMessage[] = [];
        for (let i = 1; i <= 20; i++) acknowledged.push(await store.messages.append(id, user(`w${writer}-${i}`, `w${writer}-${i}`)));
        return acknowledged;
      });

      const [report, ...written] = await Promise.all([store.messages.pruneTranscript(id), ...writers]);

      expect(report).toEqual({ messages: count - 20, boundaries: 0 });
      const appended = written.flat().sort((a, b) => a.seq - b.seq);
      expect(appended).toHaveLength(60);
      const history = await store.messages.getHistory(id);
      expect(history).toEqual([...before, ...appended]);
      expect(await store.messages.count(id)).toBe(before.length + 60);
      expect(texts(await store.messages.getTranscript(id))).toEqual([
        ...numbered(`${id}:m`, count)
          .slice(-20)
          .map((m) => m.content),
        ...texts(appended),
      ]);
    });

    test('makes a transcript cursor on a pruned message stale; one after the cut reads on, as history cursors do', async () => {
      const id = thread();
      await compacted(id, 8, 4);
      const summaryPage = await store.messages.getHistoryPage(id, { limit: 1 });
      const historyPage = await store.messages.getHistoryPage(id, { limit: 2, cursor: summaryPage.nextCursor! });
      const first = await store.messages.getTranscriptPage(id, { limit: 2 });
      const third = await store.messages.getTranscriptPage(id, {
        limit: 2,
        cursor: (await store.messages.getTranscriptPage(id, { limit: 2, cursor: first.nextCursor! })).nextCursor!,
      });
      expect(texts(third.messages)).toEqual([`${id}:m5`, `${id}:m6`]);

      await store.messages.pruneTranscript(id);

      await expect(store.messages.getTranscriptPage(id, { limit: 2, cursor: first.nextCursor! })).rejects.toThrow(StoreConflictError);
      expect(texts((await store.messages.getTranscriptPage(id, { limit: 2, cursor: third.nextCursor! })).messages)).toEqual([`${id}:m7`, `${id}:m8`]);
      expect(texts((await store.messages.getTranscriptPage(id, { limit: 2 })).messages)).toEqual([`${id}:m5`, `${id}:m6`]);
      expect(await store.messages.getHistoryPage(id, { limit: 2, cursor: summaryPage.nextCursor! })).toEqual(historyPage);
      expect(texts((await store.messages.getHistoryPage(id, { limit: 2, cursor: historyPage.nextCursor! })).messages)).toEqual([`${id}:m7`, `${id}:m8`]);
    });

    test("a retried append of a pruned message's id stores it again, at the end", async () => {
      const id = thread();
      const stored = await compacted(id, 5, 3, true);
      const retry = [user(`${id}:m2`, `${id}:m2`), user(`${id}:m5`, `${id}:m5`)];
      // Before the prune, the retry finds both.
      expect(await store.messages.appendMany(id, retry)).toEqual([stored[1], stored[4]]);

      await store.messages.pruneTranscript(id);

      const again = await store.messages.appendMany(id, retry);
      expect(again[1]).toEqual(stored[4]);
      expect(again[0]).toMatchObject({ id: `${id}:m2`, content: `${id}:m2` });
      expect(again[0].seq).toBeGreaterThan(stored[4].seq);
      expect(texts(await store.messages.getHistory(id))).toEqual(['summary', `${id}:m4`, `${id}:m5`, `${id}:m2`]);
    });

    test('checks its options before anything is deleted', async () => {
      const id = thread();
      await compacted(id, 4, 2);
      await expect(store.messages.pruneTranscript(id, { keepRepairs: 'no' } as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.pruneTranscript(id, { keep: true } as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.pruneTranscript('')).rejects.toThrow(StoreValidationError);
      expect(await store.messages.getTranscript(id)).toHaveLength(4);
    });

    test("a tenant's store prunes its own threads; another's answers StoreNotFoundError, as a missing one does, and keeps its rows", async () => {
      const a = store.tenants.forTenant(thread('tenant-a'));
      const b = store.tenants.forTenant(thread('tenant-b'));
      const id = await a.sessions.create();
      await a.messages.appendMany(id, numbered('m', 6));
      await a.messages.appendCompaction(id, [user('summary')], 4, 0);

      await expect(b.messages.pruneTranscript(id)).rejects.toThrow(StoreNotFoundError);
      await expect(b.messages.pruneTranscript(thread('missing'))).rejects.toThrow(StoreNotFoundError);
      expect(await a.messages.getTranscript(id)).toHaveLength(6);

      expect(await a.messages.pruneTranscript(id)).toEqual({ messages: 4, boundaries: 0 });
      expect(texts(await a.messages.getTranscript(id))).toEqual(['m5', 'm6']);
    });

    test('the JSONL export of a pruned thread imports as the same history, transcript and repairs', async () => {
      const id = await store.sessions.create({ title: 'pruned' });
      await store.messages.appendMany(id, numbered('m', 6));
      await store.sessions.append(id, { type: 'note', data: { at: 2 } });
      await store.messages.appendRepair(id, user('the repair'), [user('balanced')], 3);
      await store.messages.appendMany(id, numbered('n', 3));
      await store.messages.appendCompaction(id, [user('summary')], 5, 1);
      expect(await store.messages.pruneTranscript(id)).toEqual({ messages: 7, boundaries: 0 });

      const copy = `${id}-copy`;
      await store.sessions.importJsonl(await jsonlOf(store, id), { sessionId: copy });

      expect(await store.messages.getHistory(copy)).toEqual(await store.messages.getHistory(id));
      expect(await store.messages.count(copy)).toBe(await store.messages.count(id));
      expect(await store.sessions.load(copy)).toEqual(await store.sessions.load(id));
      expect(await store.messages.getRepairs(copy)).toEqual(await store.messages.getRepairs(id));
      expect(texts(await store.messages.getHistory(copy))).toEqual(['summary', 'n2', 'n3']);
      // Imported into a session that handed out seqs already, it is numbered after them.
      const used = await store.sessions.create();
      await store.messages.append(used, user('gone'));
      await store.messages.clear(used);
      await store.sessions.importJsonl(await jsonlOf(store, id), { sessionId: used });
      expect(await store.messages.getHistory(used)).toEqual(
        (await store.messages.getHistory(id)).map((m) => (m.seq === null ? m : { ...m, seq: expect.any(Number) })),
      );
      expect(texts(await store.messages.getTranscript(used))).toEqual(texts(await store.messages.getTranscript(id)));
    });
  });

  describe('StoreMaintenance.pruneTranscripts', () => {
    // A database of its own: the calls prune every thread in it.
    const own = storeOn(backend);

    test('prunes the threads compacted before the date, of one tenant or all, and reports them', async () => {
      const x = own.tenants.forTenant('x');
      const y = own.tenants.forTenant('y');
      const ids = { x: await x.sessions.create(), y: await y.sessions.create(), plain: 'plain', plainOld: await x.sessions.create() };
      await x.messages.appendMany(ids.x, numbered('x', 5));
      await x.messages.appendCompaction(ids.x, [user('x summary')], 3, 0);
      await y.messages.appendMany(ids.y, numbered('y', 4));
      await y.messages.appendCompaction(ids.y, [user('y summary')], 2, 0);
      await x.messages.appendMany(ids.plainOld, numbered('o', 3));
      const recompacted = await y.sessions.create();
      await y.messages.appendMany(recompacted, numbered('r', 4));
      await y.messages.appendCompaction(recompacted, [user('r1')], 1, 0);
      await sleep(20);
      const compactedBefore = new Date();
      await sleep(20);
      // Compacted after the date: not pruned; nor is a thread compacted before it and again since.
      await own.messages.appendMany(ids.plain, numbered('p', 4));
      await own.messages.appendCompaction(ids.plain, [user('p summary')], 2, 0);
      await y.messages.appendCompaction(recompacted, [user('r2')], 2, 0);
      const histories = await Promise.all(Object.values(ids).map((id) => own.messages.getHistory(id)));

      expect(await own.maintenance.pruneTranscripts({ compactedBefore, tenantId: 'x' })).toEqual({ threads: 1, messages: 3, boundaries: 0 });
      expect(texts(await own.messages.getTranscript(ids.y))).toEqual(['y1', 'y2', 'y3', 'y4']);
      expect(await own.maintenance.pruneTranscripts({ compactedBefore })).toEqual({ threads: 1, messages: 2, boundaries: 0 });
      expect(await own.maintenance.pruneTranscripts({ compactedBefore })).toEqual({ threads: 0, messages: 0, boundaries: 0 });

      expect(texts(await own.messages.getTranscript(ids.x))).toEqual(['x4', 'x5']);
      expect(texts(await own.messages.getTranscript(ids.y))).toEqual(['y3', 'y4']);
      expect(await own.messages.getTranscript(ids.plain)).toHaveLength(4);
      expect(await own.messages.getTranscript(ids.plainOld)).toHaveLength(3);
      expect(await own.messages.getTranscript(recompacted)).toHaveLength(4);
      expect(await Promise.all(Object.values(ids).map((id) => own.messages.getHistory(id)))).toEqual(histories);

      // A later date reaches the rest: the recompacted thread up to its latest boundary.
      expect(await own.maintenance.pruneTranscripts({ compactedBefore: new Date(Date.now() + 1000), keepRepairs: false })).toEqual({
        threads: 2,
        messages: 4,
        boundaries: 1,
      });
      expect(texts(await own.messages.getTranscript(recompacted))).toEqual(['r3', 'r4']);
      expect(texts(await own.messages.getTranscript(ids.plain))).toEqual(['p3', 'p4']);
    });

    test('goes through more threads than one page', async () => {
      const tenant = own.tenants.forTenant('many');
      const ids: string[] = [];
      for (let i = 0; i < 130; i++) {
        const id = await tenant.sessions.create({ id: `many-${String(i).padStart(3, '0')}` });
        await tenant.messages.appendMany(id, numbered('m', 2));
        await tenant.messages.appendCompaction(id, [user('s')], 1, 0);
        ids.push(id);
      }
      expect(await own.maintenance.pruneTranscripts({ compactedBefore: new Date(Date.now() + 1000), tenantId: 'many' })).toEqual({
        threads: 130,
        messages: 130,
        boundaries: 0,
      });
      expect(texts(await own.messages.getTranscript(ids[129]))).toEqual(['m2']);
    });

    test('checks its options', async () => {
      await expect(own.maintenance.pruneTranscripts({} as never)).rejects.toThrow(StoreValidationError);
      await expect(own.maintenance.pruneTranscripts({ compactedBefore: new Date(), keepRepairs: 1 } as never)).rejects.toThrow(StoreValidationError);
    });
  });
});

eachDatabase((database) => {
  describe("pruneTranscript in the application's transaction", () => {
    let prisma: AppClient;
    let messages: MessageStore;
    let sessions: SessionStore;
    let stores: OwnClientStores | undefined;
    beforeAll(async () => {
      stores = await ownClientStores(database);
      ({ prisma, messages, sessions } = stores);
    });
    afterAll(() => stores?.close());

    test('rolls back with it, and commits with it', async () => {
      const id = 'hosted';
      await messages.appendMany(id, numbered('m', 6));
      await messages.appendCompaction(id, [user('summary')], 4, 0);
      await messages.appendCompaction(id, [user('summary 2')], 2, 0);
      const before = await messages.getTranscript(id);
      const meta = await sessions.get(id);

      await expect(
        prisma.$transaction(async (tx) => {
          expect(await messages.withTransaction(tx).pruneTranscript(id)).toEqual({ messages: 5, boundaries: 1 });
          expect(texts(await messages.withTransaction(tx).getTranscript(id))).toEqual(['m6']);
          throw new Error('the application rolls back');
        }),
      ).rejects.toThrow('the application rolls back');
      expect(await messages.getTranscript(id)).toEqual(before);

      await prisma.$transaction(async (tx) => {
        expect(await messages.withTransaction(tx).pruneTranscript(id)).toEqual({ messages: 5, boundaries: 1 });
      });
      expect(texts(await messages.getTranscript(id))).toEqual(['m6']);
      expect(texts(await messages.getHistory(id))).toEqual(['summary 2', 'm6']);
      expect(await sessions.get(id)).toEqual(meta);
    });
  });
});
