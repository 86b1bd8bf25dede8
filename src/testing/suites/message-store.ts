// MessageStore on every backend: every method and rule of its contract.
import type { JsonValue, MessageInput, StoredMessage } from '../../index.js';
import { MAX_JSON_DEPTH, StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import { boundaryCount } from '../footprint.js';
import type { Suite } from '../kit.js';

/** MessageStore: every method and rule of its contract. */
export const messageStore: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const thread = () => `thread-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);

  /** Everything a write could change, to prove that a rejected one changed nothing. */
  async function snapshot(id: string) {
    const { messages } = store;
    return {
      history: await messages.getHistory(id),
      transcript: await messages.getTranscript(id),
      count: await messages.count(id),
      repairs: await messages.getRepairs(id),
      boundaries: await boundaryCount(store, id),
      thread: await store.sessions.get(id),
    };
  }

  describe('append and appendMany', () => {
    test('number messages from 1 and return them as stored', async () => {
      const id = thread();
      const first = await store.messages.append(id, user('a'));
      const more = await store.messages.appendMany(id, [user('b'), { role: 'assistant', content: 'c', id: 'msg-c', metadata: { model: 'x' } }]);
      expect(first).toMatchObject({ seq: 1, role: 'user', content: 'a' });
      expect(first.createdAt).toBeInstanceOf(Date);
      expect(more.map((m) => m.seq)).toEqual([2, 3]);
      expect(more[1]).toMatchObject({ id: 'msg-c', metadata: { model: 'x' } });
      expect(await store.messages.getHistory(id)).toEqual([first, ...more]);
    });

    test('an unknown thread has an empty history, transcript and count', async () => {
      const id = thread();
      expect(await store.messages.getHistory(id)).toEqual([]);
      expect(await store.messages.getTranscript(id)).toEqual([]);
      expect(await store.messages.count(id)).toBe(0);
    });

    test('appendMany is all or none: one invalid message stores nothing, not even the thread', async () => {
      const id = thread();
      await expect(store.messages.appendMany(id, [user('ok'), { role: 'robot', content: 'x' } as never])).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toMatchObject({ transcript: [], thread: null });
    });

    test('appendMany of nothing stores nothing', async () => {
      const id = thread();
      expect(await store.messages.appendMany(id, [])).toEqual([]);
      expect((await snapshot(id)).thread).toBeNull();
    });

    test('200 concurrent appends to one thread get contiguous unique sequence numbers and all are kept', async () => {
      const id = thread();
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => store.messages.append(id, user(`m${i}`))));
      expect(results.map((m) => m.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      const transcript = await store.messages.getTranscript(id);
      expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(new Set(texts(transcript))).toEqual(new Set(results.map((m) => m.content)));
      // Each acknowledgement names the row that holds its message.
      for (const ack of results) expect(transcript[ack.seq - 1].content).toBe(ack.content);
    });

    test('a deleted session answers appends with not-found instead of coming back', async () => {
      const id = thread();
      await store.messages.append(id, user('before'));
      expect(await store.transcripts.deleteTranscript(id)).toBe(1);
      await expect(store.messages.append(id, user('late'))).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(id)).toBeNull();
    });
  });

  describe('content round-trips deep-equal', () => {
    test('unicode, emoji, nested objects, all part types, metadata, ids and dates', async () => {
      const id = thread();
      const createdAt = new Date('2026-01-02T03:04:05.678Z');
      const messages: MessageInput[] = [
        { role: 'system', content: 'Ünïcödé 日本語 עברית 👩‍👩‍👧‍👦 🚀 "quotes" \\ back\\slash \n newline', createdAt },
        {
          role: 'assistant',
          id: 'a-1',
          metadata: { usage: { input: 12, output: 3.5 }, tags: ['x', null, true], nested: { deep: { deeper: [1, [2, [3]]] } } },
          content: [
            { type: 'reasoning', text: 'thinking…' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: { city: 'Zürich', days: [1, 2] } },
            { type: 'image', image: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
            { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
          ],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'json', value: { temp: -3.25, ok: false } } }],
        },
      ];
      const stored = await store.messages.appendMany(id, messages);
      const read = await store.messages.getTranscript(id);
      expect(read).toEqual(stored);
      expect(read[0].createdAt.toISOString()).toBe(createdAt.toISOString());
      expect(
        read.map(({ role, content, id: messageId, metadata }) => ({ role, content, ...(messageId && { id: messageId }), ...(metadata && { metadata }) })),
      ).toEqual(messages.map(({ createdAt: _omit, ...rest }) => rest));
    });

    test('a 1 MiB string', async () => {
      const id = thread();
      const big = 'x'.repeat(1024 * 1024 - 3) + '🚀';
      await store.messages.append(id, user(big));
      expect((await store.messages.getHistory(id))[0].content).toBe(big);
    });
  });

  describe('clear, replaceHistory and count', () => {
    test('clear removes messages, boundaries and repairs; sequence numbers are not reused', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a'), user('b'), user('c')]);
      await store.messages.appendCompaction(id, [user('summary')], 2, 0);
      await store.messages.appendRepair(id, user('repair'), [user('balanced')], 1);
      await store.messages.clear(id);
      expect(await snapshot(id)).toMatchObject({ history: [], transcript: [], count: 0, repairs: [], boundaries: 0 });
      const next = await store.messages.append(id, user('d'));
      expect(next.seq).toBeGreaterThan(5);
      expect(await store.messages.getHistory(id)).toEqual([next]);
    });

    test('clear of an unknown thread does nothing', async () => {
      const id = thread();
      await store.messages.clear(id);
      expect((await snapshot(id)).thread).toBeNull();
    });

    test('replaceHistory replaces the whole log atomically', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a'), user('b')]);
      await store.messages.appendCompaction(id, [user('s')], 1, 0);
      const replaced = await store.messages.replaceHistory(id, [user('x'), user('y')]);
      expect(texts(await store.messages.getHistory(id))).toEqual(['x', 'y']);
      expect(await store.messages.getTranscript(id)).toEqual(replaced);
      expect(await store.messages.count(id)).toBe(2);
      await expect(store.messages.replaceHistory(id, [user('z'), { role: 'user' } as never])).rejects.toThrow(StoreValidationError);
      expect(texts(await store.messages.getHistory(id))).toEqual(['x', 'y']);
    });

    test('count equals the length of the effective history through appends, compactions and repairs', async () => {
      const id = thread();
      const check = async () => expect(await store.messages.count(id)).toBe((await store.messages.getHistory(id)).length);
      await store.messages.appendMany(id, ['a', 'b', 'c', 'd', 'e'].map(user));
      await check();
      await store.messages.appendCompaction(id, [user('s1'), user('e-kept')], 4, 1);
      await check();
      await store.messages.append(id, user('f'));
      await store.messages.appendRepair(id, user('r'), [user('bal')], 2);
      await check();
      expect(await store.messages.count(id)).toBe(3);
    });
  });

  describe('appendCompaction', () => {
    test('shrinks the effective history, deletes nothing, and keeps messages appended while summarizing', async () => {
      const id = thread();
      const original = await store.messages.appendMany(id, ['a', 'b', 'c', 'd'].map(user));
      // The summarizer read 4 messages; 2 more arrive before it commits.
      const seen = await store.messages.getHistory(id);
      const late = await store.messages.appendMany(id, [user('e'), user('f')]);
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary of a-c' }, user('d')], seen.length, 1);

      const history = await store.messages.getHistory(id);
      expect(texts(history)).toEqual(['summary of a-c', 'd', 'e', 'f']);
      expect(history.map((m) => m.seq)).toEqual([null, null, late[0].seq, late[1].seq]);
      expect(await store.messages.getTranscript(id)).toEqual([...original, ...late]);
    });

    test("a second compaction that ends inside the first one's summary keeps the rest of it", async () => {
      const id = thread();
      await store.messages.appendMany(id, ['a', 'b', 'c'].map(user));
      await store.messages.appendCompaction(id, [user('s1'), user('s1-tail')], 2, 0);
      expect(texts(await store.messages.getHistory(id))).toEqual(['s1', 's1-tail', 'c']);
      await store.messages.appendCompaction(id, [user('s2')], 1, 0);
      expect(texts(await store.messages.getHistory(id))).toEqual(['s2', 's1-tail', 'c']);
      await store.messages.appendCompaction(id, [user('s3')], 3, 0);
      expect(texts(await store.messages.getHistory(id))).toEqual(['s3']);
      expect(texts(await store.messages.getTranscript(id))).toEqual(['a', 'b', 'c']);
    });

    test('a compaction of zero messages prepends', async () => {
      const id = thread();
      await store.messages.append(id, user('a'));
      await store.messages.appendCompaction(id, [user('preamble')], 0, 0);
      expect(texts(await store.messages.getHistory(id))).toEqual(['preamble', 'a']);
    });

    test.each([
      ['source greater than the effective count', 4, 0, 1],
      ['retained greater than source', 1, 2, 3],
      ['retained greater than the messages given', 3, 2, 1],
      ['a negative source', -1, 0, 1],
      ['a negative retained', 1, -1, 1],
      ['a fractional source', 1.5, 0, 1],
      ['a non-number source', '2', 0, 1],
    ])('rejects %s with a validation error and changes nothing', async (_name, source, retained, given) => {
      const id = thread();
      await store.messages.appendMany(id, ['a', 'b', 'c'].map(user));
      await store.messages.appendCompaction(id, [user('s')], 1, 0);
      const before = await snapshot(id);
      const summary = Array.from({ length: given as number }, (_, i) => user(`x${i}`));
      await expect(store.messages.appendCompaction(id, summary, source as number, retained as number)).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toEqual(before);
      // Nor did it take a sequence number: three messages and the compaction hold 1 to 4.
      expect((await store.messages.append(id, user('next'))).seq).toBe(5);
    });
  });

  describe('a boundary keeps each message id once in the effective history, so that what it reads back is valid input', () => {
    const withId = (text: string, id: string): MessageInput => ({ role: 'user', content: text, id });

    test.each([
      ['repeat each other', [withId('s', 's1'), withId('t', 's1')], 1],
      ['repeat a message after the cut', [withId('s', 'c')], 2],
      ['repeat the kept tail of the previous boundary', [withId('s', 'p2')], 1],
    ])('compaction messages that %s are a validation error and change nothing', async (_name, summary, source) => {
      const id = thread();
      await store.messages.appendMany(id, [withId('a', 'a'), withId('b', 'b')]);
      await store.messages.appendCompaction(id, [withId('p1', 'p1'), withId('p2', 'p2')], 2, 0);
      await store.messages.append(id, withId('c', 'c'));
      const before = await snapshot(id);
      await expect(store.messages.appendCompaction(id, summary, source, 0)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.appendRepair(id, user('r'), summary, source)).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toEqual(before);
    });

    test('the ids of messages the boundary cuts off may stand again (a retained message), and the history reads back as valid input', async () => {
      const id = thread();
      await store.messages.appendMany(id, [withId('a', 'a'), withId('b', 'b'), withId('c', 'c')]);
      await store.messages.appendCompaction(id, [withId('summary', 's'), withId('b', 'b')], 2, 1);
      const history = await store.messages.getHistory(id);
      expect(history.map((m) => m.id)).toEqual(['s', 'b', 'c']);
      await store.messages.replaceHistory(id, history);
      expect((await store.messages.getHistory(id)).map((m) => m.id)).toEqual(['s', 'b', 'c']);
    });
  });

  describe('appendRepair', () => {
    test('the effective history becomes the balanced projection and the repair message is kept as evidence', async () => {
      const id = thread();
      const call: MessageInput = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }] };
      await store.messages.appendMany(id, [user('find x'), call]);
      // The process crashed before the tool result; on reload the orphaned call is repaired.
      const repair: MessageInput = {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'error-text', value: 'interrupted' } }],
      };
      await store.messages.appendRepair(id, repair, [user('find x'), call, repair], 2);
      const after = await store.messages.append(id, user('again'));

      const history = await store.messages.getHistory(id);
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
      expect(history[3]).toEqual(after);
      const repairs = await store.messages.getRepairs(id);
      expect(repairs).toHaveLength(1);
      expect(repairs[0]).toMatchObject({ sourceMessageCount: 2, repairMessage: { role: 'tool', content: repair.content } });
      expect(texts(await store.messages.getTranscript(id))).toEqual(['find x', call.content, 'again']);
    });

    test('rejects a source beyond the effective history and changes nothing', async () => {
      const id = thread();
      await store.messages.append(id, user('a'));
      const before = await snapshot(id);
      await expect(store.messages.appendRepair(id, user('r'), [], 2)).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toEqual(before);
      expect((await store.messages.append(id, user('next'))).seq).toBe(2);
    });
  });

  describe('a compaction or repair made from a history that changed since it was read (expectedStartSeq)', () => {
    // Two summarizers read the same history and the first commits. The second's
    // sourceMessageCount then counts from the first one's summary: accepted, its
    // boundary would drop that summary and messages it never read.
    const many = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => user(`${prefix}${i + 1}`));
    const read = (id: string) => store.messages.getHistoryPage(id, { limit: 1000 });
    const compact = (id: string, text: string, source: number, expectedStartSeq: number | null) =>
      store.messages.appendCompaction(id, [{ role: 'system', content: text }], source, 0, { expectedStartSeq });
    const repair = (id: string, text: string, source: number, expectedStartSeq: number | null) =>
      store.messages.appendRepair(id, user(`evidence ${text}`), [user(text)], source, { expectedStartSeq });

    test.each([
      ['compactions', compact],
      ['repairs', repair],
    ])('two %s from the same 10 messages, 10 more between them: the second is a conflict and changes nothing', async (_name, write) => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 10));
      const [readA, readB] = [await read(id), await read(id)];
      expect([readA.startSeq, readB.startSeq]).toEqual([1, 1]);
      await write(id, 'A', 10, readA.startSeq);
      await store.messages.appendMany(id, many('n', 10));
      const before = await snapshot(id);
      expect(texts(before.history)).toEqual(['A', ...texts(many('n', 10))]);

      await expect(write(id, 'B', 10, readB.startSeq)).rejects.toThrow(StoreConflictError);
      await expect(write(id, 'B', 10, readB.startSeq)).rejects.toThrow(/changed after it was read.*read it again/);
      expect(await snapshot(id)).toEqual(before);
      // Nor did it take a sequence number: ten messages, A's boundary and ten more hold 1 to 21.
      expect((await store.messages.append(id, user('next'))).seq).toBe(22);

      // Read again and written again, it is accepted.
      const again = await read(id);
      expect(again.startSeq).toBe(11);
      await write(id, 'B again', 11, again.startSeq);
      expect(texts(await store.messages.getHistory(id))).toEqual(['B again', 'next']);
    });

    test('a compaction after the read makes a repair stale, and a repair a compaction', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 4));
      const first = await read(id);
      await compact(id, 'summary', 2, first.startSeq);
      await expect(repair(id, 'balanced', 2, first.startSeq)).rejects.toThrow(StoreConflictError);
      const second = await read(id);
      await repair(id, 'balanced', 2, second.startSeq);
      await expect(compact(id, 'summary 2', 2, second.startSeq)).rejects.toThrow(StoreConflictError);
      expect(texts(await store.messages.getHistory(id))).toEqual(['balanced', 'm4']);
    });

    test('messages appended after the read do not make it stale: they stay after the summary', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 5));
      const seen = await read(id);
      await store.messages.appendMany(id, many('late', 3));
      await compact(id, 'summary of m1-m5', seen.messages.length, seen.startSeq);
      expect(texts(await store.messages.getHistory(id))).toEqual(['summary of m1-m5', 'late1', 'late2', 'late3']);
    });

    test.each([
      [
        'a clear and new messages',
        async (id: string) => {
          await store.messages.clear(id);
          await store.messages.appendMany(id, many('new', 6));
        },
      ],
      ['a replaceHistory', (id: string) => store.messages.replaceHistory(id, many('new', 6)).then(() => undefined)],
      ['a clear', (id: string) => store.messages.clear(id)],
    ])('after %s, a summary of the old messages is a conflict', async (_name, change) => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 6));
      const seen = await read(id);
      await change(id);
      const before = await snapshot(id);
      await expect(compact(id, 'summary of the old m1-m4', 4, seen.startSeq)).rejects.toThrow(StoreConflictError);
      await expect(repair(id, 'balanced old', 0, seen.startSeq)).rejects.toThrow(StoreConflictError);
      expect(await snapshot(id)).toEqual(before);
    });

    test("startSeq: null for an empty history; the first message's seq; the latest boundary's; appends never change it", async () => {
      const id = thread();
      expect((await read(id)).startSeq).toBeNull();
      const session = await store.sessions.create();
      await store.sessions.append(session, { type: 'started' });
      expect((await read(session)).startSeq).toBeNull();
      await store.sessions.append(session, user('first'));
      expect((await read(session)).startSeq).toBe(2);

      await store.messages.appendMany(id, many('m', 5));
      const pages = [await store.messages.getHistoryPage(id, { limit: 2 })];
      await store.messages.append(id, user('m6'));
      pages.push(await store.messages.getHistoryPage(id, { limit: 2, cursor: pages[0].nextCursor! }));
      expect(pages.map((page) => page.startSeq)).toEqual([1, 1]);
      await compact(id, 'summary', 2, 1);
      expect((await read(id)).startSeq).toBe(7);
      await store.messages.append(id, user('m7'));
      expect((await read(id)).startSeq).toBe(7);
      await store.messages.clear(id);
      expect((await read(id)).startSeq).toBeNull();
      await store.messages.append(id, user('after the clear'));
      expect((await read(id)).startSeq).toBe(9);
    });

    test('a summary of an empty history is accepted until a message arrives', async () => {
      const id = thread();
      const empty = await read(id);
      await store.messages.append(id, user('a'));
      await expect(compact(id, 'preamble', 0, empty.startSeq)).rejects.toThrow(StoreConflictError);
      const other = thread();
      await compact(other, 'preamble', 0, (await read(other)).startSeq);
      expect(texts(await store.messages.getHistory(other))).toEqual(['preamble']);
    });

    test('without expectedStartSeq nothing is checked, as before: the stale summary is accepted', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 10));
      await compact(id, 'A', 10, 1);
      await store.messages.appendMany(id, many('n', 10));
      await store.messages.appendCompaction(id, [user('B')], 10, 0);
      await store.messages.appendCompaction(id, [user('B2')], 1, 0, {});
      await store.messages.appendRepair(id, user('r'), [user('C')], 1, {});
      expect(texts(await store.messages.getHistory(id))).toEqual(['C', 'n10']);
    });

    test("a tenant's scoped store checks it the same way; another tenant's session is still not found", async () => {
      const mine = store.tenants.forTenant(`tenant-${thread()}`);
      const theirs = store.tenants.forTenant(`tenant-${thread()}`);
      const id = await mine.sessions.create();
      await mine.messages.appendMany(id, many('m', 4));
      const seen = await mine.messages.getHistoryPage(id);
      expect(seen.startSeq).toBe(1);
      await mine.messages.appendCompaction(id, [user('A')], 4, 0, { expectedStartSeq: seen.startSeq });
      await expect(mine.messages.appendCompaction(id, [user('B')], 4, 0, { expectedStartSeq: seen.startSeq })).rejects.toThrow(StoreConflictError);
      await expect(mine.messages.appendRepair(id, user('r'), [], 1, { expectedStartSeq: seen.startSeq })).rejects.toThrow(StoreConflictError);
      await expect(theirs.messages.appendCompaction(id, [user('B')], 1, 0, { expectedStartSeq: seen.startSeq })).rejects.toThrow(StoreNotFoundError);
      await expect(theirs.messages.getHistoryPage(id)).rejects.toThrow(StoreNotFoundError);
      expect(texts(await mine.messages.getHistory(id))).toEqual(['A']);
    });

    test.each([
      ['zero', { expectedStartSeq: 0 }],
      ['a negative seq', { expectedStartSeq: -1 }],
      ['a fractional seq', { expectedStartSeq: 1.5 }],
      ['a seq given as a string', { expectedStartSeq: '1' }],
      ['a seq past the integers', { expectedStartSeq: 2 ** 53 }],
      ['an unknown option', { expectedStartSeq: 1, expectedLastSeq: 3 }],
      ['options that are not an object', 1],
      ['null as options', null],
      ['an array as options', [1]],
    ])('%s is a validation error and changes nothing', async (_name, options) => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 3));
      const before = await snapshot(id);
      await expect(store.messages.appendCompaction(id, [user('s')], 1, 0, options as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.appendRepair(id, user('r'), [user('s')], 1, options as never)).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toEqual(before);
    });
  });

  describe('input validation', () => {
    const cyclic = () => {
      const value: Record<string, unknown> = { a: 1 };
      value.self = value;
      return value;
    };
    const bad: [string, () => Promise<unknown>][] = [
      ['an empty thread id', () => store.messages.append('', user('a'))],
      ['a thread id of 192 characters', () => store.messages.append('x'.repeat(192), user('a'))],
      ['a non-string thread id', () => store.messages.getHistory(42 as never)],
      ['an unknown role', () => store.messages.append('v', { role: 'bot', content: 'a' } as never)],
      ['an unknown property', () => store.messages.append('v', { ...user('a'), extra: 1 } as never)],
      ['a missing content', () => store.messages.append('v', { role: 'user' } as never)],
      ['a part without a type', () => store.messages.append('v', { role: 'user', content: [{ text: 'a' }] } as never)],
      ['bytes of another typed array', () => store.messages.append('v', { role: 'user', content: [{ type: 'image', image: new Int16Array([1]) }] } as never)],
      ['a class instance', () => store.messages.append('v', { role: 'user', content: 'a', metadata: { seen: new Map() } } as never)],
      [
        'a function',
        () => store.messages.append('v', { role: 'user', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: () => 1 }] } as never),
      ],
      ['a cycle', () => store.messages.append('v', { role: 'user', content: 'a', metadata: cyclic() } as never)],
      [
        'an invalid Date in content',
        () => store.messages.append('v', { role: 'user', content: [{ type: 'text', text: 'a', when: new Date(Number.NaN) }] } as never),
      ],
      ['a non-finite number in a part', () => store.messages.append('v', { role: 'user', content: [{ type: 'text', text: 'a', n: Infinity }] })],
      ['a non-finite number', () => store.messages.append('v', { role: 'user', content: 'a', metadata: { n: Number.NaN } })],
      ['an invalid date', () => store.messages.append('v', { role: 'user', content: 'a', createdAt: 'yesterday' })],
      ['a message id too long', () => store.messages.append('v', { role: 'user', content: 'a', id: 'i'.repeat(192) })],
      ['a non-array batch', () => store.messages.appendMany('v', user('a') as never)],
      ['a thread id ending with a space', () => store.messages.append('v ', user('a'))],
      ['a lone surrogate in a thread id', () => store.messages.append('v\ud800', user('a'))],
      ['a lone surrogate in content', () => store.messages.append('v', user('a\udc00b'))],
      ['a date after the year 9999', () => store.messages.append('v', { role: 'user', content: 'a', createdAt: '+010000-01-01T00:00:00.000Z' })],
      ['a date before the year 1000', () => store.messages.append('v', { role: 'user', content: 'a', createdAt: new Date(Date.UTC(999, 0, 1)) })],
      // JSON.parse makes "__proto__" an own key; read back, assigning it would set a prototype.
      ['a "__proto__" key in metadata', () => store.messages.append('v', { role: 'user', content: 'a', metadata: JSON.parse('{"k":1,"__proto__":{"x":1}}') })],
      ['a "__proto__" key in a part', () => store.messages.append('v', { role: 'user', content: JSON.parse('[{"type":"text","text":"a","__proto__":{}}]') })],
    ];
    test('"constructor" and "prototype" keys are ordinary JSON keys and are kept', async () => {
      const metadata = { constructor: 'c', prototype: { k: 1 } };
      const stored = await store.messages.append('proto-keys', { role: 'user', content: 'a', metadata });
      expect((await store.messages.getTranscript('proto-keys'))[0]).toEqual(stored);
      expect(stored.metadata).toEqual(metadata);
    });

    test.each(bad)('rejects %s and writes nothing', async (_name, call) => {
      await expect(call()).rejects.toThrow(StoreValidationError);
      expect(await store.sessions.get('v')).toBeNull();
    });

    // Date() alone would take each of these, and change or guess the instant.
    test.each([
      ['a day that does not exist', '2024-02-31T10:00:00Z'],
      ['February 29th of a common year', '2023-02-29T10:00:00Z'],
      ['a bare number', '1'],
      ['a US date', '12/31/2024'],
      ['a date-time without a zone', '2024-05-01T12:00:00'],
      ['a date without a time', '2024-05-01'],
      ['hour 24', '2024-05-01T24:00:00Z'],
      ['a space for the T', '2024-05-01 12:00:00Z'],
      ['an offset without a colon', '2024-05-01T12:00:00+0200'],
      ['an RFC 2822 date', 'Wed, 01 May 2024 12:00:00 GMT'],
      ['a leap second', '2016-12-31T23:59:60Z'],
      ['an offset of 24 hours', '2024-05-01T12:00:00+24:00'],
      ['a lowercase z', '2024-05-01T12:00:00z'],
      ['a fraction of ten digits', '2024-05-01T12:00:00.1234567890Z'],
      ['a fraction after a comma', '2024-05-01T12:00:00,5Z'],
      ['an Invalid Date', new Date('nope')],
    ])('rejects a createdAt that is %s (%s) and writes nothing', async (_name, createdAt) => {
      await expect(store.messages.append('v', { role: 'user', content: 'a', createdAt })).rejects.toThrow(
        /createdAt must be a Date or an ISO-8601 date-time with Z or an offset/,
      );
      expect(await store.sessions.get('v')).toBeNull();
    });

    test.each([
      ['2024-02-29T10:00:00Z', '2024-02-29T10:00:00.000Z'],
      ['2024-05-01T12:00Z', '2024-05-01T12:00:00.000Z'],
      ['2024-05-01T12:00:00.5+02:00', '2024-05-01T10:00:00.500Z'],
      ['2024-05-01T00:30:00-01:30', '2024-05-01T02:00:00.000Z'],
      ['2024-05-01T12:00:00.123987Z', '2024-05-01T12:00:00.123Z'],
      ['2024-05-01T12:00:00.123456789-00:00', '2024-05-01T12:00:00.123Z'],
    ])('takes createdAt %s as the instant %s', async (createdAt, instant) => {
      const id = thread();
      const stored = await store.messages.append(id, { role: 'user', content: 'a', createdAt });
      expect(stored.createdAt.toISOString()).toBe(instant);
      expect((await store.messages.getTranscript(id))[0].createdAt.toISOString()).toBe(instant);
    });

    test(`JSON nested ${MAX_JSON_DEPTH} levels deep is kept; one level more is rejected`, async () => {
      const nest = (levels: number): JsonValue => (levels === 0 ? 'leaf' : [nest(levels - 1)]);
      // content (an array) and its part (an object) are two of the levels.
      const deepest = [{ type: 'data', value: nest(MAX_JSON_DEPTH - 2) }];
      const stored = await store.messages.append('deep', { role: 'tool', content: deepest, id: 'deep-1' });
      expect((await store.messages.getTranscript('deep'))[0]).toEqual(stored);
      // A retry of it is compared with the stored message whole (Node's deep equality, the deepest walk): the same, stored once.
      expect(await store.messages.append('deep', { role: 'tool', content: deepest, id: 'deep-1' })).toEqual(stored);
      await expect(store.messages.append('deep', { role: 'tool', content: [{ type: 'data', value: nest(MAX_JSON_DEPTH - 3) }], id: 'deep-1' })).rejects.toThrow(
        StoreConflictError,
      );
      expect(await store.messages.count('deep')).toBe(1);
      // A JSONL export reads back in: the file's line holds two levels more (the line, its message).
      let jsonl = '';
      for await (const line of store.sessions.exportJsonl('deep')) jsonl += line;
      const copy = await store.sessions.importJsonl(jsonl, { sessionId: 'deep-copy' });
      expect((await store.messages.getTranscript(copy.sessionId))[0].content).toEqual(deepest);
      await expect(store.messages.append('deep', { role: 'tool', content: [{ type: 'data', value: nest(MAX_JSON_DEPTH - 1) }] })).rejects.toThrow(
        new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`),
      );
    });

    test('ids are compared byte for byte: case and accents make different threads', async () => {
      await store.messages.append('Case-A', user('upper'));
      await store.messages.append('case-a', user('lower'));
      await store.messages.append('cafe', user('plain'));
      await store.messages.append('café', user('accent'));
      expect(texts(await store.messages.getHistory('case-a'))).toEqual(['lower']);
      expect(texts(await store.messages.getHistory('Case-A'))).toEqual(['upper']);
      expect(texts(await store.messages.getHistory('café'))).toEqual(['accent']);
    });

    test('a thread id of exactly 191 characters is fine', async () => {
      const id = 'é'.repeat(191);
      const stored: StoredMessage = await store.messages.append(id, user('a'));
      expect(await store.messages.getHistory(id)).toEqual([stored]);
    });
  });
};
