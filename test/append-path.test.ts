// The append path on SQLite, PostgreSQL and MariaDB: appends to existing threads
// skip Prisma's interactive transaction, and write exactly what the full path would.
import { jest } from '@jest/globals';
import type { Message, MessageInput } from '../src/index.js';
import { eachDatabase, storeFor } from './support/databases.js';

eachDatabase((database) => {
  const store = storeFor(database);

  let n = 0;
  const unique = (name = 't') => `${name}-${++n}`;
  const message = (text: string, extra: Partial<Message> = {}): Message => ({ role: 'user', content: text, createdAt: new Date('2026-11-29T10:00:00.123Z'), ...extra });
  const lastSeqOf = async (id: string) => (await store.db.client.agentThread.findUnique({ where: { id }, select: { lastSeq: true } }))?.lastSeq;

  test('a thread that does not exist gets nothing written, and no row', async () => {
    const id = unique();
    expect(await store.db.appendToExisting(id, [message('a')])).toBeNull();
    expect(await store.db.client.agentThread.findUnique({ where: { id } })).toBeNull();
  });

  test('an existing thread gets the next sequence numbers, and rows equal to what the full path writes', async () => {
    const id = unique();
    const rich: MessageInput = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'ünïcode ✈️', n: [1, 2.5, null, true] } }],
      id: 'm-1',
      metadata: { model: 'x', nested: { deep: ['a'] } },
      createdAt: '2026-11-29T10:00:00.123Z',
    };
    const [viaFullPath] = await store.messages.appendMany(unique('full'), [rich]);
    await store.messages.append(id, { role: 'user', content: 'first' });
    const last = await store.db.appendToExisting(id, [message('plain'), { ...viaFullPath, seq: undefined } as unknown as Message]);
    expect(last).toBe(3);
    const transcript = await store.messages.getTranscript(id);
    expect(transcript.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(transcript[1]).toEqual({ seq: 2, ...message('plain') });
    const { seq: _seq, ...written } = transcript[2];
    const { seq: _fullSeq, ...expected } = viaFullPath;
    expect(written).toEqual(expected);
    expect(await lastSeqOf(id)).toBe(3);
  });

  test("another tenant's thread, or a deleted one, gets nothing written", async () => {
    const id = await store.sessions.create({ id: unique(), tenantId: 'acme' });
    await store.messages.append(id, { role: 'user', content: 'a' });
    expect(await store.db.appendToExisting(id, [message('b')], 'globex')).toBeNull();
    expect(await store.db.appendToExisting(id, [message('b')], 'acme')).toBe(2);
    expect(await lastSeqOf(id)).toBe(2);
    await store.transcripts.deleteTranscript(id);
    expect(await store.db.appendToExisting(id, [message('c')])).toBeNull();
    expect(await store.db.client.agentThread.findUnique({ where: { id } })).toBeNull();
  });

  test('concurrent appends to one thread get unique, gapless sequence numbers', async () => {
    const id = unique();
    await store.messages.append(id, { role: 'user', content: 'first' });
    const lasts = await Promise.all(Array.from({ length: 30 }, (_, i) => store.db.appendToExisting(id, [message(`a${i}`), message(`b${i}`)])));
    expect(new Set(lasts).size).toBe(30);
    const seqs = (await store.messages.getTranscript(id)).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
  });

  test('MessageStore takes the append path for every append after the first', async () => {
    const id = unique();
    const spy = jest.spyOn(store.db, 'appendToExisting');
    try {
      await store.messages.append(id, { role: 'user', content: 'creates the thread' });
      await store.messages.appendMany(id, [
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ]);
      const results = await Promise.all(spy.mock.results.map((result) => result.value));
      expect(results).toEqual([null, 3]);
    } finally {
      spy.mockRestore();
    }
  });
});
