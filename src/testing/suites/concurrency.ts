// Concurrency on every backend, through two separate Prisma clients (two apps)
// writing at once: nothing acknowledged is lost, nothing deleted comes back.
// (That crosswise registrations cause no deadlock, read from the database's own
// counters, is in test/internals/lock-order.test.ts.)
import { StoreConflictError, StoreNotFoundError, type MessageInput } from '../../index.js';
import { boundaryCount, footprintOf } from '../footprint.js';
import type { KitStore, Suite } from '../kit.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });

/**
 * Two stores on one database (`store.another()`, as two processes) writing at once: nothing acknowledged is
 * lost, nothing deleted comes back. Timing-bound: not in CONFORMANCE_SUITES; run it alone, with runSuites.
 */
export const concurrency: Suite = ({ store: a, describe, test, expect, beforeAll, afterAll }) => {
  let b: KitStore;
  beforeAll(async () => {
    b = await a.another();
  });
  afterAll(() => b?.close());
  const both = () => [a, b];

  test('200 concurrent appends to one thread through two clients: contiguous unique seqs, exactly the acknowledged messages', async () => {
    const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => both()[i % 2].messages.append('hot', user(`m${i}`))));
    const transcript = await a.messages.getTranscript('hot');
    expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(transcript).toHaveLength(acks.length);
    for (const ack of acks) expect(transcript[ack.seq - 1].content).toBe(ack.content);
  });

  describe('retries of one batch that overlap: four appendMany at once with message ids m0..m19, m5..m24, m10..m29, m15..m34', () => {
    const ROUNDS = 10;
    const batch = (from: number): MessageInput[] =>
      Array.from({ length: 20 }, (_, i) => ({ id: `m${from + i}`, role: 'user', content: `text of m${from + i}` }));
    /** Four overlapping calls through two clients; each must return its batch as stored, and the thread hold each id once. */
    async function overlap(thread: string, firstSeq: number) {
      const calls = [0, 5, 10, 15].map((from, i) => both()[i % 2].messages.appendMany(thread, batch(from)));
      const settled = await Promise.allSettled(calls);
      expect(settled.filter((each) => each.status === 'rejected')).toEqual([]);
      const transcript = await a.messages.getTranscript(thread);
      const stored = transcript.filter((m) => m.seq >= firstSeq);
      expect(stored.map((m) => m.seq)).toEqual(Array.from({ length: 35 }, (_, i) => firstSeq + i));
      expect(stored.map((m) => m.id).sort()).toEqual(Array.from({ length: 35 }, (_, i) => `m${i}`).sort());
      const seqOf = new Map(stored.map((m) => [m.id, m.seq]));
      settled.forEach((each, i) => {
        const returned = (each as PromiseFulfilledResult<Awaited<(typeof calls)[number]>>).value;
        expect(returned.map((m) => m.id)).toEqual(batch([0, 5, 10, 15][i]).map((m) => m.id));
        expect(returned.map((m) => m.content)).toEqual(batch([0, 5, 10, 15][i]).map((m) => m.content));
        expect(returned.map((m) => m.seq)).toEqual(returned.map((m) => seqOf.get(m.id)));
      });
    }

    test(`into a new thread, ${ROUNDS} rounds: every call stores exactly its new messages and returns its batch as stored`, async () => {
      for (let round = 0; round < ROUNDS; round++) await overlap(`overlap-new-${round}`, 1);
    });

    test(`into a thread that holds messages, ${ROUNDS} rounds: the same`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const thread = `overlap-held-${round}`;
        await a.messages.appendMany(thread, [user('before'), user('and before')]);
        await overlap(thread, 3);
      }
    });

    test('an id that really carries other content is a StoreConflictError for whichever call comes second, and nothing of that call is stored', async () => {
      const thread = 'overlap-conflict';
      const other = [...batch(10).map((m, i) => (i === 5 ? { ...m, content: 'other text' } : m)), { id: 'm99', role: 'user' as const, content: 'new' }];
      const settled = await Promise.allSettled([a.messages.appendMany(thread, batch(0)), b.messages.appendMany(thread, other)]);
      expect(settled.map((each) => each.status).sort()).toEqual(['fulfilled', 'rejected']);
      const winner = settled[0].status === 'fulfilled' ? batch(0) : other;
      const loser = settled.find((each) => each.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(StoreConflictError);
      const stored = await a.messages.getTranscript(thread);
      expect(stored.map((m) => [m.id, m.content])).toEqual(winner.map((m) => [m.id, m.content]));
    });
  });

  test('50 concurrent addSubsession on one parent through two clients leave 50 edges', async () => {
    const children = Array.from({ length: 50 }, (_, i) => `child-${i}`);
    await Promise.all(children.map((child, i) => both()[i % 2].transcripts.addSubsession('parent', child)));
    expect(new Set(await b.transcripts.getSubsessions('parent'))).toEqual(new Set(children));
    expect(await a.transcripts.getSubsessions('parent')).toHaveLength(50);
  });

  test('registrations that lock the same tree crosswise: exactly one of each pair succeeds', async () => {
    for (let i = 0; i < 10; i++) {
      // x-a < x-b < x-c: one registration holds b and c and needs a; the other holds a and needs c.
      await a.transcripts.addSubsession(`x${i}-a`, `x${i}-b`);
      await a.transcripts.appendMessage(`x${i}-c`, user('c'));
      const results = await Promise.allSettled([a.transcripts.addSubsession(`x${i}-b`, `x${i}-c`), b.transcripts.addSubsession(`x${i}-a`, `x${i}-c`)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
  });

  test('two imports of one file into one new session: one imports, the other is a conflict', async () => {
    await a.sessions.create({ id: 'source' });
    await a.sessions.append('source', user('imported'));
    let jsonl = '';
    for await (const line of a.sessions.exportJsonl('source')) jsonl += line;
    for (let i = 0; i < 5; i++) {
      const results = await Promise.allSettled([
        a.sessions.importJsonl(jsonl, { sessionId: `copy-${i}` }),
        b.sessions.importJsonl(jsonl, { sessionId: `copy-${i}` }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await a.sessions.load(`copy-${i}`)).map((entry) => ('content' in entry ? entry.content : null))).toEqual(['imported']);
    }
  });

  test('an import racing an append into the same new session never mixes them', async () => {
    let jsonl = '';
    for await (const line of a.sessions.exportJsonl('source')) jsonl += line;
    for (let i = 0; i < 5; i++) {
      const [imported] = await Promise.allSettled([
        a.sessions.importJsonl(jsonl, { sessionId: `mixed-${i}` }),
        b.messages.append(`mixed-${i}`, user('appended')),
      ]);
      const contents = (await a.sessions.load(`mixed-${i}`)).map((entry) => ('content' in entry ? entry.content : null));
      expect(contents).toEqual(imported.status === 'fulfilled' ? ['imported', 'appended'] : ['appended']);
    }
  });

  test('getRepairs racing clear reads one consistent snapshot', async () => {
    for (let i = 0; i < 10; i++) {
      await a.messages.appendMany('repaired', [user('x'), user('y')]);
      await a.messages.appendRepair('repaired', user('evidence'), [user('balanced')], 1);
      const [repairs] = await Promise.all([b.messages.getRepairs('repaired'), a.messages.clear('repaired')]);
      expect(repairs.every((repair) => repair.sourceMessageCount === 1)).toBe(true);
    }
  });

  test('a subtree delete racing appends leaves no row of a deleted session; later appends are not found', async () => {
    const tree = ['root', 'left', 'right', 'leaf'];
    await a.transcripts.addSubsession('root', 'left');
    await a.transcripts.addSubsession('root', 'right');
    await a.transcripts.addSubsession('left', 'leaf');
    const appends = Array.from({ length: 80 }, (_, i) => b.messages.append(tree[i % 4], user(`race-${i}`)));
    const deleted = new Promise((resolve) => setTimeout(resolve, 5)).then(() => a.transcripts.deleteTranscript('root'));
    const results = await Promise.allSettled([...appends, deleted]);

    expect(await deleted).toBe(4);
    for (const result of results.slice(0, -1)) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StoreNotFoundError);
    }
    expect(await footprintOf(a, tree)).toEqual({ threads: 0, messages: 0, boundaries: 0, repairs: 0, edges: 0 });
    for (const id of tree) await expect(b.messages.append(id, user('after'))).rejects.toThrow(StoreNotFoundError);
  });

  test('a compaction racing appends keeps every committed message', async () => {
    await a.messages.appendMany(
      'compacting',
      Array.from({ length: 20 }, (_, i) => user(`before-${i}`)),
    );
    // The summarizer reads the history, then commits its summary while appends keep arriving.
    const seen = await a.messages.count('compacting');
    const appends = Array.from({ length: 60 }, (_, i) => b.messages.append('compacting', user(`during-${i}`)));
    const compaction = a.messages.appendCompaction('compacting', [{ role: 'system', content: 'summary' }], seen, 0);
    const acks = await Promise.all(appends);
    await compaction;

    const transcript = await a.messages.getTranscript('compacting');
    expect(transcript).toHaveLength(80);
    for (const ack of acks) expect(transcript.find((m) => m.seq === ack.seq)?.content).toBe(ack.content);
    const history = await b.messages.getHistory('compacting');
    expect(history[0].content).toBe('summary');
    expect(
      history
        .slice(1)
        .map((m) => m.content)
        .sort(),
    ).toEqual(acks.map((m) => m.content).sort());
    expect(await b.messages.count('compacting')).toBe(61);
  });

  test('two summarizers of the same read commit at once through two clients: one boundary is accepted, the other is a conflict', async () => {
    for (let round = 0; round < 8; round++) {
      const id = `summarized-${round}`;
      await a.messages.appendMany(
        id,
        Array.from({ length: 10 }, (_, i) => user(`m${i}`)),
      );
      const [readA, readB] = await Promise.all([a.messages.getHistoryPage(id), b.messages.getHistoryPage(id)]);
      const appends = Array.from({ length: 6 }, (_, i) => both()[i % 2].messages.append(id, user(`during-${i}`)));
      const writes = await Promise.allSettled([
        a.messages.appendCompaction(id, [user('A')], 10, 0, { expectedStartSeq: readA.startSeq }),
        b.messages.appendRepair(id, user('evidence'), [user('B')], 10, { expectedStartSeq: readB.startSeq }),
      ]);
      await Promise.all(appends);

      expect(writes.filter((write) => write.status === 'fulfilled')).toHaveLength(1);
      const refused = writes.find((write) => write.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(StoreConflictError);
      expect(await boundaryCount(a, id)).toBe(1);
      const history = await b.messages.getHistory(id);
      expect(['A', 'B']).toContain(history[0].content);
      expect(
        history
          .slice(1)
          .map((m) => m.content)
          .sort(),
      ).toEqual(Array.from({ length: 6 }, (_, i) => `during-${i}`));
    }
  });
};
