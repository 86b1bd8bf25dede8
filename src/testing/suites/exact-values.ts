// Exact values on every backend: content, metadata and provider options come
// back as they were given (key order, NUL characters, numbers, unicode, and
// URL / bytes / Date as the same types, byte for byte) through every method
// that returns messages; read output is input again; exactly-once appends by
// message id; MessageStore.repairToolCalls.
import { runInNewContext } from 'node:vm';
import type { HistoryMessage, MessageInput, RepairRecord, StoredMessage } from '../../index.js';
import { balanceToolCalls, StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import { boundaryCount } from '../footprint.js';
import type { Suite } from '../kit.js';

/**
 * A value spelled out with everything the store must keep: each object's keys
 * in their order, the type of each object (its prototype's constructor), the
 * bytes of each byte array. `given`: the value as the caller gave it, so as
 * it must come back: a Buffer as a Uint8Array, a property whose value is
 * undefined absent.
 */
function spelled(value: unknown, given = false): unknown {
  if (value instanceof Uint8Array) return { [given && Buffer.isBuffer(value) ? 'Uint8Array' : typeName(value)]: [...value] };
  if (value instanceof ArrayBuffer) return { [typeName(value)]: [...new Uint8Array(value)] };
  if (value instanceof URL) return { [typeName(value)]: value.href };
  if (value instanceof Date) return { [typeName(value)]: value.toISOString() };
  if (Array.isArray(value)) return value.map((item) => spelled(item, given));
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => !given || item !== undefined);
    return { [typeName(value)]: entries.map(([key, item]) => [key, spelled(item, given)]) };
  }
  return value;
}

const typeName = (value: object): string => (Object.getPrototypeOf(value) as { constructor?: { name: string } } | null)?.constructor?.name ?? 'no prototype';

type MessageLike = { role: string; content: unknown; id?: string; metadata?: unknown; providerOptions?: unknown; createdAt?: Date | string };

/** What a message is, spelled out: role, content, id, metadata, provider options and time (in this order; the absent ones left out). */
function fields({ role, content, id, metadata, providerOptions, createdAt }: MessageLike, given = false): unknown {
  return spelled(
    {
      role,
      content,
      ...(id !== undefined && { id }),
      ...(metadata !== undefined && { metadata }),
      ...(providerOptions !== undefined && { providerOptions }),
      createdAt,
    },
    given,
  );
}

const givenFields = (messages: MessageLike[]) => messages.map((message) => fields(message, true));
const readFields = (messages: MessageLike[]) => messages.map((message) => fields(message));

const at = (ms: number) => new Date(Date.UTC(2026, 2, 4, 5, 6, 7, ms));

/** Every string oddity at once: NUL, emoji sequences, RTL, combining marks, astral characters, line and paragraph separators, U+FFFF. */
const TEXT = 'a\u0000b \u0000 Ünïcödé 日本語 עברית 👩‍👩‍👧‍👦 🚀 e\u0301 𝄞 \u2028\u2029 \uFFFF "quoted" \\ \n\t';
/* eslint-disable no-loss-of-precision -- a literal JavaScript rounds, stored as it rounds it */
const NUMBERS = [
  0,
  -1,
  1.5,
  -273.15,
  0.1 + 0.2,
  1e21,
  1e-7,
  5e-324,
  1.7976931348623157e308,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  123456789.98765432,
];
/* eslint-enable no-loss-of-precision */
// JS itself puts integer-like keys first, in numeric order ("2", "10"): the others keep the order they were written in.
const keyOrder = () => ({ b: 1, a: 2, '10': 3, '2': 4, z: { y: 'y', x: 'x' }, é: 5, A: 6, '-1': 7, '01': 8 });

/**
 * A conversation holding every kind of value the store keeps, built fresh on
 * each call (new objects, same values), each message with its own time.
 */
function conversation(): MessageInput[] {
  return [
    { role: 'system', content: `system ${TEXT}`, createdAt: at(1) },
    {
      role: 'user',
      id: 'user-1',
      createdAt: at(2),
      content: [
        { type: 'text', text: TEXT, providerOptions: { zeta: { b: 1, a: 2 }, alpha: { at: at(3) } } },
        { type: 'image', image: new URL('https://example.com/cat.png?size=large&é=1#top'), mediaType: 'image/png' },
        { type: 'image', image: Uint8Array.from([137, 80, 78, 71, 0, 255]) },
        { type: 'image', image: Uint8Array.from([0, 1, 2, 3]).buffer },
        // A view into a larger buffer: only its own three bytes.
        { type: 'image', image: new Uint8Array(Uint8Array.from([9, 9, 1, 2, 3, 9]).buffer, 2, 3), mediaType: 'image/webp' },
        { type: 'file', data: Buffer.from('%PDF-1.7\n\u0000\u00ff', 'latin1'), mediaType: 'application/pdf', filename: 'ünï.pdf' },
        { type: 'file', data: new URL('https://example.com/a%20b.pdf'), mediaType: 'application/pdf' },
      ],
      metadata: {
        order: keyOrder(),
        nul: 'a\u0000b',
        '\u0000': '\u0000\u0000',
        numbers: NUMBERS,
        values: {
          at: at(10),
          link: new URL('https://example.com/'),
          raw: Buffer.from('raw'),
          bytes: Uint8Array.from([255, 0]),
          buffer: Uint8Array.from([7]).buffer,
          list: [at(11), new URL('mailto:x@example.com')],
        },
        // Strings that look like the JSON form of a value stay strings.
        lookalikes: {
          date: at(12).toISOString(),
          url: 'https://example.com/cat.png',
          base64: 'AAEC',
          valueTypes: [[['content', 0], 'Date']],
          nested: { type: 'Date', value: '2026-01-01T00:00:00.000Z' },
        },
        gone: undefined,
      },
      providerOptions: { zeta: { order: keyOrder() }, alpha: { bytes: Uint8Array.from([1, 2]), at: at(4), link: new URL('https://example.com/po') } },
    },
    {
      role: 'assistant',
      id: 'assistant-1',
      createdAt: at(5),
      content: [
        { type: 'reasoning', text: `thinking ${TEXT}` },
        { type: 'text', text: 'Let me check.' },
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'lookup',
          input: {
            b: 'x',
            a: {
              when: at(6),
              link: new URL('https://example.com/x'),
              bytes: Uint8Array.from([0, 0, 0]),
              file: Buffer.from([1, 2]),
              raw: new ArrayBuffer(2),
              nul: '\u0000',
              numbers: NUMBERS,
            },
            '1': 'one',
            list: [at(7), [new URL('https://example.com/y')]],
          },
        },
        { type: 'file', data: Uint8Array.from([255, 216, 255]), mediaType: 'image/jpeg' },
      ],
      metadata: { numbers: NUMBERS, keys: keyOrder() },
    },
    {
      role: 'tool',
      createdAt: at(8),
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-1',
          toolName: 'lookup',
          output: { type: 'json', value: { b: [1e21, -0.5], a: { '\u0000': 'nul key' }, text: TEXT } },
        },
      ],
    },
    {
      role: 'assistant',
      createdAt: at(9),
      content: `done ${TEXT}`,
      metadata: { empty: { bytes: new Uint8Array(0), buffer: new ArrayBuffer(0), text: '', list: [], object: {} } },
    },
  ];
}

/** A message's content parts, to look into. */
function partsOf(message: { content: unknown }): Record<string, unknown>[] {
  if (!Array.isArray(message.content)) throw new Error('content parts expected');
  return message.content as Record<string, unknown>[];
}

const user = (text: string, extra: Partial<MessageInput> = {}): MessageInput => ({ role: 'user', content: text, ...extra });
const seqs = (messages: { seq: number | null }[]) => messages.map((message) => message.seq);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/**
 * Content, metadata and provider options come back exactly as given (key order, NUL characters, numbers, URL,
 * bytes and Date as the same types) through every method that returns messages; what is read is valid input
 * again; appends are exactly once by message id; repairToolCalls.
 */
export const exactValues: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const thread = () => `exact-${++n}`;

  /** Everything a write could change, spelled out: to prove that a refused write changed nothing. */
  async function snapshot(id: string) {
    const { messages } = store;
    return spelled({
      transcript: await messages.getTranscript(id),
      history: await messages.getHistory(id),
      repairs: await messages.getRepairs(id),
      boundaries: await boundaryCount(store, id),
      session: await store.sessions.get(id),
    });
  }

  async function allPages<M>(read: (cursor: string | undefined) => Promise<{ messages: M[]; nextCursor: string | null }>): Promise<M[]> {
    const messages: M[] = [];
    let cursor: string | undefined;
    do {
      const page = await read(cursor);
      messages.push(...page.messages);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return messages;
  }

  const historyPages = (id: string) => allPages((cursor) => store.messages.getHistoryPage(id, { limit: 2, cursor }));
  const transcriptPages = (id: string) => allPages((cursor) => store.messages.getTranscriptPage(id, { limit: 2, cursor }));

  describe('values come back exactly as given', () => {
    test('the spelling sees what toEqual does not: key order, Buffer against Uint8Array, an undefined property', () => {
      expect(spelled({ a: 1, b: 2 })).not.toEqual(spelled({ b: 2, a: 1 }));
      expect(spelled(Buffer.from([1]))).not.toEqual(spelled(Uint8Array.from([1])));
      expect(spelled(Buffer.from([1]), true)).toEqual(spelled(Uint8Array.from([1])));
      expect(spelled(Uint8Array.from([1]).buffer)).not.toEqual(spelled(Uint8Array.from([1])));
      expect(spelled({ a: undefined }, true)).toEqual(spelled({}));
      expect(spelled({ a: undefined })).not.toEqual(spelled({}));
      expect(spelled(new URL('https://example.com/'))).not.toEqual(spelled('https://example.com/'));
    });

    test('getHistory, getTranscript and their pages read them back; append and appendMany return them as stored', async () => {
      const id = thread();
      const given = conversation();
      const first = await store.messages.append(id, given[0]);
      const second = await store.messages.append(id, given[1]);
      const rest = await store.messages.appendMany(id, given.slice(2));
      const returned = [first, second, ...rest];
      for (const read of [await store.messages.getHistory(id), await store.messages.getTranscript(id), await historyPages(id), await transcriptPages(id)]) {
        expect(seqs(read)).toEqual(range(1, 5));
        expect(readFields(read)).toEqual(givenFields(given));
      }
      // What a write returns is the message as a read gives it.
      expect(seqs(returned)).toEqual(range(1, 5));
      expect(readFields(returned)).toEqual(givenFields(given));
    });

    test('the types are the same: URL, Uint8Array (a Buffer too), ArrayBuffer, Date', async () => {
      const id = thread();
      await store.messages.appendMany(id, conversation());
      const [, userMessage, assistantMessage] = await store.messages.getHistory(id);
      const [, url, bytes, arrayBuffer, view, buffer] = partsOf(userMessage);
      expect(url.image).toBeInstanceOf(URL);
      expect(Object.getPrototypeOf(bytes.image)).toBe(Uint8Array.prototype);
      expect(Object.getPrototypeOf(arrayBuffer.image)).toBe(ArrayBuffer.prototype);
      expect(view.image).toEqual(Uint8Array.from([1, 2, 3]));
      expect((view.image as Uint8Array).byteLength).toBe(3);
      expect(Object.getPrototypeOf(buffer.data)).toBe(Uint8Array.prototype);
      expect(Buffer.isBuffer(buffer.data)).toBe(false);
      expect(Buffer.from(buffer.data as Uint8Array).toString('latin1')).toBe('%PDF-1.7\n\u0000\u00ff');
      const metadata = userMessage.metadata as { values: Record<string, unknown>; lookalikes: Record<string, unknown> };
      expect(metadata.values.at).toBeInstanceOf(Date);
      expect((metadata.values.at as Date).getTime()).toBe(at(10).getTime());
      expect(metadata.lookalikes.date).toBe(at(12).toISOString());
      expect(metadata.lookalikes.url).toBe('https://example.com/cat.png');
      const input = partsOf(assistantMessage)[2].input as { a: Record<string, unknown> };
      expect(input.a.when).toBeInstanceOf(Date);
      expect(Object.getPrototypeOf(input.a.file)).toBe(Uint8Array.prototype);
      expect(input.a.raw).toBeInstanceOf(ArrayBuffer);
      expect((input.a.raw as ArrayBuffer).byteLength).toBe(2);
      expect((userMessage.providerOptions as { alpha: { link: unknown } }).alpha.link).toBeInstanceOf(URL);
    });

    test("the values read are new objects: changing them changes neither the caller's nor the next read", async () => {
      const id = thread();
      const given = conversation();
      await store.messages.appendMany(id, given);
      const [, read] = await store.messages.getTranscript(id);
      const bytes = partsOf(read)[2].image as Uint8Array;
      bytes[0] = 0;
      expect(partsOf(given[1])[2].image).toEqual(Uint8Array.from([137, 80, 78, 71, 0, 255]));
      expect(readFields(await store.messages.getTranscript(id))).toEqual(givenFields(given));
    });

    test('the history reads back what replaceHistory stored, and it returns them as stored', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('old'), user('older')]);
      const given = conversation();
      const replaced = await store.messages.replaceHistory(id, given);
      expect(readFields(await store.messages.getHistory(id))).toEqual(givenFields(given));
      expect(readFields(await transcriptPages(id))).toEqual(givenFields(given));
      expect(readFields(replaced)).toEqual(givenFields(given));
    });

    test("appendCompaction's summary messages read back exactly, with seq null, on every page", async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a'), user('b'), user('c')]);
      const summary = conversation();
      await store.messages.appendCompaction(id, summary, 2, 1);
      const history = await store.messages.getHistory(id);
      expect(seqs(history)).toEqual([null, null, null, null, null, 3]);
      expect(readFields(history.slice(0, 5))).toEqual(givenFields(summary));
      expect(history[5]).toMatchObject({ role: 'user', content: 'c' });
      const pages = await historyPages(id);
      expect(seqs(pages)).toEqual(seqs(history));
      expect(readFields(pages)).toEqual(readFields(history));
    });

    test("appendRepair's balanced messages and its evidence (getRepairs) read back exactly", async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a'), user('b')]);
      const [evidence, ...balanced] = conversation();
      await store.messages.appendRepair(id, evidence, balanced, 1);
      const history = await store.messages.getHistory(id);
      expect(readFields(history.slice(0, 4))).toEqual(givenFields(balanced));
      expect(seqs(history)).toEqual([null, null, null, null, 2]);
      const [repair] = await store.messages.getRepairs(id);
      expect(fields(repair.repairMessage)).toEqual(fields(evidence, true));
      // The evidence of a repair with values in it.
      await store.messages.appendRepair(id, balanced[0], [user('x')], 1);
      const repairs = await store.messages.getRepairs(id);
      expect(repairs).toHaveLength(2);
      expect(fields(repairs[1].repairMessage)).toEqual(fields(balanced[0], true));
    });

    test('TranscriptStore: getTranscript reads back what saveTranscript, appendMessage and appendMessages stored, and they return them as stored', async () => {
      const id = thread();
      const given = conversation();
      const saved = await store.transcripts.saveTranscript(id, { messages: given, metadata: { order: keyOrder(), nul: '\u0000', numbers: NUMBERS } });
      const read = await store.transcripts.getTranscript(id);
      expect(readFields(read!.messages)).toEqual(givenFields(given));
      expect(spelled(read!.metadata)).toEqual(spelled({ order: keyOrder(), nul: '\u0000', numbers: NUMBERS }));
      const other = thread();
      const [head, ...tail] = conversation();
      const appended = [await store.transcripts.appendMessage(other, head), ...(await store.transcripts.appendMessages(other, tail))];
      expect(readFields((await store.transcripts.getTranscript(other))!.messages)).toEqual(givenFields(given));
      expect(readFields(saved.messages)).toEqual(givenFields(given));
      expect(readFields(appended)).toEqual(givenFields(given));
    });

    test('SessionStore: load reads back what append stored, and append returns them as stored', async () => {
      const id = await store.sessions.create({ id: thread(), metadata: { order: keyOrder(), nul: 'a\u0000b' } });
      const given = conversation();
      const appended: MessageLike[] = [];
      for (const message of given) appended.push((await store.sessions.append(id, message)) as StoredMessage);
      expect(readFields((await store.sessions.load(id)) as StoredMessage[])).toEqual(givenFields(given));
      expect(spelled((await store.sessions.get(id))!.metadata)).toEqual(spelled({ order: keyOrder(), nul: 'a\u0000b' }));
      expect(readFields(appended)).toEqual(givenFields(given));
    });

    test("objects, arrays and Dates of another realm (a vm context; under jest, what structuredClone gives, as in ai 6's response.messages) are kept like any others", async () => {
      const id = thread();
      const foreign = runInNewContext(`({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { b: [1, { a: null }], a: 'x' } }],
        metadata: { at: new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 13)), list: [[], {}] },
      })`) as MessageInput;
      expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
      const stored = await store.messages.append(id, foreign);
      expect(stored.seq).toBe(1);
      const [read] = await store.messages.getTranscript(id);
      expect(spelled([read.content, read.metadata])).toEqual(
        spelled([[{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { b: [1, { a: null }], a: 'x' } }], { at: at(13), list: [[], {}] }]),
      );
    });

    test("a JSONL export imports as it was: messages, a compaction's summary and a repair's balanced messages and evidence", async () => {
      const id = thread();
      const given = conversation();
      await store.messages.appendMany(id, given);
      // A boundary's messages take ids of their own: the messages after its cut keep theirs.
      const renamed = (messages: MessageInput[], as: string) => messages.map((message) => ({ ...message, ...(message.id && { id: `${message.id} ${as}` }) }));
      await store.messages.appendCompaction(id, renamed(conversation().slice(1, 3), 'summarized'), 2, 1);
      const [evidence, ...balanced] = conversation();
      await store.messages.appendRepair(id, evidence, renamed(balanced, 'balanced'), 2);
      const lines: string[] = [];
      for await (const line of store.sessions.exportJsonl(id)) lines.push(line);
      const copy = thread();
      await store.sessions.importJsonl(lines.join(''), { sessionId: copy });
      const withSeqs = (messages: (StoredMessage | HistoryMessage)[]) => messages.map((message) => [message.seq, fields(message)]);
      expect(withSeqs(await store.messages.getTranscript(copy))).toEqual(withSeqs(await store.messages.getTranscript(id)));
      expect(withSeqs(await store.messages.getHistory(copy))).toEqual(withSeqs(await store.messages.getHistory(id)));
      expect((await store.messages.getRepairs(copy)).map((repair) => fields(repair.repairMessage))).toEqual([fields(evidence, true)]);
      expect(readFields(await store.messages.getTranscript(copy))).toEqual(givenFields(given));
    });
  });

  describe('read output is input', () => {
    /** A history with messages of every kind, read back: summary messages (seq null) and appended ones. */
    async function readHistory(): Promise<HistoryMessage[]> {
      const id = thread();
      await store.messages.appendMany(id, [user('dropped'), ...conversation()]);
      await store.messages.appendCompaction(id, [conversation()[0]], 2, 0);
      const history = await store.messages.getHistory(id);
      expect(seqs(history)).toEqual([null, 3, 4, 5, 6]);
      return history;
    }

    test('append and appendMany take it; its seq is ignored', async () => {
      const history = await readHistory();
      const one = thread();
      await store.messages.appendMany(one, [user('x'), user('y')]);
      const appended: StoredMessage[] = [];
      for (const message of history) appended.push(await store.messages.append(one, message));
      expect(seqs(appended)).toEqual(range(3, 5));
      expect(readFields((await store.messages.getTranscript(one)).slice(2))).toEqual(readFields(history));
      expect(readFields(appended)).toEqual(readFields(history));
      const many = thread();
      await store.messages.append(many, user('x'));
      const batch = await store.messages.appendMany(many, history);
      expect(seqs(batch)).toEqual(range(2, 5));
      expect(readFields((await store.messages.getTranscript(many)).slice(1))).toEqual(readFields(history));
    });

    test('replaceHistory, appendCompaction and appendRepair take it', async () => {
      const history = await readHistory();
      const replaced = thread();
      await store.messages.appendMany(replaced, [user('a'), user('b'), user('c')]);
      expect(seqs(await store.messages.replaceHistory(replaced, history))).toEqual(range(4, 5));
      expect(readFields(await store.messages.getHistory(replaced))).toEqual(readFields(history));

      const compacted = thread();
      await store.messages.appendMany(compacted, [user('a'), user('b')]);
      await store.messages.appendCompaction(compacted, history, 1, 0);
      const compactedHistory = await store.messages.getHistory(compacted);
      expect(readFields(compactedHistory.slice(0, -1))).toEqual(readFields(history));
      expect(compactedHistory.at(-1)).toMatchObject({ seq: 2, content: 'b' });

      const repaired = thread();
      await store.messages.appendMany(repaired, [user('a'), user('b')]);
      await store.messages.appendRepair(repaired, history[2], history, 2);
      expect(readFields(await store.messages.getHistory(repaired))).toEqual(readFields(history));
      expect(fields((await store.messages.getRepairs(repaired))[0].repairMessage)).toEqual(fields(history[2]));
    });

    test('a TranscriptStore transcript read back saves again as it was', async () => {
      const id = thread();
      const saved = await store.transcripts.saveTranscript(id, { messages: conversation() });
      const copy = thread();
      const again = await store.transcripts.saveTranscript(copy, { messages: saved.messages });
      expect(readFields(again.messages)).toEqual(readFields(saved.messages));
      expect(seqs(again.messages)).toEqual(range(1, 5));
    });
  });

  describe('values that are not JSON nor kept are refused, and nothing is written', () => {
    class Point {
      constructor(readonly x = 1) {}
    }
    class Bytes extends Uint8Array {}
    const cycle = (): unknown => {
      const value: Record<string, unknown> = { a: 1 };
      value.self = { back: value };
      return value;
    };
    const BAD: [string, () => unknown][] = [
      ['a function', () => () => 1],
      ['a Map', () => new Map([['a', 1]])],
      ['a Set', () => new Set([1])],
      ['a class instance', () => new Point()],
      ['an object with a prototype of its own', () => Object.create({ inherited: 1 }) as unknown],
      ['an Int16Array', () => Int16Array.from([1, -1])],
      ['a Float64Array', () => Float64Array.from([1.5])],
      ['a Uint8Array subclass', () => Bytes.from([1])],
      ['a DataView', () => new DataView(new ArrayBuffer(2))],
      ['NaN', () => NaN],
      ['Infinity', () => -Infinity],
      ['a bigint', () => BigInt(1)],
      ['a symbol', () => Symbol('s')],
      ['undefined in an array', () => [1, undefined]],
      ['an invalid Date', () => new Date(Number.NaN)],
      ['a cycle', cycle],
    ];
    const PLACES: [string, (bad: unknown) => MessageInput][] = [
      ['a text part', (bad) => ({ role: 'user', content: [{ type: 'text', text: 'x', extra: bad }] })],
      ['an image', (bad) => ({ role: 'user', content: [{ type: 'image', image: bad }] })],
      ['a tool call input', (bad) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: { deep: [{ bad }] } }] })],
      ['metadata', (bad) => ({ role: 'user', content: 'x', metadata: { bad } })],
      ['providerOptions', (bad) => ({ role: 'user', content: 'x', providerOptions: { p: { bad } } })],
      ["a part's providerOptions", (bad) => ({ role: 'user', content: [{ type: 'text', text: 'x', providerOptions: { p: { bad } } }] })],
    ];

    test.each(BAD)('%s, anywhere in a message, through every write', async (_name, bad) => {
      const id = thread();
      await store.sessions.create({ id });
      await store.messages.appendMany(id, [user('a'), user('b')]);
      const before = await snapshot(id);
      const fresh = thread();
      const ok = user('fine', { id: 'fine' });
      for (const [place, messageWith] of PLACES) {
        const writes: [string, () => Promise<unknown>][] = [
          ['append', () => store.messages.append(id, messageWith(bad()))],
          ['append to a new thread', () => store.messages.append(fresh, messageWith(bad()))],
          ['appendMany', () => store.messages.appendMany(id, [ok, messageWith(bad())])],
          ['replaceHistory', () => store.messages.replaceHistory(id, [ok, messageWith(bad())])],
          ['appendCompaction', () => store.messages.appendCompaction(id, [ok, messageWith(bad())], 1, 0)],
          ['appendRepair (evidence)', () => store.messages.appendRepair(id, messageWith(bad()), [ok], 1)],
          ['appendRepair (balanced)', () => store.messages.appendRepair(id, ok, [messageWith(bad())], 1)],
          ['saveTranscript', () => store.transcripts.saveTranscript(id, { messages: [ok, messageWith(bad())] })],
          ['appendMessages', () => store.transcripts.appendMessages(id, [ok, messageWith(bad())])],
          ['sessions.append', () => store.sessions.append(id, messageWith(bad()))],
        ];
        for (const [write, run] of writes) {
          await expect(run().then(() => `${write} with ${place} was accepted`)).rejects.toThrow(StoreValidationError);
        }
      }
      expect(await snapshot(id)).toEqual(before);
      expect(await store.sessions.get(fresh)).toBeNull();
      expect(await store.messages.getTranscript(fresh)).toEqual([]);
    });
  });

  describe('exactly once by message id', () => {
    test('a retried append returns the stored message: the same seq and time, nothing new in the transcript', async () => {
      const id = thread();
      await store.messages.append(id, user('before'));
      const first = await store.messages.append(id, conversation()[1]);
      // New objects with the same values, a later time, a Uint8Array where the Buffer was: the same message.
      const again = conversation()[1];
      const parts = partsOf(again);
      parts[5] = { ...parts[5], data: new Uint8Array(parts[5].data as Buffer) };
      const retry = await store.messages.append(id, { ...again, createdAt: new Date() });
      expect(retry.seq).toBe(first.seq);
      expect(retry.createdAt.getTime()).toBe(at(2).getTime());
      expect(readFields([retry])).toEqual(givenFields([conversation()[1]]));
      // Read output is a retry too.
      const [, read] = await store.messages.getTranscript(id);
      expect((await store.messages.append(id, read)).seq).toBe(first.seq);
      expect(seqs(await store.messages.getTranscript(id))).toEqual([1, 2]);
    });

    test('an id the transcript holds is held after a compaction or repair took it out of the history', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a', { id: 'a' }), user('b', { id: 'b' })]);
      await store.messages.appendCompaction(id, [user('summary')], 2, 0);
      await store.messages.appendRepair(id, user('evidence'), [user('balanced')], 1);
      expect((await store.messages.append(id, user('a', { id: 'a' }))).seq).toBe(1);
      expect(seqs(await store.messages.appendMany(id, [user('b', { id: 'b' }), user('c', { id: 'c' })]))).toEqual([2, 5]);
      expect(seqs(await store.messages.getTranscript(id))).toEqual([1, 2, 5]);
      await expect(store.messages.append(id, user('other', { id: 'a' }))).rejects.toThrow(StoreConflictError);
    });

    test('after a clear the ids are free again; an id is held per thread', async () => {
      const id = thread();
      await store.messages.append(id, user('a', { id: 'a' }));
      await store.messages.clear(id);
      const after = await store.messages.append(id, user('other', { id: 'a' }));
      expect(after.seq).toBe(2);
      const other = thread();
      expect((await store.messages.append(other, user('a', { id: 'a' }))).seq).toBe(1);
      expect(seqs(await store.messages.getTranscript(id))).toEqual([2]);
    });

    test('appendMany with some held ids stores only the new ones and returns the batch as stored', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a', { id: 'a' }), { role: 'assistant', content: 'b', id: 'b' }]);
      const batch: MessageInput[] = [
        user('a', { id: 'a' }),
        user('no id'),
        user('c', { id: 'c' }),
        { role: 'assistant', content: 'b', id: 'b' },
        user('d', { id: 'd' }),
      ];
      const stored = await store.messages.appendMany(id, batch);
      expect(stored.map((message) => [message.seq, message.id ?? null, message.content])).toEqual([
        [1, 'a', 'a'],
        [3, null, 'no id'],
        [4, 'c', 'c'],
        [2, 'b', 'b'],
        [5, 'd', 'd'],
      ]);
      expect((await store.messages.getTranscript(id)).map((message) => [message.seq, message.content])).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'no id'],
        [4, 'c'],
        [5, 'd'],
      ]);
      // All held: nothing new. A message without an id is never one already held.
      expect(
        seqs(
          await store.messages.appendMany(
            id,
            batch.filter((message) => message.id !== undefined),
          ),
        ),
      ).toEqual([1, 4, 2, 5]);
      expect(seqs(await store.messages.appendMany(id, [user('no id'), user('d', { id: 'd' })]))).toEqual([6, 5]);
      expect(await store.messages.count(id)).toBe(6);
    });

    const other: [string, MessageInput, MessageInput][] = [
      ['other text', user('a', { id: 'm' }), user('b', { id: 'm' })],
      ['another role', user('a', { id: 'm' }), { role: 'assistant', content: 'a', id: 'm' }],
      ['other metadata', user('a', { id: 'm', metadata: { k: 1 } }), user('a', { id: 'm', metadata: { k: 2 } })],
      ['metadata added', user('a', { id: 'm' }), user('a', { id: 'm', metadata: { k: 1 } })],
      ['other provider options', user('a', { id: 'm', providerOptions: { p: { k: 1 } } }), user('a', { id: 'm', providerOptions: { p: { k: 1.5 } } })],
      [
        'one byte other',
        { role: 'user', id: 'm', content: [{ type: 'image', image: Uint8Array.from([1, 2]) }] },
        { role: 'user', id: 'm', content: [{ type: 'image', image: Uint8Array.from([1, 3]) }] },
      ],
      [
        'a URL given as its text',
        { role: 'user', id: 'm', content: [{ type: 'image', image: new URL('https://example.com/a.png') }] },
        { role: 'user', id: 'm', content: [{ type: 'image', image: 'https://example.com/a.png' }] },
      ],
      ['a Date given as its text', user('a', { id: 'm', metadata: { at: at(1) } }), user('a', { id: 'm', metadata: { at: at(1).toISOString() } })],
      [
        'bytes given as an ArrayBuffer',
        { role: 'user', id: 'm', content: [{ type: 'image', image: Uint8Array.from([1]) }] },
        { role: 'user', id: 'm', content: [{ type: 'image', image: Uint8Array.from([1]).buffer }] },
      ],
    ];

    test.each(other)('the same id with %s is a StoreConflictError, and nothing is written', async (_name, held, given) => {
      const id = thread();
      await store.messages.appendMany(id, [user('first'), held]);
      const before = await snapshot(id);
      await expect(store.messages.append(id, given)).rejects.toThrow(StoreConflictError);
      await expect(store.messages.appendMany(id, [user('new', { id: 'new' }), given, user('newer')])).rejects.toThrow(StoreConflictError);
      await expect(store.transcripts.appendMessages(id, [user('new'), given])).rejects.toThrow(StoreConflictError);
      expect(await snapshot(id)).toEqual(before);
    });

    test('ids repeated within one batch are a StoreValidationError, even with the same content, and nothing is written', async () => {
      const id = thread();
      await store.messages.append(id, user('first', { id: 'first' }));
      const before = await snapshot(id);
      const fresh = thread();
      for (const target of [id, fresh]) {
        for (const batch of [
          [user('x', { id: 'x' }), user('y'), user('x', { id: 'x' })],
          [user('x', { id: 'x' }), user('other', { id: 'x' })],
          [user('first', { id: 'first' }), user('first', { id: 'first' })],
        ]) {
          await expect(store.messages.appendMany(target, batch)).rejects.toThrow(StoreValidationError);
          await expect(store.messages.replaceHistory(target, batch)).rejects.toThrow(StoreValidationError);
          await expect(store.transcripts.appendMessages(target, batch)).rejects.toThrow(StoreValidationError);
          await expect(store.transcripts.saveTranscript(target, { messages: batch })).rejects.toThrow(StoreValidationError);
        }
      }
      expect(await snapshot(id)).toEqual(before);
      expect(await store.sessions.get(fresh)).toBeNull();
    });

    test('two clients retrying one batch of 20 at once, in several rounds, store it once: contiguous seqs, the same answer to every call', async () => {
      const second = await store.another();
      try {
        for (let round = 0; round < 4; round++) {
          const id = thread();
          // Rounds 1 and 3 start on a thread that holds messages already.
          const start = round % 2 === 1 ? (await store.messages.appendMany(id, [user('x'), user('y')])).length + 1 : 1;
          const batch: MessageInput[] = Array.from({ length: 20 }, (_, i) => ({
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: [
              { type: 'text', text: `m${i}` },
              { type: 'image', image: Uint8Array.from([round, i]) },
            ],
            id: `r${round}-m${i}`,
            metadata: { i, at: at(i) },
          }));
          const clients = [store.messages, second.messages, store.messages, second.messages, store.messages, second.messages];
          const answers = await Promise.all(clients.map((messages) => messages.appendMany(id, batch)));
          const transcript = await store.messages.getTranscript(id);
          expect(seqs(transcript)).toEqual(range(1, start + 19));
          expect(transcript.slice(start - 1).map((message) => message.id)).toEqual(batch.map((message) => message.id));
          expect(transcript.slice(start - 1).map((message) => spelled([message.content, message.metadata]))).toEqual(
            batch.map((message) => spelled([message.content, message.metadata], true)),
          );
          for (const answer of answers) {
            expect(seqs(answer)).toEqual(range(start, 20));
            expect(answer.map((message) => message.id)).toEqual(batch.map((message) => message.id));
          }
        }
      } finally {
        await second.close();
      }
    });
  });

  describe('repairToolCalls', () => {
    const call = (toolCallId: string, toolName = 'weather', input: unknown = { city: 'Paris' }) => ({ type: 'tool-call', toolCallId, toolName, input });
    const result = (toolCallId: string, toolName = 'weather') => ({
      type: 'tool-result',
      toolCallId,
      toolName,
      output: { type: 'json', value: { celsius: 21 } },
    });
    const interrupted = (toolCallId: string, toolName = 'weather', value: unknown = expect.any(String)) => ({
      type: 'tool-result',
      toolCallId,
      toolName,
      output: { type: 'error-text', value },
    });
    const assistant = (...content: object[]): MessageInput => ({ role: 'assistant', content: content as MessageInput['content'] });
    const tool = (...content: object[]): MessageInput => ({ role: 'tool', content: content as MessageInput['content'] });
    const shapes = (messages: { role: string; content: unknown }[]) => messages.map(({ role, content }) => ({ role, content }));

    async function expectRepaired(id: string, record: RepairRecord | null, balanced: MessageInput[]) {
      expect(record).not.toBeNull();
      const history = await store.messages.getHistory(id);
      expect(shapes(history)).toEqual(shapes(balanced));
      expect(balanceToolCalls(history)).toBeNull();
      const repairs = await store.messages.getRepairs(id);
      expect(repairs).toHaveLength(1);
      expect(repairs[0]).toEqual(record);
      expect(await boundaryCount(store, id)).toBe(1);
    }

    test('orphans in one assistant message: one repair, the history balanced, the evidence in getRepairs; a second call does nothing', async () => {
      const id = thread();
      const messages = [
        user('plan a trip'),
        assistant({ type: 'text', text: 'Looking.' }, call('c1'), call('c2', 'hotels')),
        tool(result('c1')),
        user('hurry'),
      ];
      await store.messages.appendMany(id, messages);
      const record = await store.messages.repairToolCalls(id);
      expect(record).toMatchObject({ seq: 5, sourceMessageCount: 3, repairMessage: { role: 'tool', content: [interrupted('c2', 'hotels')] } });
      expect(record!.createdAt).toBeInstanceOf(Date);
      await expectRepaired(id, record, [messages[0], messages[1], tool(result('c1'), interrupted('c2', 'hotels')), messages[3]]);
      expect(seqs(await store.messages.getHistory(id))).toEqual([null, null, null, 4]);
      expect(seqs(await store.messages.getTranscript(id))).toEqual([1, 2, 3, 4]);

      expect(await store.messages.repairToolCalls(id)).toBeNull();
      expect(await store.messages.getRepairs(id)).toHaveLength(1);
      const later = await store.messages.append(id, assistant({ type: 'text', text: 'done' }));
      expect((await store.messages.getHistory(id)).at(-1)).toEqual(later);
    });

    test('orphans in several assistant messages: one repair answers them all, each after its own call', async () => {
      const id = thread();
      const messages = [user('a'), assistant(call('c1')), user('b'), assistant(call('c2', 'news'), call('c3', 'news')), tool(result('c3', 'news'))];
      await store.messages.appendMany(id, messages);
      const record = await store.messages.repairToolCalls(id, { errorText: 'crashed' });
      expect(record).toMatchObject({
        sourceMessageCount: 5,
        repairMessage: { role: 'tool', content: [interrupted('c1', 'weather', 'crashed'), interrupted('c2', 'news', 'crashed')] },
      });
      await expectRepaired(id, record, [
        messages[0],
        messages[1],
        tool(interrupted('c1', 'weather', 'crashed')),
        messages[2],
        messages[3],
        tool(result('c3', 'news'), interrupted('c2', 'news', 'crashed')),
      ]);
      expect(await store.messages.repairToolCalls(id)).toBeNull();
    });

    test('the repaired messages keep their values exactly', async () => {
      const id = thread();
      const [system, userMessage, assistantMessage] = conversation();
      await store.messages.appendMany(id, [system, userMessage, assistantMessage]);
      await store.messages.repairToolCalls(id);
      const history = await store.messages.getHistory(id);
      expect(readFields(history.slice(0, 3))).toEqual(givenFields([system, userMessage, assistantMessage]));
      expect(history[3]).toMatchObject({ seq: null, role: 'tool', content: [interrupted('call-1', 'lookup')] });
    });

    test('nothing orphaned (provider-executed calls included), or no thread: null, and nothing written', async () => {
      const id = thread();
      await store.messages.appendMany(id, [
        user('a'),
        assistant(call('c1')),
        tool(result('c1')),
        assistant({ ...call('p1', 'search'), providerExecuted: true }, result('p1', 'search'), { type: 'text', text: 'found' }),
        user('b'),
      ]);
      const before = await snapshot(id);
      expect(await store.messages.repairToolCalls(id)).toBeNull();
      expect(await snapshot(id)).toEqual(before);
      const none = thread();
      expect(await store.messages.repairToolCalls(none)).toBeNull();
      expect(await store.sessions.get(none)).toBeNull();
    });

    test('bad options are a StoreValidationError, and nothing is written', async () => {
      const id = thread();
      await store.messages.appendMany(id, [user('a'), assistant(call('c1'))]);
      const before = await snapshot(id);
      for (const options of [{ errorText: 1 }, { errorText: 'a\u0000b' }, { other: 'x' }, 'crashed', null]) {
        await expect(store.messages.repairToolCalls(id, options as never)).rejects.toThrow(StoreValidationError);
      }
      await expect(store.messages.repairToolCalls('')).rejects.toThrow(StoreValidationError);
      expect(await snapshot(id)).toEqual(before);
    });

    test('clients repairing one thread at once make one repair', async () => {
      const second = await store.another();
      try {
        const id = thread();
        await store.messages.appendMany(id, [user('a'), assistant(call('c1'), call('c2'))]);
        const records = await Promise.all([store.messages, second.messages, store.messages, second.messages].map((messages) => messages.repairToolCalls(id)));
        expect(records.filter((record) => record !== null)).toHaveLength(1);
        const record = records.find((record) => record !== null)!;
        await expectRepaired(id, record, [user('a'), assistant(call('c1'), call('c2')), tool(interrupted('c1'), interrupted('c2'))]);
      } finally {
        await second.close();
      }
    });

    test("a tenant's scoped store repairs its threads; another tenant's thread is not found, and an unknown one neither", async () => {
      const a = store.tenants.forTenant(`tenant-a-${++n}`);
      const b = store.tenants.forTenant(`tenant-b-${n}`);
      const id = await a.sessions.create({ id: thread() });
      await a.messages.appendMany(id, [user('a'), assistant(call('c1'))]);
      await expect(b.messages.repairToolCalls(id)).rejects.toThrow(StoreNotFoundError);
      await expect(b.messages.getRepairs(id)).rejects.toThrow(StoreNotFoundError);
      expect(await store.messages.getRepairs(id)).toEqual([]);
      await expect(a.messages.repairToolCalls(thread())).rejects.toThrow(StoreNotFoundError);
      const record = await a.messages.repairToolCalls(id);
      expect(record).toMatchObject({ sourceMessageCount: 2, repairMessage: { role: 'tool', content: [interrupted('c1')] } });
      expect(await a.messages.getRepairs(id)).toEqual([record]);
      expect(shapes(await a.messages.getHistory(id))).toEqual(shapes([user('a'), assistant(call('c1')), tool(interrupted('c1'))]));
      expect(await a.messages.repairToolCalls(id)).toBeNull();
    });
  });
};
