// Concurrency on every backend, through two separate Prisma clients (two apps)
// writing at once: nothing acknowledged is lost, nothing deleted comes back.
// (That crosswise registrations cause no deadlock, read from the database's own
// counters, is in test/internals/lock-order.test.ts.)
import { StoreConflictError, StoreNotFoundError, type MessageInput } from '../../src/index.js';
import { boundaryCount, footprintOf } from '../support/footprint.js';
import { eachBackend, type StoreApp } from '../support/openers.js';

const user = (text: string): MessageInput => ({ role: 'user', content: text });

eachBackend((backend) => {
  let a: StoreApp;
  let b: StoreApp;
  beforeAll(async () => {
    a = await backend.open();
    b = await a.another();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  const both = () => [a, b];

  test('200 concurrent appends to one thread through two clients: contiguous unique seqs, exactly the acknowledged messages', async () => {
    const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => both()[i % 2].messages.append('hot', user(`m${i}`))));
    const transcript = await a.messages.getTranscript('hot');
    expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(transcript).toHaveLength(acks.length);
    for (const ack of acks) expect(transcript[ack.seq - 1].content).toBe(ack.content);
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
      const results = await Promise.allSettled([a.sessions.importJsonl(jsonl, { sessionId: `copy-${i}` }), b.sessions.importJsonl(jsonl, { sessionId: `copy-${i}` })]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await a.sessions.load(`copy-${i}`)).map((entry) => ('content' in entry ? entry.content : null))).toEqual(['imported']);
    }
  });

  test('an import racing an append into the same new session never mixes them', async () => {
    let jsonl = '';
    for await (const line of a.sessions.exportJsonl('source')) jsonl += line;
    for (let i = 0; i < 5; i++) {
      const [imported] = await Promise.allSettled([a.sessions.importJsonl(jsonl, { sessionId: `mixed-${i}` }), b.messages.append(`mixed-${i}`, user('appended'))]);
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
    await a.messages.appendMany('compacting', Array.from({ length: 20 }, (_, i) => user(`before-${i}`)));
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
    expect(history.slice(1).map((m) => m.content).sort()).toEqual(acks.map((m) => m.content).sort());
    expect(await b.messages.count('compacting')).toBe(61);
  });

  test('two summarizers of the same read commit at once through two clients: one boundary is accepted, the other is a conflict', async () => {
    for (let round = 0; round < 8; round++) {
      const id = `summarized-${round}`;
      await a.messages.appendMany(id, Array.from({ length: 10 }, (_, i) => user(`m${i}`)));
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
      expect(history.slice(1).map((m) => m.content).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `during-${i}`));
    }
  });
});
