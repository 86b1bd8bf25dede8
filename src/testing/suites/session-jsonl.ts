// SessionStore.exportJsonl / importJsonl on every backend: the format, round trips
// between databases and ids, importing into empty and emptied sessions, cut and bad input.
import type { HistoryMessage, MessageInput } from '../../index.js';
import { StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import { footprintOf } from '../footprint.js';
import '../kit-binding.js';
import type { KitStore, Suite } from '../kit.js';

/**
 * SessionStore's exportJsonl and importJsonl: the format, round trips between databases and ids, imports into
 * empty and emptied sessions, cut and bad input.
 */
export const sessionJsonl: Suite = ({ store, opener: backend, describe, test, expect }) => {
  let n = 0;
  const sid = () => `jsonl-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });

  /** A fresh app on a database of its own, closed after `use`. */
  async function withFreshApp<T>(use: (app: KitStore) => Promise<T>): Promise<T> {
    const app = await backend.open();
    try {
      return await use(app);
    } finally {
      await app.close();
    }
  }

  async function exportLines(app: KitStore, id: string): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of app.sessions.exportJsonl(id)) lines.push(line);
    return lines;
  }

  async function* chunksOf(...chunks: (string | Uint8Array)[]): AsyncIterable<string | Uint8Array> {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve));
      yield chunk;
    }
  }

  /** Everything an import writes, as the stores read it back. */
  async function stateOf(app: KitStore, id: string) {
    const meta = await app.sessions.get(id);
    if (!meta) throw new Error(`session ${id} does not exist`);
    const { tenantId, title, metadata, parentId, createdAt } = meta;
    return {
      meta: { tenantId, title, metadata, parentId, createdAt },
      entries: await app.sessions.load(id),
      history: await app.messages.getHistory(id),
      count: await app.messages.count(id),
      transcript: await app.messages.getTranscript(id),
      repairs: await app.messages.getRepairs(id),
      subsessions: await app.transcripts.getSubsessions(id),
    };
  }

  /** The session's header, the size of its log, its boundaries and children, or null and nothing: to prove that a failed import wrote nothing. */
  async function rawOf(app: KitStore, id: string) {
    const { messages: entries, boundaries } = await footprintOf(app, [id]);
    return {
      thread: await app.sessions.get(id),
      entries,
      boundaries,
      children: (await app.transcripts.getSubsessions(id)).length,
    };
  }

  const SUMMARY: MessageInput = { role: 'system', content: 'Summary: the user asked for the weather in Zürich; it is -3.5 °C.' };
  const KEPT: MessageInput = { role: 'user', content: 'Weather in Zürich?', id: 'u-1', metadata: { locale: 'de-CH', client: { app: 'web', v: 2 } } };
  const CALL_2: MessageInput = {
    role: 'assistant',
    id: 'a-2',
    content: [{ type: 'tool-call', toolCallId: 'call-2', toolName: 'weather', input: { city: 'Zürich', day: 'tomorrow' } }],
  };
  const REPAIR: MessageInput = {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call-2', toolName: 'weather', output: { type: 'error-text', value: 'interrupted' } }],
    metadata: { synthetic: true },
  };
  const LAST_TEXT = 'thanks, see you 🙏';

  /**
   * A session with every kind of log entry. Its log, by seq:
   *  1 message (system)            2 event run-started            3 message u-1 (id, metadata)
   *  4 message (text + tool-call)  5 message (tool-result)        6 message (assistant text)
   *  7 compaction (source 4, retained 1, cut at 5)                8 event run-finished (no data)
   *  9 message (user)             10 message a-2 (orphaned tool-call)
   * 11 repair (source 5, cut at 10)                               12 message (user, emoji)
   * then, with `subsessions`, two children registered in order a, b.
   */
  async function buildSession(app: KitStore, options: { subsessions: boolean }): Promise<string> {
    const id = await app.sessions.create({
      id: sid(),
      tenantId: 'tenant-1',
      title: 'Trip planning ✈️',
      metadata: { channel: 'web', tags: ['a', 'b'], score: 0.5 },
    });
    await app.sessions.append(id, { role: 'system', content: 'You are a helpful travel agent.' });
    await app.sessions.append(id, { type: 'run-started', data: { runId: 'r1', model: 'm-1', params: [1, null, true] } });
    await app.messages.appendMany(id, [
      KEPT,
      {
        role: 'assistant',
        id: 'a-1',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: { city: 'Zürich' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'weather', output: { type: 'json', value: { temp: -3.5 } } }] },
      { role: 'assistant', content: 'It is -3.5 °C 🥶.', createdAt: '2026-03-04T05:06:07.089Z' },
    ]);
    // The summarizer read system, u-1, a-1, tool: 4 messages; it keeps u-1 verbatim.
    await app.messages.appendCompaction(id, [SUMMARY, KEPT], 4, 1);
    await app.sessions.append(id, { type: 'run-finished' });
    await app.messages.appendMany(id, [user('And tomorrow?'), CALL_2]);
    // A crash orphaned call-2: the repair balances the whole effective history (5 messages).
    await app.messages.appendRepair(id, REPAIR, [SUMMARY, user('And tomorrow?'), CALL_2, REPAIR], 5);
    await app.messages.append(id, user(LAST_TEXT));
    if (options.subsessions) {
      await app.transcripts.addSubsession(id, `${id}-child-a`);
      await app.transcripts.addSubsession(id, `${id}-child-b`);
    }
    return id;
  }

  const LOG_TYPES = ['message', 'event', 'message', 'message', 'message', 'message', 'compaction', 'event', 'message', 'message', 'repair', 'message'];

  describe('export format', () => {
    test('the header, then the log in seq order, then the subsessions; one JSON object per line, each ending in a newline', async () => {
      const id = await buildSession(store, { subsessions: true });
      const lines = await exportLines(store, id);
      const meta = (await store.sessions.get(id))!;
      const entries = await store.sessions.load(id);
      const [repair] = await store.messages.getRepairs(id);

      expect(lines).toHaveLength(1 + 12 + 2);
      for (const line of lines) {
        expect(line.endsWith('\n')).toBe(true);
        expect(line.indexOf('\n')).toBe(line.length - 1);
      }
      const values = lines.map((line) => JSON.parse(line) as Record<string, unknown>);

      expect(Object.keys(values[0]).sort()).toEqual(['createdAt', 'id', 'metadata', 'tenantId', 'title', 'type', 'version']);
      expect(values[0]).toEqual({
        type: 'session',
        version: 1,
        id,
        tenantId: 'tenant-1',
        title: 'Trip planning ✈️',
        metadata: { channel: 'web', tags: ['a', 'b'], score: 0.5 },
        createdAt: meta.createdAt.toISOString(),
      });

      const log = values.slice(1, 13);
      expect(log.map((v) => v.type)).toEqual(LOG_TYPES);
      expect(log.map((v) => v.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      // Messages and events carry exactly what load() returns, dates as ISO strings.
      const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
      for (const entry of entries) {
        const line = log.find((v) => v.seq === entry.seq)!;
        if ('role' in entry) {
          const { seq, ...message } = entry;
          expect(line).toEqual({ type: 'message', seq, message: json(message) });
        } else {
          expect(line).toEqual({
            type: 'event',
            seq: entry.seq,
            event: { type: entry.type, data: json(entry.data) },
            createdAt: entry.createdAt.toISOString(),
          });
        }
      }
      expect(log[2]).toMatchObject({ message: { role: 'user', id: 'u-1', metadata: KEPT.metadata } });
      expect(log[1]).toMatchObject({ event: { type: 'run-started', data: { runId: 'r1', model: 'm-1', params: [1, null, true] } } });
      expect(log[7]).toMatchObject({ event: { type: 'run-finished', data: null } });
      expect(log[5]).toMatchObject({ message: { createdAt: '2026-03-04T05:06:07.089Z' } });

      const history = await store.messages.getHistory(id);
      expect(log[6]).toEqual({
        type: 'compaction',
        seq: 7,
        cutSeq: 5,
        messages: [
          { role: 'system', content: SUMMARY.content, createdAt: expect.any(String) },
          { role: 'user', content: KEPT.content, id: 'u-1', metadata: KEPT.metadata, createdAt: expect.any(String) },
        ],
        sourceMessageCount: 4,
        retainedMessageCount: 1,
        createdAt: expect.any(String),
      });
      expect(log[10]).toEqual({
        type: 'repair',
        seq: 11,
        cutSeq: 10,
        messages: json(history.slice(0, 4).map(({ seq: _seq, ...message }) => message)),
        sourceMessageCount: 5,
        repairMessage: json(repair.repairMessage),
        createdAt: expect.any(String),
      });
      expect(log[10].repairMessage).toMatchObject({ role: 'tool', content: REPAIR.content, metadata: { synthetic: true } });

      expect(values.slice(13)).toEqual([
        { type: 'subsession', childId: `${id}-child-a` },
        { type: 'subsession', childId: `${id}-child-b` },
      ]);
    });

    test('the effective history the fixture builds is the one the comments describe', async () => {
      const id = await buildSession(store, { subsessions: false });
      const history = await store.messages.getHistory(id);
      expect(history.map((m) => m.seq)).toEqual([null, null, null, null, 12]);
      expect(history.map((m) => m.content)).toEqual([SUMMARY.content, 'And tomorrow?', CALL_2.content, REPAIR.content, LAST_TEXT]);
    });

    test('exportJsonl of an unknown or deleted session rejects with StoreNotFoundError', async () => {
      await expect(exportLines(store, 'no-such-session')).rejects.toThrow(StoreNotFoundError);
      const id = await store.sessions.create({ id: sid() });
      await store.transcripts.deleteTranscript(id);
      await expect(exportLines(store, id)).rejects.toThrow(StoreNotFoundError);
    });
  });

  describe('round trip', () => {
    test('into a fresh database under the same id: every read agrees and the export is line for line the same', async () => {
      const id = await buildSession(store, { subsessions: true });
      const original = await exportLines(store, id);
      const expected = await stateOf(store, id);

      await withFreshApp(async (fresh) => {
        const result = await fresh.sessions.importJsonl(original.join(''));
        expect(result).toEqual({ sessionId: id, entries: 12, warnings: [] });
        expect(await stateOf(fresh, id)).toEqual(expected);
        expect(await fresh.transcripts.getSubsessions(id)).toEqual([`${id}-child-a`, `${id}-child-b`]);
        for (const child of [`${id}-child-a`, `${id}-child-b`]) {
          expect(await fresh.sessions.get(child)).toMatchObject({ id: child, parentId: id });
          expect(await fresh.sessions.load(child)).toEqual([]);
        }
        expect(await exportLines(fresh, id)).toEqual(original);

        // The imported session goes on like the original: its next seq follows the imported ones.
        const next = await fresh.messages.append(id, user('later'));
        expect(next.seq).toBe(13);
        expect((await fresh.messages.getHistory(id)).map((m) => m.content)).toEqual([...expected.history.map((m) => m.content), 'later']);
      });
    });

    test('into the same database under a new id (options.sessionId)', async () => {
      const id = await buildSession(store, { subsessions: false });
      const original = await exportLines(store, id);
      const copy = sid();

      expect(await store.sessions.importJsonl(original.join(''), { sessionId: copy })).toEqual({ sessionId: copy, entries: 12, warnings: [] });

      expect(await stateOf(store, copy)).toEqual(await stateOf(store, id));
      const exported = await exportLines(store, copy);
      expect(exported.slice(1)).toEqual(original.slice(1));
      expect(JSON.parse(exported[0])).toEqual({ ...JSON.parse(original[0]), id: copy });
      // The original is untouched.
      expect(await exportLines(store, id)).toEqual(original);
    });

    test('into the same database under a new id, with subsessions that already have a parent: StoreConflictError, nothing imported', async () => {
      const id = await buildSession(store, { subsessions: true });
      const original = await exportLines(store, id);
      const copy = sid();

      await expect(store.sessions.importJsonl(original.join(''), { sessionId: copy })).rejects.toThrow(StoreConflictError);

      expect(await rawOf(store, copy)).toEqual({ thread: null, entries: 0, boundaries: 0, children: 0 });
      expect(await store.sessions.get(copy)).toBeNull();
      expect(await store.transcripts.getSubsessions(id)).toEqual([`${id}-child-a`, `${id}-child-b`]);
      expect(await store.sessions.get(`${id}-child-a`)).toMatchObject({ parentId: id });
    });

    test('an input given as Buffer chunks split inside multi-byte characters imports the same', async () => {
      const id = await buildSession(store, { subsessions: false });
      const original = await exportLines(store, id);
      const bytes = Buffer.from(original.join(''));
      // Split inside the title's ✈️ and inside the last message's 🙏, then the rest a byte at a time.
      const plane = bytes.indexOf(Buffer.from('✈'));
      const hands = bytes.indexOf(Buffer.from('🙏'));
      expect(plane).toBeGreaterThan(0);
      expect(hands).toBeGreaterThan(plane);
      const chunks = [bytes.subarray(0, plane + 1), bytes.subarray(plane + 1, hands + 2), bytes.subarray(hands + 2, hands + 3)];
      for (let i = hands + 3; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));

      const copy = sid();
      expect(await store.sessions.importJsonl(chunksOf(...chunks), { sessionId: copy })).toEqual({ sessionId: copy, entries: 12, warnings: [] });
      const imported = await stateOf(store, copy);
      expect(imported).toEqual(await stateOf(store, id));
      expect(imported.meta.title).toBe('Trip planning ✈️');
      expect(imported.history.at(-1)?.content).toBe(LAST_TEXT);
    });

    test('an input given as string chunks imports the same', async () => {
      const id = await buildSession(store, { subsessions: false });
      const text = (await exportLines(store, id)).join('');
      const copy = sid();
      await store.sessions.importJsonl(chunksOf(text.slice(0, 100), text.slice(100, 101), text.slice(101)), { sessionId: copy });
      expect(await stateOf(store, copy)).toEqual(await stateOf(store, id));
    });
  });

  describe("a framework binding's keyed events", () => {
    /** A session with two keyed events of a binding and one without a key, written through the integration contract. */
    async function keyedSession(): Promise<string> {
      const id = sid();
      await store.integration.write(({ sessions }) =>
        sessions.append(id, [
          { kind: 'conformance-kit.event', key: 'e:1', value: { n: 1 } },
          { kind: 'conformance-kit.event', value: { n: 2 } },
          { kind: 'conformance-kit.event', key: 'e:3', value: { n: 3 } },
        ]),
      );
      return id;
    }
    const keysOf = (id: string) =>
      store.integration
        .readSessions(({ sessions }) => sessions.events(id, { kinds: ['conformance-kit.event'] }))
        .then((events) => events.map((event) => event.key));

    test('an export keeps each key, and an import gives it back: the binding finds its events by key again', async () => {
      const id = await keyedSession();
      const lines = await exportLines(store, id);
      expect(lines.filter((line) => line.includes('"key":"e:')).length).toBe(2);
      const copy = sid();
      await store.sessions.importJsonl(lines.join(''), { sessionId: copy });
      expect(await keysOf(copy)).toEqual(['e:1', null, 'e:3']);
      // The key is held once: the binding's second event with it is refused.
      await expect(store.integration.write(({ sessions }) => sessions.append(copy, [{ kind: 'conformance-kit.event', key: 'e:1', value: 0 }]))).rejects.toThrow(
        StoreConflictError,
      );
    });

    test('a key held twice, one that is not a key, or one that is not the one its binding gives is refused, and nothing imported', async () => {
      const id = await keyedSession();
      const lines = await exportLines(store, id);
      const values = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const keyless = values.findIndex((value) => value.type === 'event' && value.key === undefined);
      const variants = [
        values.map((value, i) => (i === keyless ? { ...value, key: 'e:1' } : value)),
        values.map((value, i) => (i === keyless ? { ...value, key: 'trailing ' } : value)),
        values.map((value, i) => (i === keyless ? { ...value, key: 12 } : value)),
        values.map((value, i) => (i === keyless ? { ...value, event: { type: 'conformance-kit.keyed', data: { id: 'x' } }, key: 'forged' } : value)),
      ];
      for (const variant of variants) {
        const copy = sid();
        await expect(store.sessions.importJsonl(variant.map((value) => `${JSON.stringify(value)}\n`).join(''), { sessionId: copy })).rejects.toThrow(
          StoreValidationError,
        );
        expect(await store.sessions.get(copy)).toBeNull();
      }
    });
  });

  describe('a tree of sessions, one file each', () => {
    /** A parent with a log and a subsession that has a header and a log of its own; the files of both. */
    async function buildTree(app: KitStore) {
      const parent = await buildSession(app, { subsessions: false });
      const child = await app.sessions.create({
        id: `${parent}-sub`,
        parentId: parent,
        tenantId: 'tenant-1',
        title: 'Sub-agent: flights',
        metadata: { agent: 'flights', depth: 1 },
      });
      await app.messages.appendMany(child, [user('find flights'), { role: 'assistant', content: 'LX 318 at 07:40' }]);
      return { parent, child, files: { parent: (await exportLines(app, parent)).join(''), child: (await exportLines(app, child)).join('') } };
    }

    test.each([
      ['parent first', ['parent', 'child'] as const],
      ['child first', ['child', 'parent'] as const],
    ])('restored %s into an empty database: every header, log and edge comes back', async (_order, order) => {
      const { parent, child, files } = await buildTree(store);
      const expected = { parent: await stateOf(store, parent), child: await stateOf(store, child) };
      expect(expected.child.meta).toMatchObject({
        title: 'Sub-agent: flights',
        metadata: { agent: 'flights', depth: 1 },
        parentId: parent,
        tenantId: 'tenant-1',
      });

      await withFreshApp(async (fresh) => {
        for (const which of order) expect(await fresh.sessions.importJsonl(files[which])).toMatchObject({ warnings: [] });
        expect(await stateOf(fresh, parent)).toEqual(expected.parent);
        expect(await stateOf(fresh, child)).toEqual(expected.child);
        expect(await exportLines(fresh, child)).toEqual(files.child.split(/(?<=\n)/));
      });
    });

    test('restored through a tenant view, parent first: the child takes its header too', async () => {
      const { parent, child, files } = await buildTree(store);
      const expected = await stateOf(store, child);
      await withFreshApp(async (fresh) => {
        const tenant = fresh.tenants.forTenant('tenant-1');
        await tenant.sessions.importJsonl(files.parent);
        await tenant.sessions.importJsonl(files.child);
        expect(await stateOf(fresh, child)).toEqual(expected);
        expect(await tenant.sessions.get(parent)).toMatchObject({ title: 'Trip planning ✈️' });
      });
    });

    test('copied under a new id, a session with subsessions is a StoreConflictError that says to omit them; nothing is imported', async () => {
      const { parent, files } = await buildTree(store);
      const copy = sid();
      expect(files.parent).toContain(JSON.stringify({ type: 'subsession', childId: `${parent}-sub` }));
      const failure = store.sessions.importJsonl(files.parent, { sessionId: copy });
      await expect(failure).rejects.toThrow(StoreConflictError);
      await expect(failure).rejects.toThrow(/already a subsession of .*pass \{ subsessions: 'omit' \}/);
      expect(await rawOf(store, copy)).toEqual({ thread: null, entries: 0, boundaries: 0, children: 0 });
    });

    test("a whole tree is copied with subsessions: 'omit', each file under a new id, and addSubsession", async () => {
      const { parent, child } = await buildTree(store);
      const copies = new Map([parent, child].map((id) => [id, `${id}-copy`]));
      for (const [original, copy] of copies) {
        await store.sessions.importJsonl((await exportLines(store, original)).join(''), { sessionId: copy, subsessions: 'omit' });
      }
      await store.transcripts.addSubsession(copies.get(parent)!, copies.get(child)!);

      for (const [original, copy] of copies) {
        const [was, now] = [await stateOf(store, original), await stateOf(store, copy)];
        expect({ ...now, meta: { ...now.meta, parentId: undefined }, subsessions: undefined }).toEqual({
          ...was,
          meta: { ...was.meta, parentId: undefined },
          subsessions: undefined,
        });
      }
      expect(await store.transcripts.getSubsessions(copies.get(parent)!)).toEqual([copies.get(child)]);
      // The original tree is untouched.
      expect(await store.transcripts.getSubsessions(parent)).toEqual([child]);
      expect(await store.sessions.get(child)).toMatchObject({ parentId: parent });
    });

    test('import options are checked: an unknown option or subsessions value is a StoreValidationError', async () => {
      const { files } = await buildTree(store);
      await expect(store.sessions.importJsonl(files.child, { sessionId: sid(), subsessions: 'copy' as never })).rejects.toThrow(/'attach' or 'omit'/);
      await expect(store.sessions.importJsonl(files.child, { sessionId: sid(), omit: true } as never)).rejects.toThrow(/unknown property "omit"/);
    });
  });

  test('a string that starts with a byte-order mark imports like the same bytes', async () => {
    const id = await buildSession(store, { subsessions: false });
    const text = (await exportLines(store, id)).join('');
    const [fromString, fromBytes] = [sid(), sid()];
    expect(await store.sessions.importJsonl(`\uFEFF${text}`, { sessionId: fromString })).toEqual({ sessionId: fromString, entries: 12, warnings: [] });
    await store.sessions.importJsonl(chunksOf(Buffer.from(`\uFEFF${text}`)), { sessionId: fromBytes });
    expect(await stateOf(store, fromString)).toEqual(await stateOf(store, id));
    expect(await stateOf(store, fromBytes)).toEqual(await stateOf(store, id));
  });

  describe('sequence numbers at the limit of the INTEGER columns', () => {
    const lineOf = (seq: number) =>
      JSON.stringify({ type: 'session', version: 1, id: 'w', createdAt: '2026-01-01T00:00:00.000Z' }) +
      '\n' +
      JSON.stringify({ type: 'message', seq, message: { role: 'user', content: 'x', createdAt: '2026-01-01T00:00:00.000Z' } }) +
      '\n';

    test.each([2_147_483_648, 2_147_483_647, 1_000_000_001])(
      'a seq of %i is refused (it would leave the session no room to grow), and nothing is imported',
      async (seq) => {
        const id = sid();
        await expect(store.sessions.importJsonl(lineOf(seq), { sessionId: id })).rejects.toThrow(
          /line 2: seq must be an integer from (0 to 2147483647|1 to 1000000000)/,
        );
        expect(await rawOf(store, id)).toEqual({ thread: null, entries: 0, boundaries: 0, children: 0 });
      },
    );

    test('a seq of 1,000,000,000 is kept, and the session goes on after it', async () => {
      const id = sid();
      await store.sessions.importJsonl(lineOf(1_000_000_000), { sessionId: id });
      expect((await store.messages.append(id, { role: 'user', content: 'one more' })).seq).toBe(1_000_000_001);
      expect((await store.sessions.load(id)).map((entry) => entry.seq)).toEqual([1_000_000_000, 1_000_000_001]);
    });

    test("imports into a session emptied again and again cost its counter one seq an entry, never the file's gaps", async () => {
      const id = sid();
      await store.sessions.importJsonl(lineOf(1_000_000_000), { sessionId: id });
      // Once shifted past the seqs handed out, a second file at 1e9 and a third at 147,483,647 would have used up the column.
      for (const [seq, stored] of [
        [1_000_000_000, 1_000_000_001],
        [147_483_647, 1_000_000_002],
        [1_000_000_000, 1_000_000_003],
      ]) {
        await store.messages.clear(id);
        expect(await store.sessions.importJsonl(lineOf(seq), { sessionId: id })).toEqual({ sessionId: id, entries: 1, warnings: [] });
        expect((await store.sessions.load(id)).map((entry) => entry.seq)).toEqual([stored]);
      }
      expect((await store.messages.append(id, { role: 'user', content: 'one more' })).seq).toBe(1_000_000_004);
    });

    test("a file with gaps imported into an emptied session is numbered on from the session's last seq, its cuts moved with their messages", async () => {
      const id = sid();
      await store.messages.appendMany(id, ['a', 'b'].map(user));
      await store.messages.clear(id);
      const file =
        JSON.stringify({ type: 'session', version: 1, id: 'w', createdAt: '2026-01-01T00:00:00.000Z' }) +
        '\n' +
        [10, 20, 30]
          .map((seq) => JSON.stringify({ type: 'message', seq, message: { role: 'user', content: `m${seq}`, createdAt: '2026-01-01T00:00:00.000Z' } }) + '\n')
          .join('') +
        JSON.stringify({
          type: 'compaction',
          seq: 40,
          cutSeq: 20,
          messages: [{ role: 'system', content: 'summary', createdAt: '2026-01-01T00:00:00.000Z' }],
          sourceMessageCount: 2,
          retainedMessageCount: 0,
          createdAt: '2026-01-01T00:00:00.000Z',
        }) +
        '\n';

      await store.sessions.importJsonl(file, { sessionId: id });

      expect((await store.messages.getTranscript(id)).map((m) => [m.seq, m.content])).toEqual([
        [3, 'm10'],
        [4, 'm20'],
        [5, 'm30'],
      ]);
      expect((await store.messages.getHistory(id)).map((m) => m.content)).toEqual(['summary', 'm30']);
      const lines = (await exportLines(store, id)).map((line) => JSON.parse(line) as { type: string; seq?: number; cutSeq?: number });
      expect(lines.filter((l) => l.type === 'compaction').map((l) => [l.seq, l.cutSeq])).toEqual([[6, 4]]);
      expect((await store.messages.append(id, user('next'))).seq).toBe(7);
    });
  });

  describe('import into an existing session', () => {
    test("an empty one (just created) takes the import and the file's header; it keeps its tenant", async () => {
      const id = await buildSession(store, { subsessions: false });
      const text = (await exportLines(store, id)).join('');
      const target = await store.sessions.create({ id: sid(), tenantId: 'tenant-2', title: 'target', metadata: { mine: true } });

      expect(await store.sessions.importJsonl(text, { sessionId: target })).toEqual({ sessionId: target, entries: 12, warnings: [] });

      const expected = await stateOf(store, id);
      const imported = await stateOf(store, target);
      expect(imported).toEqual({ ...expected, meta: { ...expected.meta, tenantId: 'tenant-2' } });
    });

    test('a non-empty one is a StoreConflictError and changes nothing', async () => {
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      // A subsession line for a child nobody has: a failed import must not create it.
      const child = `${sid()}-child`;
      const text = [...lines, JSON.stringify({ type: 'subsession', childId: child }) + '\n'].join('');

      const target = await store.sessions.create({ id: sid() });
      await store.sessions.append(target, { type: 'note', data: 'only an event' });
      const before = { state: await stateOf(store, target), raw: await rawOf(store, target) };

      await expect(store.sessions.importJsonl(text, { sessionId: target })).rejects.toThrow(StoreConflictError);
      // Under the header's id, which is the non-empty original itself.
      await expect(store.sessions.importJsonl(text)).rejects.toThrow(StoreConflictError);

      expect({ state: await stateOf(store, target), raw: await rawOf(store, target) }).toEqual(before);
      expect(await store.sessions.get(child)).toBeNull();
      expect(await exportLines(store, id)).toEqual(lines);
      // No seq was handed out by the failed imports.
      expect((await store.messages.append(target, user('next'))).seq).toBe(2);
    });

    test('one emptied by clear: the import goes after the seqs it handed out, and the effective history is still right', async () => {
      const id = await buildSession(store, { subsessions: false });
      const text = (await exportLines(store, id)).join('');
      const expected = await stateOf(store, id);

      const target = await store.sessions.create({ id: sid() });
      await store.messages.appendMany(target, ['x', 'y', 'z'].map(user));
      await store.messages.appendCompaction(target, [user('old summary')], 2, 0);
      await store.messages.clear(target);
      const used = 4;

      expect(await store.sessions.importJsonl(text, { sessionId: target })).toEqual({ sessionId: target, entries: 12, warnings: [] });

      const imported = await stateOf(store, target);
      const shift = <T extends { seq: number }>(items: T[]) => items.map((item) => ({ ...item, seq: item.seq + used }));
      expect(imported.entries).toEqual(shift(expected.entries));
      expect(Math.min(...imported.entries.map((e) => e.seq))).toBeGreaterThan(used);
      expect(imported.transcript).toEqual(shift(expected.transcript));
      expect(imported.repairs).toEqual(shift(expected.repairs));
      expect(imported.history).toEqual(expected.history.map((m: HistoryMessage) => ({ ...m, seq: m.seq === null ? null : m.seq + used })));
      expect(imported.count).toBe(expected.count);
      // The boundaries' cuts moved with the messages: the exported lines show the same cut relative to the seqs.
      const lines = (await exportLines(store, target)).map((line) => JSON.parse(line) as { type: string; seq?: number; cutSeq?: number });
      expect(lines.filter((l) => l.type === 'compaction' || l.type === 'repair').map((l) => [l.seq, l.cutSeq])).toEqual([
        [7 + used, 5 + used],
        [11 + used, 10 + used],
      ]);
      expect((await store.messages.append(target, user('next'))).seq).toBe(12 + used + 1);
    });
  });

  describe('a crash-truncated last line', () => {
    test('cut in the middle, without its newline: skipped with a warning naming the line; everything before it imported', async () => {
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      const last = lines.at(-1)!;
      const text = lines.join('').slice(0, -Math.floor(last.length / 2));
      expect(text.endsWith('\n')).toBe(false);

      const copy = sid();
      const result = await store.sessions.importJsonl(text, { sessionId: copy });

      expect(result.sessionId).toBe(copy);
      expect(result.entries).toBe(11);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatch(new RegExp(`\\bline ${lines.length}\\b`));
      const expected = await stateOf(store, id);
      const imported = await stateOf(store, copy);
      expect(imported.entries).toEqual(expected.entries.slice(0, -1));
      expect(imported.repairs).toEqual(expected.repairs);
      expect(imported.history).toEqual(expected.history.slice(0, -1));
    });

    test('a complete last line without its newline is imported, not skipped', async () => {
      const id = await buildSession(store, { subsessions: false });
      const text = (await exportLines(store, id)).join('').slice(0, -1);

      const copy = sid();
      expect(await store.sessions.importJsonl(text, { sessionId: copy })).toEqual({ sessionId: copy, entries: 12, warnings: [] });
      expect(await stateOf(store, copy)).toEqual(await stateOf(store, id));
    });

    test('a last line cut inside a multi-byte character (bytes input) is skipped like any other cut line', async () => {
      // A crash cuts a file at a byte, not at a character: the tail of the emoji in the last line is missing.
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      const bytes = Buffer.from(lines.join(''));
      const cut = bytes.subarray(0, bytes.lastIndexOf(Buffer.from('🙏')) + 2);

      const copy = sid();
      const result = await store.sessions.importJsonl(chunksOf(cut), { sessionId: copy });

      expect(result.entries).toBe(11);
      expect(result.warnings).toHaveLength(1);
      expect(result.warnings[0]).toMatch(new RegExp(`\\bline ${lines.length}\\b`));
      expect((await stateOf(store, copy)).entries).toEqual((await stateOf(store, id)).entries.slice(0, -1));
    });
  });

  describe('bad input: a StoreValidationError naming the line, and nothing imported', () => {
    type Line = Record<string, unknown>;
    const variants: [string, number, (line: Line, previous: Line) => string][] = [
      ['a line that is not JSON', 5, () => '{"type":"message","seq":4,"message":{"role":"assistant",'],
      ['valid JSON of an unknown entry type', 8, (line) => JSON.stringify({ ...line, type: 'snapshot' })],
      ['a message with a bad role', 10, (line) => JSON.stringify({ ...line, message: { ...(line.message as Line), role: 'robot' } })],
      ['a seq that does not increase', 12, (line, previous) => JSON.stringify({ ...line, seq: previous.seq })],
      ['valid JSON that is not an object', 3, () => '[1, 2, 3]'],
    ];

    test.each(variants)('%s (line %i), into a new session and into an empty one', async (_name, lineNumber, corrupt) => {
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      const values = lines.map((line) => JSON.parse(line) as Line);
      const bad = [...lines];
      bad[lineNumber - 1] = corrupt(values[lineNumber - 1], values[lineNumber - 2]) + '\n';
      const text = bad.join('');

      const copy = sid();
      const error = await store.sessions.importJsonl(text, { sessionId: copy }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreValidationError);
      expect((error as Error).message).toMatch(new RegExp(`\\bline ${lineNumber}\\b`));
      expect(await rawOf(store, copy)).toEqual({ thread: null, entries: 0, boundaries: 0, children: 0 });

      const empty = await store.sessions.create({ id: sid() });
      const before = await rawOf(store, empty);
      await expect(store.sessions.importJsonl(text, { sessionId: empty })).rejects.toThrow(new RegExp(`\\bline ${lineNumber}\\b`));
      expect(await rawOf(store, empty)).toEqual(before);
      expect(await store.sessions.load(empty)).toEqual([]);

      // Also when the file's last line has no newline: only the last line can be a cut one.
      await expect(store.sessions.importJsonl(text.slice(0, -1), { sessionId: copy })).rejects.toThrow(StoreValidationError);
      expect(await rawOf(store, copy)).toEqual({ thread: null, entries: 0, boundaries: 0, children: 0 });
    });

    test('a missing header is a StoreValidationError on line 1', async () => {
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      const copy = sid();
      await expect(store.sessions.importJsonl(lines.slice(1).join(''), { sessionId: copy })).rejects.toThrow(/\bline 1\b/);
      await expect(store.sessions.importJsonl(lines.slice(1).join(''), { sessionId: copy })).rejects.toThrow(StoreValidationError);
      expect((await rawOf(store, copy)).thread).toBeNull();
    });

    test.each([
      ['an empty string', () => ''],
      ['only blank lines', () => '\n\n  \n'],
      ['an empty async iterable', () => chunksOf()],
      ['empty chunks', () => chunksOf(new Uint8Array(0), '')],
    ])('empty input (%s) is a StoreValidationError', async (_name, input) => {
      const copy = sid();
      await expect(store.sessions.importJsonl(input(), { sessionId: copy })).rejects.toThrow(StoreValidationError);
      expect((await rawOf(store, copy)).thread).toBeNull();
    });

    test('invalid UTF-8 bytes are a StoreValidationError', async () => {
      const id = await buildSession(store, { subsessions: false });
      const lines = await exportLines(store, id);
      const copy = sid();
      // Line 4 holds "Zürich": its ü (C3 BC) becomes Latin-1's lone FC, which a lenient decoder would turn into U+FFFD.
      const bytes = Buffer.from(lines.join(''));
      const at = bytes.indexOf(Buffer.from('Zürich'));
      expect(at).toBeGreaterThan(0);
      const bad = Buffer.concat([bytes.subarray(0, at + 1), Buffer.from([0xfc]), bytes.subarray(at + 3)]);
      const error = await store.sessions.importJsonl(chunksOf(bad.subarray(0, at + 2), bad.subarray(at + 2)), { sessionId: copy }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreValidationError);
      expect((await rawOf(store, copy)).thread).toBeNull();
    });
  });

  describe('boundaries the stores would refuse are refused on import too', () => {
    const header = '{"type":"session","version":1,"id":"b","tenantId":null,"title":null,"metadata":null,"createdAt":"2026-01-01T00:00:00.000Z"}\n';
    const message = '{"type":"message","seq":1,"message":{"role":"user","content":"a","createdAt":"2026-01-01T00:00:00.000Z"}}\n';
    test.each([
      [
        'a retained count above the source count',
        '{"type":"compaction","seq":2,"cutSeq":1,"messages":[],"sourceMessageCount":0,"retainedMessageCount":1,"createdAt":"2026-01-01T00:00:00.000Z"}\n',
      ],
      [
        'a cut at no message',
        '{"type":"compaction","seq":2,"cutSeq":5,"messages":[],"sourceMessageCount":1,"retainedMessageCount":0,"createdAt":"2026-01-01T00:00:00.000Z"}\n',
      ],
    ])('%s', async (_name, boundary) => {
      await expect(store.sessions.importJsonl(header + message + boundary)).rejects.toThrow(/line 3/);
      expect(await store.sessions.get('b')).toBeNull();
    });
  });
};
