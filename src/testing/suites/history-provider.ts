// HistoryProvider on every backend: the stored history injected before a run, the run stored after it.
import type { MessageInput } from '../../index.js';
import { HistoryProvider, StoreValidationError } from '../../index.js';
import type { Suite } from '../kit.js';

/** HistoryProvider: the stored history placed before a run's input, and a successful run's messages stored after it. */
export const historyProvider: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const thread = () => `history-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });
  const assistant = (text: string): MessageInput => ({ role: 'assistant', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);

  /** Everything a write could change, to prove that a rejected or skipped one changed nothing. */
  async function snapshot(id: string) {
    return {
      history: await store.messages.getHistory(id),
      transcript: await store.messages.getTranscript(id),
      thread: await store.sessions.get(id),
    };
  }

  describe('beforeRun', () => {
    test("puts the stored effective history before the run's input and keeps the other context properties", async () => {
      const id = thread();
      const stored = await store.messages.appendMany(id, [user('a'), assistant('b')]);
      const tools = { search: { description: 'searches the web' } };
      const input = [user('c')];
      const context = { messages: input, tools, temperature: 0.2, runId: 'run-1' };

      const result = await store.histories.forThread(id).beforeRun(context);

      expect(result.messages).toEqual([...stored, user('c')]);
      expect(result.tools).toBe(tools);
      expect(result).toMatchObject({ temperature: 0.2, runId: 'run-1' });
      // The caller's context is not mutated, and reading stores nothing.
      expect(context.messages).toBe(input);
      expect(input).toEqual([user('c')]);
      expect(await store.messages.getTranscript(id)).toEqual(stored);
    });

    test('on an empty thread returns the input messages as they are, and creates nothing', async () => {
      const id = thread();
      const input = [{ role: 'system', content: 'be brief' } as MessageInput, user('hello')];
      const result = await store.histories.forThread(id).beforeRun({ messages: input, maxSteps: 3 });
      expect(result).toEqual({ messages: input, maxSteps: 3 });
      expect((await snapshot(id)).thread).toBeNull();
    });

    test('after a compaction it injects the effective (compacted) history, not the transcript', async () => {
      const id = thread();
      await store.messages.appendMany(id, ['a', 'b', 'c', 'd'].map(user));
      await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary of a-c' }], 3, 0);
      const provider = store.histories.forThread(id);

      const result = await provider.beforeRun({ messages: [user('e')] });

      expect(texts(result.messages)).toEqual(['summary of a-c', 'd', 'e']);
      expect(result.messages).toEqual([...(await store.messages.getHistory(id)), user('e')]);
      expect((result.messages[0] as { seq: number | null }).seq).toBeNull();
      expect((result.messages[1] as { seq: number | null }).seq).toBe(4);
    });
  });

  describe('afterRun', () => {
    test('stores the request then the response messages at contiguous seqs after the existing history', async () => {
      const id = thread();
      await store.messages.append(id, user('earlier'));
      const provider = store.histories.forThread(id);
      const request: MessageInput[] = [
        { role: 'system', content: 'tools available' },
        { ...user('weather?'), id: 'req-1', metadata: { locale: 'en' } },
      ];
      const response: MessageInput[] = [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'json', value: { temp: 4 } } }] },
        assistant('4 degrees'),
      ];

      await expect(provider.afterRun(request, response)).resolves.toBeUndefined();

      const transcript = await store.messages.getTranscript(id);
      expect(transcript.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(
        transcript
          .slice(1)
          .map(({ role, content, id: messageId, metadata }) => ({ role, content, ...(messageId && { id: messageId }), ...(metadata && { metadata }) })),
      ).toEqual([...request, ...response]);
    });

    test.each([
      ['an Error', new Error('model failed')],
      ['a string', 'aborted'],
      ['a plain object', { code: 'rate_limited' }],
      ['zero', 0],
      ['false', false],
    ])('a failed run (error: %s) stores nothing', async (_name, error) => {
      const fresh = thread();
      await store.histories.forThread(fresh).afterRun([user('q')], [assistant('a')], error);
      expect(await snapshot(fresh)).toMatchObject({ transcript: [], thread: null });

      const existing = thread();
      await store.messages.append(existing, user('kept'));
      const before = await snapshot(existing);
      await store.histories.forThread(existing).afterRun([user('q')], [assistant('a')], error);
      expect(await snapshot(existing)).toEqual(before);
      // Nor did it take a sequence number.
      expect((await store.messages.append(existing, user('next'))).seq).toBe(2);
    });

    test('an error of null or undefined is a successful run: it is stored', async () => {
      const id = thread();
      const provider = store.histories.forThread(id);
      await provider.afterRun([user('q1')], [assistant('a1')], null);
      await provider.afterRun([user('q2')], [assistant('a2')], undefined);
      expect(texts(await store.messages.getTranscript(id))).toEqual(['q1', 'a1', 'q2', 'a2']);
    });

    test('an invalid message in the response stores nothing, not even the request', async () => {
      const fresh = thread();
      await expect(store.histories.forThread(fresh).afterRun([user('q')], [assistant('ok'), { role: 'robot', content: 'x' } as never])).rejects.toThrow(
        StoreValidationError,
      );
      expect(await snapshot(fresh)).toMatchObject({ transcript: [], thread: null });

      const existing = thread();
      await store.messages.append(existing, user('kept'));
      const before = await snapshot(existing);
      const provider = store.histories.forThread(existing);
      await expect(provider.afterRun([user('q')], [{ ...assistant('a'), extra: 7 } as never])).rejects.toThrow(StoreValidationError);
      await expect(provider.afterRun([user('q')], 'not an array' as never)).rejects.toThrow(StoreValidationError);
      await expect(provider.afterRun([{ role: 'user' } as never], [assistant('a')])).rejects.toThrow(StoreValidationError);
      expect(await snapshot(existing)).toEqual(before);
      expect((await store.messages.append(existing, user('next'))).seq).toBe(2);
    });
  });

  describe('listMessages and toJSON', () => {
    test('read back what was stored, as the effective history', async () => {
      const id = thread();
      const provider = store.histories.forThread(id);
      expect(await provider.listMessages()).toEqual([]);
      expect(await provider.toJSON()).toEqual({ messages: [] });

      await provider.afterRun([user('q1')], [assistant('a1')]);
      const stored = await store.messages.getTranscript(id);
      expect(stored).toHaveLength(2);
      expect(await provider.listMessages()).toEqual(stored);
      expect(await provider.toJSON()).toEqual({ messages: stored });

      await store.messages.appendCompaction(id, [{ role: 'system', content: 'summary' }], 1, 0);
      await provider.afterRun([user('q2')], [assistant('a2')]);
      expect(texts(await provider.listMessages())).toEqual(['summary', 'a1', 'q2', 'a2']);
      expect(await provider.toJSON()).toEqual({ messages: await store.messages.getHistory(id) });
    });
  });

  describe('concurrent runs', () => {
    test('two providers on one thread, 20 rounds at once, lose nothing and keep each run contiguous', async () => {
      const id = thread();
      const providers = [store.histories.forThread(id), store.histories.forThread(id)];
      const rounds = 20;
      const run = (name: string) => ({
        request: [0, 1, 2].map((i): MessageInput => user(`${name}:${i}`)),
        response: [3, 4, 5].map((i): MessageInput => assistant(`${name}:${i}`)),
      });
      const runs = Array.from({ length: rounds }, (_, round) => providers.map((_p, p) => ({ provider: providers[p], name: `r${round}p${p}` }))).flat();

      await Promise.all(
        runs.map(({ provider, name }) => {
          const { request, response } = run(name);
          return provider.afterRun(request, response);
        }),
      );

      const transcript = await store.messages.getTranscript(id);
      expect(transcript).toHaveLength(runs.length * 6);
      expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: runs.length * 6 }, (_, i) => i + 1));
      for (const { name } of runs) {
        const mine = transcript.filter((m) => (m.content as string).startsWith(`${name}:`));
        expect(texts(mine)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `${name}:${i}`));
        expect(mine.map((m) => m.role)).toEqual(['user', 'user', 'user', 'assistant', 'assistant', 'assistant']);
        const first = mine[0].seq;
        expect(mine.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5].map((i) => first + i));
      }
    });
  });

  describe('forThread', () => {
    test('binds a provider to the thread', () => {
      const provider = store.histories.forThread('bound-thread');
      expect(provider).toBeInstanceOf(HistoryProvider);
      expect(provider.threadId).toBe('bound-thread');
    });

    test.each([
      ['an empty id', ''],
      ['an id of 192 characters', 'x'.repeat(192)],
      ['a NUL character', 'a\u0000b'],
      ['a number', 42],
      ['undefined', undefined],
    ])('rejects %s with a validation error', (_name, id) => {
      expect(() => store.histories.forThread(id as never)).toThrow(StoreValidationError);
    });
  });
};
