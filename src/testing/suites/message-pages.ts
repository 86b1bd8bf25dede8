// MessageStore.getHistoryPage and getTranscriptPage on every backend: pages that
// concatenate to exactly getHistory() and getTranscript(), across compaction and repair boundaries,
// with appends between pages, stale cursors and bad input.
import type { HistoryMessage, MessageInput, MessagePage, PageOptions, StoredMessage } from '../../index.js';
import { StoreConflictError, StoreNotFoundError, StoreValidationError } from '../../index.js';
import type { Suite } from '../kit.js';

/**
 * MessageStore's getHistoryPage and getTranscriptPage: pages that concatenate to getHistory and getTranscript
 * across compactions and repairs, with appends between pages, stale cursors and bad input.
 */
export const messagePages: Suite = ({ store, describe, test, expect }) => {
  let n = 0;
  const thread = (name = 'thread') => `${name}-${++n}`;
  const user = (text: string): MessageInput => ({ role: 'user', content: text });
  const system = (text: string): MessageInput => ({ role: 'system', content: text });
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);
  const many = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => user(`${prefix}${i + 1}`));

  type Reader<M> = (id: string, page?: PageOptions) => Promise<MessagePage<M>>;
  const historyPages: Reader<HistoryMessage> = (id, page) => store.messages.getHistoryPage(id, page);
  const transcriptPages: Reader<StoredMessage> = (id, page) => store.messages.getTranscriptPage(id, page);

  /** Every page from the first (or from `cursor`), following nextCursor until it is null. */
  async function readAll<M>(read: Reader<M>, id: string, limit?: number, from?: string): Promise<MessagePage<M>[]> {
    const pages: MessagePage<M>[] = [];
    let cursor = from;
    do {
      const page = await read(id, { ...(limit !== undefined && { limit }), ...(cursor !== undefined && { cursor }) });
      pages.push(page);
      cursor = page.nextCursor ?? undefined;
      if (pages.length > 5000) throw new Error('nextCursor never became null');
    } while (cursor !== undefined);
    return pages;
  }

  /** The pages hold `whole`, in order, `limit` a page, the last one with nextCursor null and every other with a cursor. */
  function expectPages<M>(pages: MessagePage<M>[], limit: number, whole: M[]) {
    expect(pages.flatMap((page) => page.messages)).toEqual(whole);
    const sizes = pages.map((page) => page.messages.length);
    const full = Math.floor(whole.length / limit);
    const rest = whole.length % limit;
    expect(sizes).toEqual(whole.length === 0 ? [0] : [...Array(full).fill(limit), ...(rest > 0 ? [rest] : [])]);
    expect(pages.at(-1)!.nextCursor).toBeNull();
    for (const page of pages.slice(0, -1)) expect(typeof page.nextCursor).toBe('string');
  }

  const LIMITS = [1, 2, 3, 4, 5, 7, 10, 100, 1000];

  /** Threads whose effective history has every shape: each returns its id. */
  const shapes: [string, () => Promise<string>][] = [
    [
      'one message',
      async () => {
        const id = thread();
        await store.messages.append(id, user('only'));
        return id;
      },
    ],
    [
      '23 messages',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 23));
        return id;
      },
    ],
    [
      'a compaction and a repair whose replacement messages straddle page breaks',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 10));
        // history: s1 s2 s3 s4 m7 m8 m9 m10
        await store.messages.appendCompaction(id, [system('s1'), system('s2'), system('s3'), user('s4')], 6, 1);
        await store.messages.appendMany(id, many('n', 3));
        // history: s1 s2 s3 s4 m7 m8 m9 m10 n1 n2 n3; the repair replaces the first 5 with b1 b2 b3
        await store.messages.appendRepair(id, user('repair'), [system('b1'), user('b2'), user('b3')], 5);
        await store.messages.appendMany(id, many('p', 4));
        return id;
      },
    ],
    [
      'a summary longer than several pages',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 5));
        await store.messages.appendCompaction(
          id,
          Array.from({ length: 12 }, (_, i) => system(`summary ${i + 1}`)),
          3,
          0,
        );
        await store.messages.appendMany(id, many('n', 6));
        return id;
      },
    ],
    [
      "a repair ending inside the previous compaction's replacement",
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 6));
        // history: s1 s2 s3 s4 m4 m5 m6
        await store.messages.appendCompaction(id, [system('s1'), system('s2'), system('s3'), system('s4')], 3, 0);
        // history: r1 s3 s4 m4 m5 m6
        await store.messages.appendRepair(id, user('repair'), [system('r1')], 2);
        await store.messages.append(id, user('m7'));
        return id;
      },
    ],
    [
      'a compaction of everything, nothing after it',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 8));
        await store.messages.appendCompaction(id, [system('s1'), system('s2'), system('s3')], 8, 0);
        return id;
      },
    ],
    [
      'a compaction of nothing (a preamble)',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('m', 5));
        await store.messages.appendCompaction(id, [system('preamble 1'), system('preamble 2')], 0, 0);
        return id;
      },
    ],
    [
      'events between the messages of a session',
      async () => {
        const id = await store.sessions.create({ id: thread('session') });
        for (let i = 1; i <= 9; i++) {
          await store.sessions.append(id, user(`m${i}`));
          await store.sessions.append(id, { type: 'tick', data: i });
        }
        await store.messages.appendCompaction(id, [system('s')], 2, 0);
        await store.sessions.append(id, { type: 'tock' });
        await store.sessions.append(id, user('m10'));
        return id;
      },
    ],
    [
      'sequence numbers that start after a clear',
      async () => {
        const id = thread();
        await store.messages.appendMany(id, many('old', 6));
        await store.messages.appendCompaction(id, [system('s')], 2, 0);
        await store.messages.clear(id);
        await store.messages.appendMany(id, many('m', 9));
        return id;
      },
    ],
  ];

  describe('pages concatenate to exactly the whole', () => {
    test.each(shapes)('history and transcript of %s, at every limit', async (_shape, arrange) => {
      const id = await arrange();
      const history = await store.messages.getHistory(id);
      const transcript = await store.messages.getTranscript(id);
      for (const limit of LIMITS) {
        expectPages(await readAll(historyPages, id, limit), limit, history);
        expectPages(await readAll(transcriptPages, id, limit), limit, transcript);
      }
    });

    test('the replacement messages of a boundary keep seq null on their pages', async () => {
      const id = await shapes[2][1]();
      const seqs = (await readAll(historyPages, id, 2)).flatMap((page) => page.messages.map((m) => m.seq));
      expect(seqs.slice(0, 3)).toEqual([null, null, null]);
      expect(seqs.slice(3).every((seq) => typeof seq === 'number')).toBe(true);
      expect(texts((await store.messages.getHistoryPage(id, { limit: 4 })).messages)).toEqual(['b1', 'b2', 'b3', 'm8']);
    });

    test('the limit may change from page to page', async () => {
      const id = await shapes[2][1]();
      for (const read of [historyPages, transcriptPages] as Reader<unknown>[]) {
        const whole = read === historyPages ? await store.messages.getHistory(id) : await store.messages.getTranscript(id);
        const seen: unknown[] = [];
        let cursor: string | undefined;
        let i = 0;
        do {
          const page = await read(id, { limit: [2, 1, 3, 1][i++ % 4], cursor });
          seen.push(...page.messages);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(seen).toEqual(whole);
      }
    });

    test('the default limit is 100', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 250));
      for (const read of [historyPages, transcriptPages] as Reader<unknown>[]) {
        const first = await read(id);
        expect(first.messages).toHaveLength(100);
        expect(await read(id, {})).toEqual(first);
        const second = await read(id, { cursor: first.nextCursor! });
        const third = await read(id, { cursor: second.nextCursor! });
        expect([second.messages.length, third.messages.length, third.nextCursor]).toEqual([100, 50, null]);
      }
      const exact = thread();
      await store.messages.appendMany(exact, many('m', 100));
      expect(await store.messages.getHistoryPage(exact)).toEqual({ messages: await store.messages.getHistory(exact), nextCursor: null, startSeq: 1 });
      expect(await store.messages.getTranscriptPage(exact)).toEqual({ messages: await store.messages.getTranscript(exact), nextCursor: null });
    });

    test('a limit of 1000 is a page of 1000', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 1001));
      expectPages(await readAll(historyPages, id, 1000), 1000, await store.messages.getHistory(id));
      expectPages(await readAll(transcriptPages, id, 1000), 1000, await store.messages.getTranscript(id));
    });

    test('a thread id of 191 characters pages like any other', async () => {
      const id = 'é'.repeat(191);
      await store.messages.appendMany(id, many('m', 5));
      expectPages(await readAll(historyPages, id, 2), 2, await store.messages.getHistory(id));
      expectPages(await readAll(transcriptPages, id, 2), 2, await store.messages.getTranscript(id));
    });
  });

  describe('empty and unknown threads', () => {
    test('an unknown thread is one empty last page, and reading it creates nothing', async () => {
      const id = thread('unknown');
      expect(await store.messages.getHistoryPage(id)).toEqual({ messages: [], nextCursor: null, startSeq: null });
      expect(await store.messages.getTranscriptPage(id, { limit: 5 })).toEqual({ messages: [], nextCursor: null });
      expect(await store.sessions.get(id)).toBeNull();
    });

    test('a created session with no messages, and a cleared thread, are one empty last page', async () => {
      const session = await store.sessions.create();
      await store.sessions.append(session, { type: 'only-an-event' });
      const cleared = thread();
      await store.messages.appendMany(cleared, many('m', 3));
      await store.messages.clear(cleared);
      for (const id of [session, cleared]) {
        expect(await store.messages.getHistoryPage(id)).toEqual({ messages: [], nextCursor: null, startSeq: null });
        expect(await store.messages.getTranscriptPage(id)).toEqual({ messages: [], nextCursor: null });
      }
    });
  });

  describe('appends between pages', () => {
    test('appear on the later pages of the history and of the transcript', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 5));
      const history = await store.messages.getHistoryPage(id, { limit: 2 });
      const transcript = await store.messages.getTranscriptPage(id, { limit: 2 });
      await store.messages.appendMany(id, many('n', 4));
      const restOfHistory = (await readAll(historyPages, id, 3, history.nextCursor!)).flatMap((page) => page.messages);
      const restOfTranscript = (await readAll(transcriptPages, id, 3, transcript.nextCursor!)).flatMap((page) => page.messages);
      expect([...history.messages, ...restOfHistory]).toEqual(await store.messages.getHistory(id));
      expect([...transcript.messages, ...restOfTranscript]).toEqual(await store.messages.getTranscript(id));
      expect(texts(restOfHistory)).toEqual(['m3', 'm4', 'm5', 'n1', 'n2', 'n3', 'n4']);
    });

    test('appear after the rest of a summary when the cursor was handed out inside it', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 4));
      await store.messages.appendCompaction(id, [system('s1'), system('s2'), system('s3')], 3, 0);
      const first = await store.messages.getHistoryPage(id, { limit: 2 });
      expect(texts(first.messages)).toEqual(['s1', 's2']);
      await store.messages.appendMany(id, [user('late1'), user('late2')]);
      const second = await store.messages.getHistoryPage(id, { limit: 100, cursor: first.nextCursor! });
      expect(texts(second.messages)).toEqual(['s3', 'm4', 'late1', 'late2']);
      expect(second.nextCursor).toBeNull();
      expect([...first.messages, ...second.messages]).toEqual(await store.messages.getHistory(id));
    });

    test('an event appended between pages is no compaction: the cursor still reads on', async () => {
      const id = await store.sessions.create();
      for (const text of ['a', 'b', 'c']) await store.sessions.append(id, user(text));
      const first = await store.messages.getHistoryPage(id, { limit: 2 });
      await store.sessions.append(id, { type: 'tick' });
      await store.sessions.append(id, user('d'));
      const second = await store.messages.getHistoryPage(id, { cursor: first.nextCursor! });
      expect(texts(second.messages)).toEqual(['c', 'd']);
    });

    test('while another writer appends, the pages read so far are always the start of the history', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 3));
      await store.messages.appendCompaction(id, [system('s1'), system('s2')], 2, 0);
      let writing = true;
      const writer = (async () => {
        for (let i = 1; i <= 120; i++) await store.messages.append(id, user(`w${i}`));
        writing = false;
      })();
      const passes: HistoryMessage[][] = [];
      const transcriptPasses: StoredMessage[][] = [];
      while (writing) {
        passes.push((await readAll(historyPages, id, 7)).flatMap((page) => page.messages));
        transcriptPasses.push((await readAll(transcriptPages, id, 7)).flatMap((page) => page.messages));
      }
      await writer;
      const history = await store.messages.getHistory(id);
      const transcript = await store.messages.getTranscript(id);
      expect(passes.length).toBeGreaterThan(0);
      for (const pass of passes) expect(pass).toEqual(history.slice(0, pass.length));
      for (const pass of transcriptPasses) expect(pass).toEqual(transcript.slice(0, pass.length));
    });
  });

  describe('a cursor handed out before a compaction or repair', () => {
    async function withCursor() {
      const id = thread();
      await store.messages.appendMany(id, many('m', 8));
      const page = await store.messages.getHistoryPage(id, { limit: 3 });
      expect(page.nextCursor).not.toBeNull();
      return { id, cursor: page.nextCursor! };
    }

    test.each([
      ['a compaction of what the cursor has read', (id: string) => store.messages.appendCompaction(id, [system('s')], 2, 0)],
      ['a compaction beyond the cursor', (id: string) => store.messages.appendCompaction(id, [system('s')], 6, 0)],
      ['a compaction of nothing', (id: string) => store.messages.appendCompaction(id, [system('preamble')], 0, 0)],
      ['a repair', (id: string) => store.messages.appendRepair(id, user('r'), [user('m1'), user('m2'), user('balanced')], 3)],
    ])('is a conflict after %s; the first page reads the new history', async (_name, change) => {
      const { id, cursor } = await withCursor();
      await change(id);
      await expect(store.messages.getHistoryPage(id, { cursor })).rejects.toThrow(StoreConflictError);
      await expect(store.messages.getHistoryPage(id, { cursor, limit: 1 })).rejects.toThrow(StoreConflictError);
      expectPages(await readAll(historyPages, id, 3), 3, await store.messages.getHistory(id));
    });

    test('a cursor handed out after a compaction works until the next one', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 8));
      await store.messages.appendCompaction(id, [system('s1'), system('s2')], 4, 0);
      const first = await store.messages.getHistoryPage(id, { limit: 3 });
      const second = await store.messages.getHistoryPage(id, { limit: 1, cursor: first.nextCursor! });
      expect(texts([...first.messages, ...second.messages])).toEqual(['s1', 's2', 'm5', 'm6']);
      await store.messages.appendCompaction(id, [system('s3')], 1, 0);
      await expect(store.messages.getHistoryPage(id, { cursor: second.nextCursor! })).rejects.toThrow(StoreConflictError);
      await expect(store.messages.getHistoryPage(id, { cursor: first.nextCursor! })).rejects.toThrow(StoreConflictError);
    });

    test('a transcript cursor reads on: compaction and repair change no committed message', async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 8));
      const first = await store.messages.getTranscriptPage(id, { limit: 3 });
      await store.messages.appendCompaction(id, [system('s')], 5, 0);
      await store.messages.appendRepair(id, user('r'), [user('balanced')], 1);
      await store.messages.append(id, user('m9'));
      const rest = await store.messages.getTranscriptPage(id, { cursor: first.nextCursor! });
      expect([...first.messages, ...rest.messages]).toEqual(await store.messages.getTranscript(id));
      expect(rest.nextCursor).toBeNull();
    });

    test.each([
      ['replaceHistory', (id: string) => store.messages.replaceHistory(id, many('new', 6)).then(() => undefined)],
      [
        'clear and new appends',
        async (id: string) => {
          await store.messages.clear(id);
          await store.messages.appendMany(id, many('new', 6));
        },
      ],
    ])('history pages never stitch two histories together: after %s the cursor is a conflict', async (_name, change) => {
      // Not named by the contract, which names compaction and repair; but the old
      // first page followed by the new history was never the history.
      const { id, cursor } = await withCursor();
      await change(id);
      await expect(store.messages.getHistoryPage(id, { cursor })).rejects.toThrow(StoreConflictError);
    });
  });

  describe('a forged cursor', () => {
    // Cursors are base64url JSON, so a caller can write one. A history cursor
    // whose boundary is the latest still describes a position under that very
    // boundary: one that no page hands out is a forgery, never a stale cursor,
    // and reading from it would return compacted messages after the summary.
    const forge = (...value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');

    /** m1..m8 at seqs 1 to 8, then a compaction of the first 4 into s1 s2 (boundary seq 9, cut at seq 4): s1 s2 m5 m6 m7 m8. */
    async function compacted() {
      const id = thread('forged');
      await store.messages.appendMany(id, many('m', 8));
      await store.messages.appendCompaction(id, [system('s1'), system('s2')], 4, 0);
      const history = await store.messages.getHistory(id);
      expect(texts(history)).toEqual(['s1', 's2', 'm5', 'm6', 'm7', 'm8']);
      // The cursors the pages hand out have this shape: [boundary seq, summary messages read, last seq read].
      const first = await store.messages.getHistoryPage(id, { limit: 1 });
      expect(first.nextCursor).toBe(forge('h', id, 9, 1, 4));
      return { id, history };
    }

    test.each([
      ['a seq before the cut, the summary read', [9, 2, 2]],
      ['the start of the log under the summary', [9, 0, 0]],
      ['a seq before the cut, inside the summary', [9, 1, 2]],
      ['an index beyond the summary', [9, 3, 4]],
      ['an index beyond the summary and a seq past the cut', [9, 5, 6]],
      ['a seq past the cut while the summary is not finished', [9, 1, 6]],
      ['a seq past the last one the thread handed out', [9, 2, 50]],
      ['a boundary past the last seq the thread handed out', [50, 0, 4]],
    ])('%s is a validation error, and no page is read', async (_name, position) => {
      const { id, history } = await compacted();
      const cursor = forge('h', id, ...position);
      for (const limit of [1, 3, 100]) {
        await expect(store.messages.getHistoryPage(id, { cursor, limit })).rejects.toThrow(StoreValidationError);
      }
      // The real cursors still read the history, exactly.
      expectPages(await readAll(historyPages, id, 2), 2, history);
    });

    test.each([
      ['an index into a summary the thread does not have', [0, 1, 0]],
      ['a seq past the last one the thread handed out', [0, 0, 9]],
    ])('without a boundary, %s is a validation error', async (_name, position) => {
      const id = thread('forged');
      await store.messages.appendMany(id, many('m', 8));
      await expect(store.messages.getHistoryPage(id, { cursor: forge('h', id, ...position) })).rejects.toThrow(StoreValidationError);
    });

    test('a transcript cursor past the last seq the thread handed out is a validation error; one of a cleared message is stale', async () => {
      const id = thread('forged');
      await store.messages.appendMany(id, many('m', 4));
      await expect(store.messages.getTranscriptPage(id, { cursor: forge('t', id, 5) })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, { cursor: forge('t', id, 2 ** 40) })).rejects.toThrow(StoreValidationError);
      const real = (await store.messages.getTranscriptPage(id, { limit: 2 })).nextCursor!;
      await store.messages.clear(id);
      await store.messages.appendMany(id, many('n', 4));
      await expect(store.messages.getTranscriptPage(id, { cursor: real })).rejects.toThrow(StoreConflictError);
    });

    test("a deleted session's real cursors stay conflicts, not forgeries", async () => {
      const id = await store.sessions.create();
      await store.messages.appendMany(id, many('m', 6));
      const history = (await store.messages.getHistoryPage(id, { limit: 2 })).nextCursor!;
      const transcript = (await store.messages.getTranscriptPage(id, { limit: 2 })).nextCursor!;
      await store.transcripts.deleteTranscript(id);
      await expect(store.messages.getHistoryPage(id, { cursor: history })).rejects.toThrow(StoreConflictError);
      await expect(store.messages.getTranscriptPage(id, { cursor: transcript })).rejects.toThrow(StoreConflictError);
    });
  });

  describe('bad input is a validation error', () => {
    const limits: [string, unknown][] = [
      ['0', 0],
      ['-1', -1],
      ['1001', 1001],
      ['1.5', 1.5],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['a string', '10'],
      ['null', null],
    ];
    test.each(limits)('a limit of %s', async (_name, limit) => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 3));
      await expect(store.messages.getHistoryPage(id, { limit } as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, { limit } as never)).rejects.toThrow(StoreValidationError);
    });

    const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cursors: [string, (real: string) => unknown][] = [
      ['an empty cursor', () => ''],
      ['text that is no cursor', () => 'not a cursor'],
      ['characters outside base64', () => '%%%'],
      ['base64 of an empty object', () => base64url({})],
      ['base64 of an empty array', () => base64url([])],
      ['a very long string', () => 'A'.repeat(20_000)],
      ['a cursor cut in half', (real) => real.slice(0, Math.floor(real.length / 2))],
      ['a number', () => 42],
      ['null', () => null],
      ['an object', (real) => ({ cursor: real })],
    ];
    test.each(cursors)('%s as the cursor', async (_name, make) => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 6));
      const history = await store.messages.getHistoryPage(id, { limit: 2 });
      const transcript = await store.messages.getTranscriptPage(id, { limit: 2 });
      await expect(store.messages.getHistoryPage(id, { cursor: make(history.nextCursor!) } as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, { cursor: make(transcript.nextCursor!) } as never)).rejects.toThrow(StoreValidationError);
    });

    test("a SessionStore.list cursor, and each page kind's cursor given to the other", async () => {
      const id = thread();
      await store.messages.appendMany(id, many('m', 6));
      await store.sessions.create();
      await store.sessions.create();
      const listCursor = (await store.sessions.list({ limit: 1 })).nextCursor!;
      expect(listCursor).not.toBeNull();
      const history = (await store.messages.getHistoryPage(id, { limit: 2 })).nextCursor!;
      const transcript = (await store.messages.getTranscriptPage(id, { limit: 2 })).nextCursor!;
      await expect(store.messages.getHistoryPage(id, { cursor: listCursor })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, { cursor: listCursor })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getHistoryPage(id, { cursor: transcript })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, { cursor: history })).rejects.toThrow(StoreValidationError);
    });

    test.each([
      ['options that are not an object', 'limit=10'],
      ['a number as options', 10],
      ['null as options', null],
      ['an unknown option', { limit: 10, offset: 2 }],
    ])('%s', async (_name, options) => {
      const id = thread();
      await store.messages.append(id, user('a'));
      await expect(store.messages.getHistoryPage(id, options as never)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id, options as never)).rejects.toThrow(StoreValidationError);
    });

    test.each([
      ['an empty thread id', ''],
      ['a thread id of 192 characters', 'x'.repeat(192)],
      ['a thread id ending with a space', 'x '],
    ])('%s', async (_name, id) => {
      await expect(store.messages.getHistoryPage(id)).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(id)).rejects.toThrow(StoreValidationError);
    });
  });

  describe('a cursor from another thread', () => {
    // A cursor is a position in one thread's pages: sequence numbers and boundary
    // positions are per thread, so read against another thread it would silently
    // skip or repeat that thread's messages. It is not a cursor that thread's pages
    // handed out: a validation error, like any other cursor the store did not hand out.
    test.each([
      [
        'a thread of the same shape',
        async () => {
          const other = thread();
          await store.messages.appendMany(other, many('o', 8));
          return other;
        },
      ],
      [
        'a thread with a compaction',
        async () => {
          const other = thread();
          await store.messages.appendMany(other, many('o', 8));
          await store.messages.appendCompaction(other, [system('os')], 2, 0);
          return other;
        },
      ],
      ['an unknown thread', async () => thread('unknown')],
      [
        'its id in another case',
        async (id: string) => {
          await store.messages.appendMany(id.toUpperCase(), many('o', 8));
          return id.toUpperCase();
        },
      ],
    ])('is a validation error on %s, and reads nothing of either', async (_name, arrange) => {
      const id = thread('x');
      await store.messages.appendMany(id, many('m', 8));
      const target = await arrange(id);
      const history = (await store.messages.getHistoryPage(id, { limit: 3 })).nextCursor!;
      const transcript = (await store.messages.getTranscriptPage(id, { limit: 3 })).nextCursor!;
      await expect(store.messages.getHistoryPage(target, { cursor: history })).rejects.toThrow(StoreValidationError);
      await expect(store.messages.getTranscriptPage(target, { cursor: transcript })).rejects.toThrow(StoreValidationError);
      // Both threads still page as before.
      expectPages(await readAll(historyPages, id, 3), 3, await store.messages.getHistory(id));
      expectPages(await readAll(historyPages, target, 3), 3, await store.messages.getHistory(target));
    });

    test("a scoped store answers another tenant's thread as not found even with that thread's cursor", async () => {
      const a = store.tenants.forTenant(thread('tenant-a'));
      const b = store.tenants.forTenant(thread('tenant-b'));
      const theirs = await a.sessions.create();
      await a.messages.appendMany(theirs, many('a', 5));
      const mine = await b.sessions.create();
      await b.messages.appendMany(mine, many('b', 5));
      const cursor = (await a.messages.getHistoryPage(theirs, { limit: 2 })).nextCursor!;
      await expect(b.messages.getHistoryPage(theirs, { cursor })).rejects.toThrow(StoreNotFoundError);
      await expect(b.messages.getHistoryPage(mine, { cursor })).rejects.toThrow(StoreValidationError);
    });
  });
};
