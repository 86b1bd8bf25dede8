// ChatStore on every backend: UI-message chats as the AI SDK's recipe saves and loads them.
import { isDeepStrictEqual } from 'node:util';
import { convertToModelMessages, simulateReadableStream, streamText, validateUIMessages, type UIMessage } from 'ai';
import { validateUIMessages as validateUIMessages7 } from 'ai-7';
import { MockLanguageModelV3 } from 'ai/test';
import {
  CHAT_MESSAGE_EVENT,
  CHAT_ORDER_EVENT,
  isEvent,
  StoreNotFoundError,
  StoreValidationError,
  type ChatMessage,
  type ChatStore,
  type StoredSessionEvent,
} from '../../src/index.js';
import { eachBackend, storeOn, type StoreApp } from '../support/openers.js';

const user = (id: string, text: string): ChatMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const assistant = (id: string, ...texts: string[]): ChatMessage => ({
  id,
  role: 'assistant',
  parts: [{ type: 'step-start' }, ...texts.map((text) => ({ type: 'text', text, state: 'done' }))],
});

/** A chat with every kind of part the SDK's UI messages have, and metadata. */
const richChat = (): ChatMessage[] => [
  { id: 'sys', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  {
    id: 'u1',
    role: 'user',
    metadata: { sentAt: '2025-01-01T00:00:00Z', nested: { list: [1, 2.5, -3, null, true], empty: {} } },
    parts: [
      { type: 'text', text: 'What is the weather in Lisbon? 🌦️ "quoted" \\ \u0000 nul' },
      { type: 'file', mediaType: 'image/png', filename: 'map.png', url: 'data:image/png;base64,iVBORw0KGgo=' },
    ],
  },
  {
    id: 'a1',
    role: 'assistant',
    metadata: { model: 'mock', usage: { inputTokens: 10, outputTokens: 5 } },
    parts: [
      { type: 'step-start' },
      { type: 'reasoning', text: 'The user wants weather.', state: 'done', providerMetadata: { mock: { signature: 'sig' } } },
      { type: 'tool-weather', toolCallId: 'call-1', state: 'output-available', input: { city: 'Lisbon' }, output: { celsius: 21 } },
      { type: 'dynamic-tool', toolName: 'lookup', toolCallId: 'call-2', state: 'output-error', input: { q: 'x' }, errorText: 'failed' },
      { type: 'source-url', sourceId: 's1', url: 'https://example.com/weather', title: 'Weather' },
      { type: 'source-document', sourceId: 's2', mediaType: 'text/plain', title: 'Notes' },
      { type: 'data-progress', id: 'p1', data: { percent: 100 } },
      { type: 'text', text: 'It is 21 °C.', state: 'done' },
    ],
  },
];

/** The tool part of an assistant message in the states of a tool approval. */
const weatherCall = (state: string, extra: Record<string, unknown> = {}): ChatMessage => ({
  id: 'a-tool',
  role: 'assistant',
  parts: [{ type: 'step-start' }, { type: 'tool-weather', toolCallId: 'call-9', state, input: { city: 'Porto' }, ...extra }],
});

eachBackend((backend) => {
  const store = storeOn(backend);

  let n = 0;
  const unique = (name = 'chat') => `${name}-${++n}`;

  /** The session's chat events, in log order. */
  const chatEvents = async (id: string, app: StoreApp = store): Promise<StoredSessionEvent[]> =>
    (await app.sessions.load(id)).filter(isEvent).filter((entry) => entry.type === CHAT_MESSAGE_EVENT || entry.type === CHAT_ORDER_EVENT);
  const versionsOf = (events: StoredSessionEvent[]) =>
    events.filter((event) => event.type === CHAT_MESSAGE_EVENT).map((event) => event.data as unknown as ChatMessage);
  const ordersOf = (events: StoredSessionEvent[]) =>
    events.filter((event) => event.type === CHAT_ORDER_EVENT).map((event) => (event.data as { ids: string[] }).ids);

  describe('save and load', () => {
    test('loadChat returns exactly what was saved, in order; [] for an unknown chat', async () => {
      const id = unique();
      expect(await store.chats.loadChat(id)).toEqual([]);
      const chat = richChat();
      await store.chats.saveChat(id, chat);
      const loaded = await store.chats.loadChat(id);
      expect(loaded).toStrictEqual(chat);
      // Key order too: the events keep the JSON as it was given.
      expect(JSON.stringify(loaded)).toBe(JSON.stringify(chat));
    });

    test('a key whose value is undefined is not kept, as in JSON: loadChat gives the message without it (toEqual and JSON equal, isDeepStrictEqual not)', async () => {
      const id = unique();
      const chat = [
        { id: 'u1', role: 'user', metadata: undefined, parts: [{ type: 'text', text: 'hi', providerMetadata: undefined }] },
        { id: 'a1', role: 'assistant', parts: [{ type: 'source-url', sourceId: 's', url: 'https://example.com', title: undefined }] },
      ] as unknown as ChatMessage[];
      await store.chats.saveChat(id, chat);
      const loaded = await store.chats.loadChat(id);
      expect(loaded).toEqual(chat);
      expect(JSON.stringify(loaded)).toBe(JSON.stringify(chat));
      expect(isDeepStrictEqual(loaded, chat)).toBe(false);
      expect(['metadata' in loaded[0], 'providerMetadata' in loaded[0].parts[0], 'title' in loaded[1].parts[0]]).toEqual([false, false, false]);
    });

    test('the output passes the SDK’s validateUIMessages (ai 6 and ai 7)', async () => {
      const id = unique();
      await store.chats.saveChat(id, [...richChat(), weatherCall('approval-responded', { approval: { id: 'ap-1', approved: true, reason: 'ok' } })]);
      const loaded = await store.chats.loadChat<UIMessage>(id);
      expect(await validateUIMessages({ messages: loaded })).toEqual(loaded);
      expect(await validateUIMessages7({ messages: loaded })).toEqual(loaded);
    });

    test('growth by appending records only the new messages, and no order', async () => {
      const id = unique();
      const first = [user('u1', 'hi'), assistant('a1', 'hello')];
      await store.chats.saveChat(id, first);
      expect(versionsOf(await chatEvents(id))).toEqual(first);
      const second = [...first, user('u2', 'how are you?'), assistant('a2', 'fine')];
      await store.chats.saveChat(id, second);
      const events = await chatEvents(id);
      expect(versionsOf(events)).toEqual(second);
      expect(ordersOf(events)).toEqual([]);
      expect(await store.chats.loadChat(id)).toEqual(second);
    });

    test('a continued assistant message is a new version: loadChat shows it, the log keeps both', async () => {
      const id = unique();
      await store.chats.saveChat(id, [user('u1', 'write two lines'), assistant('a1', 'line one')]);
      await store.chats.saveChat(id, [user('u1', 'write two lines'), assistant('a1', 'line one', 'line two')]);
      expect(await store.chats.loadChat(id)).toEqual([user('u1', 'write two lines'), assistant('a1', 'line one', 'line two')]);
      const events = await chatEvents(id);
      expect(versionsOf(events)).toEqual([user('u1', 'write two lines'), assistant('a1', 'line one'), assistant('a1', 'line one', 'line two')]);
      expect(ordersOf(events)).toEqual([]);
    });

    test('a tool approval records each state of the message, and metadata alone is a change', async () => {
      const id = unique();
      const question = user('u1', 'weather in Porto?');
      const states = [
        weatherCall('approval-requested', { approval: { id: 'ap-1' } }),
        weatherCall('approval-responded', { approval: { id: 'ap-1', approved: true } }),
        weatherCall('output-available', { approval: { id: 'ap-1', approved: true }, output: { celsius: 18 } }),
        { ...weatherCall('output-available', { approval: { id: 'ap-1', approved: true }, output: { celsius: 18 } }), metadata: { finished: true } },
      ];
      for (const state of states) {
        await store.chats.saveChat(id, [question, state]);
        expect(await store.chats.loadChat(id)).toEqual([question, state]);
      }
      expect(versionsOf(await chatEvents(id))).toEqual([question, ...states]);
    });

    test('regenerate: a message left out no longer loads; its replacement is recorded, the removed one kept in the log', async () => {
      const id = unique();
      const [u1, a1, u2, a2] = [user('u1', 'q1'), assistant('a1', 'r1'), user('u2', 'q2'), assistant('a2', 'bad answer')];
      await store.chats.saveChat(id, [u1, a1, u2, a2]);
      // The SDK's regenerate drops the last assistant message, and onFinish gives the list with its new one.
      await store.chats.saveChat(id, [u1, a1, u2]);
      expect(await store.chats.loadChat(id)).toEqual([u1, a1, u2]);
      const regenerated = assistant('a2-b', 'good answer');
      await store.chats.saveChat(id, [u1, a1, u2, regenerated]);
      expect(await store.chats.loadChat(id)).toEqual([u1, a1, u2, regenerated]);
      const events = await chatEvents(id);
      expect(versionsOf(events)).toEqual([u1, a1, u2, a2, regenerated]);
      expect(ordersOf(events)).toEqual([['u1', 'a1', 'u2']]);
      // Regenerated in one save: the new list replaces the old answer.
      await store.chats.saveChat(id, [u1, a1, u2, a2]);
      expect(await store.chats.loadChat(id)).toEqual([u1, a1, u2, a2]);
      // a2 loads again as it was: an order, no new version.
      expect(versionsOf(await chatEvents(id))).toHaveLength(5);
    });

    test('reorder, removal of everything, and a removed message that comes back changed', async () => {
      const id = unique();
      const [a, b, c] = [user('a', 'A'), user('b', 'B'), user('c', 'C')];
      await store.chats.saveChat(id, [a, b, c]);
      await store.chats.saveChat(id, [c, a, b]);
      expect(await store.chats.loadChat(id)).toEqual([c, a, b]);
      await store.chats.saveChat(id, []);
      expect(await store.chats.loadChat(id)).toEqual([]);
      const changed = user('b', 'B, edited');
      await store.chats.saveChat(id, [changed]);
      expect(await store.chats.loadChat(id)).toEqual([changed]);
      const events = await chatEvents(id);
      expect(versionsOf(events)).toEqual([a, b, c, changed]);
      expect(ordersOf(events)).toEqual([['c', 'a', 'b'], []]);
    });

    test('a save that changes nothing writes nothing, whatever its key order or undefined properties', async () => {
      const id = unique();
      const chat = richChat();
      await store.chats.saveChat(id, chat);
      const before = await store.sessions.load(id);
      const header = await store.sessions.get(id);
      await store.chats.saveChat(id, chat);
      await store.chats.saveChat(id, await store.chats.loadChat(id));
      const reordered = chat.map(({ parts, metadata, role, id: messageId }) => ({
        parts: parts.map((part) => Object.fromEntries(Object.entries(part).reverse())),
        metadata,
        role,
        id: messageId,
      }));
      await store.chats.saveChat(id, reordered as ChatMessage[]);
      expect(await store.sessions.load(id)).toEqual(before);
      expect(await store.sessions.get(id)).toEqual(header);
    });

    test('an empty list for an unknown chat creates no session', async () => {
      const id = unique();
      await store.chats.saveChat(id, []);
      expect(await store.sessions.get(id)).toBeNull();
      expect(await store.chats.loadChat(id)).toEqual([]);
    });

    test('the session’s other entries are no part of the chat, and stay', async () => {
      const id = await store.sessions.create({ title: 'chat' });
      await store.sessions.append(id, { role: 'user', content: 'a model message' });
      await store.chats.saveChat(id, [user('u1', 'hi')]);
      await store.sessions.append(id, { type: 'tool-started', data: { tool: 'search' } });
      await store.chats.saveChat(id, [user('u1', 'hi'), assistant('a1', 'hello')]);
      expect(await store.chats.loadChat(id)).toEqual([user('u1', 'hi'), assistant('a1', 'hello')]);
      expect((await store.sessions.load(id)).map((entry) => (isEvent(entry) ? entry.type : entry.role))).toEqual([
        'user',
        CHAT_MESSAGE_EVENT,
        'tool-started',
        CHAT_MESSAGE_EVENT,
      ]);
      expect(await store.messages.getHistory(id)).toMatchObject([{ role: 'user', content: 'a model message' }]);
    });
  });

  describe('concurrent saves', () => {
    /** Each version in the log once, and the log folds to what loadChat returns. */
    const expectConsistent = async (id: string, app: StoreApp) => {
      const events = await chatEvents(id, app);
      const versions = versionsOf(events).map((message) => JSON.stringify(message));
      expect(new Set(versions).size).toBe(versions.length);
      const seqs = events.map((event) => event.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    };

    const race = async (label: string, second: () => Promise<StoreApp>) => {
      const other = await second();
      try {
        for (let round = 0; round < 4; round++) {
          const id = unique(label);
          const base = [user('u1', 'q1'), assistant('a1', 'r1')];
          if (round % 2 === 1) await store.chats.saveChat(id, base);
          const one = [...base, user('u2', 'q2 from one'), assistant('a2', 'r2 from one')];
          const two = [...base, user('u3', 'q2 from two'), assistant('a1-b', 'r1 regenerated')];
          await Promise.all([store.chats.saveChat(id, one), other.chats.saveChat(id, two)]);
          const final = await store.chats.loadChat(id);
          expect([one, two]).toContainEqual(final);
          expect(await other.chats.loadChat(id)).toEqual(final);
          await expectConsistent(id, store);

          // The same list twice at once, new chat or not: recorded once.
          const same = unique(label);
          if (round % 2 === 1) await store.chats.saveChat(same, base);
          await Promise.all([store.chats.saveChat(same, one), other.chats.saveChat(same, one), store.chats.saveChat(same, one)]);
          expect(await store.chats.loadChat(same)).toEqual(one);
          expect(versionsOf(await chatEvents(same))).toEqual(one);
        }
      } finally {
        if (other !== store) await other.close();
      }
    };

    test('two saves at once in one app: the chat is one of the lists, whole, each version recorded once', () => race('same-app', async () => store));

    test('two saves at once from two apps on one database', () => race('two-apps', () => store.another()));
  });

  describe('validation', () => {
    const long = 'x'.repeat(192);
    test.each<[string, unknown]>([
      ['not an array', { id: 'u1', role: 'user', parts: [] }],
      ['a message that is not an object', ['hello']],
      ['a message that is null', [null]],
      ['an empty id', [{ id: '', role: 'user', parts: [] }]],
      ['an id that is not a string', [{ id: 7, role: 'user', parts: [] }]],
      ['an id longer than 191 characters', [{ id: long, role: 'user', parts: [] }]],
      ['a missing id', [{ role: 'user', parts: [] }]],
      ['a role the SDK does not have', [{ id: 'm', role: 'tool', parts: [] }]],
      ['parts that are not an array', [{ id: 'm', role: 'user', parts: { type: 'text' } }]],
      ['missing parts', [{ id: 'm', role: 'user' }]],
      ['a part without a type', [{ id: 'm', role: 'user', parts: [{ text: 'hi' }] }]],
      ['a part whose type is not a string', [{ id: 'm', role: 'user', parts: [{ type: 1 }] }]],
      ['a part that is not an object', [{ id: 'm', role: 'user', parts: ['text'] }]],
      ['duplicate ids', [user('m', 'one'), user('m', 'two')]],
      ['a Date in metadata', [{ ...user('m', 'hi'), metadata: { at: new Date() } }]],
      ['a URL in a part', [{ id: 'm', role: 'user', parts: [{ type: 'file', url: new URL('https://example.com') }] }]],
      ['a function in a part', [{ id: 'm', role: 'user', parts: [{ type: 'text', text: () => 'hi' }] }]],
      ['NaN in metadata', [{ ...user('m', 'hi'), metadata: { n: NaN } }]],
      ['a bigint in metadata', [{ ...user('m', 'hi'), metadata: { n: 1n } }]],
      ['undefined in an array', [{ ...user('m', 'hi'), metadata: { list: [undefined] } }]],
      ['a class instance as a message', [Object.assign(new (class Message {})(), user('m', 'hi'))]],
      ['a lone surrogate', [user('m', '\uD800')]],
    ])('refuses %s and writes nothing', async (_name, messages) => {
      const id = unique();
      await store.chats.saveChat(id, [user('kept', 'kept')]);
      const before = await store.sessions.load(id);
      await expect(store.chats.saveChat(id, messages as ChatMessage[])).rejects.toThrow(StoreValidationError);
      expect(await store.sessions.load(id)).toEqual(before);
      expect(await store.chats.loadChat(id)).toEqual([user('kept', 'kept')]);
    });

    test('an empty id says how the SDK gives response messages ids', async () => {
      await expect(store.chats.saveChat(unique(), [user('u1', 'hi'), { ...assistant('', 'hello') }])).rejects.toThrow(
        /messages\[1\]\.id is empty.*generateMessageId/,
      );
    });

    test.each<[string, unknown]>([
      ['an empty chat id', ''],
      ['a chat id that is not a string', 42],
      ['a chat id longer than 191 characters', 'c'.repeat(192)],
    ])('refuses %s', async (_name, chatId) => {
      await expect(store.chats.saveChat(chatId as string, [user('u1', 'hi')])).rejects.toThrow(StoreValidationError);
      await expect(store.chats.loadChat(chatId as string)).rejects.toThrow(StoreValidationError);
    });
  });

  describe('a chat is a session', () => {
    test('SessionStore gets and lists it, exports and imports it; deleteTranscript deletes it for good', async () => {
      const id = unique();
      const chat = richChat();
      await store.chats.saveChat(id, chat.slice(0, 2));
      await store.chats.saveChat(id, chat);
      expect(await store.sessions.get(id)).toMatchObject({ id, tenantId: null });
      expect((await store.sessions.list({ limit: 500 })).sessions.map((session) => session.id)).toContain(id);

      const lines: string[] = [];
      for await (const line of store.sessions.exportJsonl(id)) lines.push(line);
      expect(lines.filter((line) => line.includes(`"type":"${CHAT_MESSAGE_EVENT}"`))).toHaveLength(chat.length);
      const copy = unique('copy');
      await store.sessions.importJsonl(lines.join(''), { sessionId: copy });
      expect(await store.chats.loadChat(copy)).toStrictEqual(chat);
      await store.chats.saveChat(copy, [...chat, user('u9', 'after the import')]);
      expect(versionsOf(await chatEvents(copy))).toHaveLength(chat.length + 1);

      expect(await store.transcripts.deleteTranscript(id)).toBe(1);
      expect(await store.chats.loadChat(id)).toEqual([]);
      await expect(store.chats.saveChat(id, chat)).rejects.toThrow(StoreNotFoundError);
      await store.chats.saveChat(id, []);
      expect(await store.sessions.get(id)).toBeNull();
    });

    test('scoped stores see only their tenant’s chats', async () => {
      const acme = store.tenants.forTenant('acme-chats');
      const globex = store.tenants.forTenant('globex-chats');
      const id = await acme.sessions.create({ title: 'support' });
      const chat = [user('u1', 'hello'), assistant('a1', 'hi, how can I help?')];
      await acme.chats.saveChat(id, chat);
      expect(await acme.chats.loadChat(id)).toEqual(chat);
      // Unscoped, every tenant's chat.
      expect(await store.chats.loadChat(id)).toEqual(chat);

      const before = await store.sessions.load(id);
      await expect(globex.chats.loadChat(id)).rejects.toThrow(StoreNotFoundError);
      await expect(globex.chats.saveChat(id, [user('x', 'intruder')])).rejects.toThrow(StoreNotFoundError);
      await expect(globex.chats.saveChat(id, [])).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.load(id)).toEqual(before);
      expect((await globex.sessions.list()).sessions.map((session) => session.id)).not.toContain(id);

      // Scoped, a save creates no session: sessions.create does.
      const missing = unique();
      await expect(acme.chats.saveChat(missing, chat)).rejects.toThrow(StoreNotFoundError);
      await expect(acme.chats.loadChat(missing)).rejects.toThrow(StoreNotFoundError);
      expect(await store.sessions.get(missing)).toBeNull();
      // Nor does an unscoped one reach into a tenant: it is that tenant's session still.
      await store.chats.saveChat(id, [...chat, user('u2', 'thanks')]);
      expect(await acme.chats.loadChat(id)).toHaveLength(3);
      expect((await store.sessions.get(id))?.tenantId).toBe('acme-chats');
    });
  });

  describe("the SDK's own recipe", () => {
    // Jest runs this file in a VM context whose structuredClone is Node's: its
    // copies (the SDK clones the message it continues) are objects of another
    // realm, with another Object.prototype, which the store's plain-JSON check
    // refuses. An app has one realm; here the clone makes this context's objects.
    const nodeClone = globalThis.structuredClone;
    beforeAll(() => {
      globalThis.structuredClone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    });
    afterAll(() => {
      globalThis.structuredClone = nodeClone;
    });

    const usage = {
      inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 2, text: 2, reasoning: undefined },
    };
    /** A model that streams a reasoning part and `words` as one text part. */
    const model = (...words: string[]) =>
      new MockLanguageModelV3({
        doStream: async () => ({
          stream: simulateReadableStream({
            chunks: [
              { type: 'stream-start' as const, warnings: [] },
              { type: 'reasoning-start' as const, id: 'r' },
              { type: 'reasoning-delta' as const, id: 'r', delta: 'thinking' },
              { type: 'reasoning-end' as const, id: 'r' },
              { type: 'text-start' as const, id: 't' },
              ...words.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
              { type: 'text-end' as const, id: 't' },
              { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: 'stop' }, usage },
            ],
          }),
        }),
      });

    /** One POST /chat: streamText, toUIMessageStreamResponse with onFinish saving the chat, the body read to its end. */
    const turn = async (chats: ChatStore, id: string, originalMessages: UIMessage[], words: string[]) => {
      let finished: UIMessage[] | undefined;
      const result = streamText({ model: model(...words), messages: await convertToModelMessages(originalMessages) });
      const response = result.toUIMessageStreamResponse({
        originalMessages,
        generateMessageId: () => unique('reply'),
        messageMetadata: ({ part }) => (part.type === 'finish' ? { finishReason: part.finishReason } : undefined),
        onFinish: async ({ messages }) => {
          finished = messages;
          await chats.saveChat(id, messages);
        },
      });
      const body = await response.text();
      expect(body).toContain('data: [DONE]');
      return finished!;
    };

    test('streamText → toUIMessageStreamResponse → onFinish saves → loadChat equals what onFinish received, turn after turn', async () => {
      const id = unique();
      const first = await turn(store.chats, id, [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }], ['Hi ', 'there.']);
      expect(first.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(first[1].parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Hi there.' }));
      expect(await store.chats.loadChat(id)).toEqual(first);

      // The next request: the stored chat and the new user message.
      const previous = await store.chats.loadChat<UIMessage>(id);
      const second = await turn(
        store.chats,
        id,
        await validateUIMessages({ messages: [...previous, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'More?' }] }] }),
        ['Sure.'],
      );
      expect(await store.chats.loadChat(id)).toEqual(second);
      expect(versionsOf(await chatEvents(id)).map((message) => message.id)).toEqual(['u1', first[1].id, 'u2', second[3].id]);

      // A continuation: the last message is the assistant's, and the reply extends it under its id.
      const third = await turn(store.chats, id, await store.chats.loadChat<UIMessage>(id), ['And more.']);
      expect(third).toHaveLength(4);
      expect(third[3].id).toBe(second[3].id);
      expect(third[3].parts.length).toBeGreaterThan(second[3].parts.length);
      expect(await store.chats.loadChat(id)).toEqual(third);
      const versions = versionsOf(await chatEvents(id));
      expect(versions.map((message) => message.id)).toEqual(['u1', first[1].id, 'u2', second[3].id, second[3].id]);
      expect(versions[3]).toEqual(second[3]);
      expect(await validateUIMessages({ messages: await store.chats.loadChat(id) })).toHaveLength(4);
    });
  });
});
