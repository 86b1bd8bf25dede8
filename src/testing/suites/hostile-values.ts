// Hostile input to the AI SDK paths, on every backend: what the caller changes
// after a call is not stored, values that cannot be read are refused with
// nothing written, the SDK's per-role shapes are held, a retried message with
// its keys in another order is the same message, and a repair never answers a
// call whose result lands while it runs.
import type { MessageInput } from '../../index.js';
import { StoreValidationError } from '../../index.js';
import type { Suite } from '../kit.js';

/**
 * Hostile input: what the caller changes after a call is not stored, values that cannot be read are refused with
 * nothing written, the AI SDK's per-role shapes hold, and a repair never answers a call whose result lands while
 * it runs.
 */
export const hostileValues: Suite = ({ store, test, expect }) => {
  let n = 0;
  const thread = () => `hostile-${++n}`;

  test("what the caller changes after the call returned its promise is not stored; the returned message is not the caller's object", async () => {
    const id = thread();
    const createdAt = new Date('2026-01-02T03:04:05.006Z');
    const message = { role: 'user' as const, content: [{ type: 'text', text: 'as given' }], metadata: { k: 'v' }, createdAt };
    const writing = store.messages.append(id, message);
    message.content[0].text = new Uint8Array([1, 2]) as never;
    message.metadata.k = 'changed';
    createdAt.setTime(0);
    const stored = await writing;
    expect(stored.createdAt).not.toBe(createdAt);
    expect(stored.createdAt.toISOString()).toBe('2026-01-02T03:04:05.006Z');
    expect((await store.messages.getTranscript(id)).map(({ content, metadata }) => ({ content, metadata }))).toEqual([
      { content: [{ type: 'text', text: 'as given' }], metadata: { k: 'v' } },
    ]);
  });

  test.each<[string, () => unknown]>([
    [
      'a getter that throws',
      () => ({
        role: 'user',
        content: [
          {
            type: 'text',
            get text() {
              throw new Error('no');
            },
          },
        ],
      }),
    ],
    [
      'a revoked Proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return { role: 'user', content: 'a', metadata: { p: proxy } };
      },
    ],
    ['a hole in a batch', () => null],
    ['a tool message with text content', () => ({ role: 'tool', content: 'the result' })],
    ['a system message with parts', () => ({ role: 'system', content: [{ type: 'text', text: 'rules' }] })],
    ['provider options that are not objects per provider', () => ({ role: 'user', content: 'a', providerOptions: { openai: 5 } })],
  ])('%s is a StoreValidationError and nothing is written', async (name, make) => {
    const id = thread();
    const batch = name === 'a hole in a batch' ? [{ role: 'user', content: 'a' }, , { role: 'user', content: 'b' }] : [make()]; // eslint-disable-line no-sparse-arrays
    await expect(store.messages.appendMany(id, batch as MessageInput[])).rejects.toThrow(StoreValidationError);
    expect(await store.sessions.get(id)).toBeNull();
  });

  test.each<[string, unknown]>([
    ['a ui-message event that is not a UI message', { type: 'ui-message', data: null }],
    ['a chat order that is not a list of ids', { type: 'ui-message-order', data: { ids: 5 } }],
    ['a chat order naming a message the file does not hold', { type: 'ui-message-order', data: { ids: ['ghost'] } }],
  ])("a JSONL file with %s is refused: loadChat reads a chat's events as they are", async (_name, event) => {
    const id = thread();
    const lines = [
      { type: 'session', version: 1, id, createdAt: '2026-01-01T00:00:00Z' },
      { type: 'event', seq: 1, event, createdAt: '2026-01-01T00:00:00Z' },
    ];
    await expect(store.sessions.importJsonl(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))).rejects.toThrow(StoreValidationError);
    expect(await store.sessions.get(id)).toBeNull();
  });

  test('a retried message whose keys come in another order is the same message: not stored again, no conflict', async () => {
    const id = thread();
    const first = await store.messages.append(id, {
      role: 'user',
      id: 'm',
      content: [{ type: 'text', text: 'hi', extra: { a: 1, b: 2 } }],
      metadata: { x: 1, y: 2 },
    });
    const again = await store.messages.append(id, {
      metadata: { y: 2, x: 1 },
      content: [{ extra: { b: 2, a: 1 }, text: 'hi', type: 'text' }],
      id: 'm',
      role: 'user',
    });
    expect(again.seq).toBe(first.seq);
    expect(await store.messages.count(id)).toBe(1);
  });

  test('20,000 Dates in one message are kept, without a quadratic encoding', async () => {
    const id = thread();
    const dates = Array.from({ length: 20_000 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 1000));
    const started = performance.now();
    await store.messages.append(id, { role: 'user', content: 'many dates', metadata: { dates } });
    const elapsed = performance.now() - started;
    const [read] = await store.messages.getTranscript(id);
    expect((read.metadata!.dates as unknown as Date[]).map((date) => date.getTime())).toEqual(dates.map((date) => date.getTime()));
    // Quadratic copying took about 5 s on this kind of machine; linear is well under one.
    expect(elapsed).toBeLessThan(3000);
  });

  test('a repair racing the real result of its call never answers the call twice', async () => {
    for (let round = 0; round < 6; round++) {
      const id = thread();
      await store.messages.appendMany(id, [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }] },
      ]);
      const result: MessageInput = {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: 'REAL' } }],
      };
      const [, real] = await Promise.all([store.messages.repairToolCalls(id), store.messages.append(id, result)]);
      // A repair may come first (the real result then arrives late, after it); it must never be written after the result it did not see.
      const repairs = await store.messages.getRepairs(id);
      for (const repair of repairs) expect(repair.seq).toBeLessThan(real.seq);
    }
  });
};
