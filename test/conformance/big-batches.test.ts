// Batches far past what one SQL statement can carry, on every backend: every
// batch the API accepts is stored whole, in order, atomically, and a batch the
// database refuses near its end leaves nothing behind. (SQLite binds at most
// 32,766 values to a statement, PostgreSQL 65,535, and MariaDB takes no packet
// past its max_allowed_packet, 16 MiB by default.)
import type { MessageInput, StoredMessage } from '../../src/index.js';
import { StoreDatabaseError, StoreNotFoundError } from '../../src/index.js';
import { refuseMessage } from '../support/failures.js';
import { eachBackend, storeOn } from '../support/openers.js';

/**
 * Past what one statement of the database can bind: SQLite 4,681 rows of 7 values, PostgreSQL 13,107 rows
 * of 5. MySQL and MariaDB bind no such number (their limit is the packet, which the large messages below pass):
 * there, as on SQLite, five statements' worth of the store's runs (MAX_INSERT_ROWS).
 */
const PAST_ONE_STATEMENT = { sqlite: 5_000, postgresql: 14_000, mysql: 5_000 };
/** Several statements' worth of rows, for the batches the database refuses. */
const SEVERAL = 2_500;

eachBackend((backend) => {
  const store = storeOn(backend);
  const MANY = PAST_ONE_STATEMENT[backend.provider];

  let n = 0;
  const sid = () => `big-${++n}`;
  const batch = (tag: string, count = MANY): MessageInput[] =>
    Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${tag} ${i}` }));
  /** The messages' contents, their seqs, and `count` consecutive seqs from `first`. */
  const texts = (messages: { content: unknown }[]) => messages.map((m) => m.content);
  const seqs = (messages: { seq: number | null }[]) => messages.map((m) => m.seq);
  const from = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i);

  /** The whole log reads back as `expected`, at consecutive seqs from `firstSeq`. */
  async function expectStored(id: string, expected: MessageInput[], firstSeq: number) {
    const transcript = await store.messages.getTranscript(id);
    expect(transcript).toHaveLength(expected.length);
    expect(texts(transcript)).toEqual(texts(expected));
    expect(seqs(transcript)).toEqual(from(firstSeq, expected.length));
    expect(await store.messages.count(id)).toBe(expected.length);
  }

  describe(`a batch of ${MANY} messages is stored whole and in order`, () => {
    test('appendMany to a new thread', async () => {
      const id = sid();
      const messages = batch('new');
      const stored = await store.messages.appendMany(id, messages);
      expect(seqs(stored)).toEqual(from(1, MANY));
      await expectStored(id, messages, 1);
    });

    test('appendMany to an existing thread, then more appends after it', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('before', 3));
      const stored = await store.messages.appendMany(id, batch('big'));
      expect(seqs(stored)).toEqual(from(4, MANY));
      const after = await store.messages.append(id, { role: 'user', content: 'after' });
      expect(after.seq).toBe(MANY + 4);
      await expectStored(id, [...batch('before', 3), ...batch('big'), { role: 'user', content: 'after' }], 1);
    });

    test('afterRun with a big request and response', async () => {
      const id = sid();
      await store.messages.append(id, { role: 'system', content: 'earlier' });
      const request = batch('request', MANY / 2);
      const response = batch('response', MANY / 2);
      await store.histories.forThread(id).afterRun(request, response);
      await expectStored(id, [{ role: 'system', content: 'earlier' }, ...request, ...response], 1);
    });

    test("a tenant's appendMany to its session; to another tenant's, StoreNotFoundError and nothing written", async () => {
      const [a, b] = [store.tenants.forTenant(`${sid()}-tenant-a`), store.tenants.forTenant(`${sid()}-tenant-b`)];
      const id = await a.sessions.create({ id: sid() });
      const messages = batch('scoped');
      expect(seqs(await a.messages.appendMany(id, messages))).toEqual(from(1, MANY));
      await expect(b.messages.appendMany(id, batch('intruder'))).rejects.toThrow(StoreNotFoundError);
      await expectStored(id, messages, 1);
    });

    test('replaceHistory', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('old', 5));
      const messages = batch('replaced');
      const stored = await store.messages.replaceHistory(id, messages);
      expect(seqs(stored)).toEqual(from(6, MANY));
      await expectStored(id, messages, 6);
    });

    test('saveTranscript', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('old', 5));
      const messages = batch('saved');
      await store.transcripts.saveTranscript(id, { messages, subsessions: [`${id}-child`] });
      const saved = await store.transcripts.getTranscript(id);
      expect(texts(saved!.messages)).toEqual(texts(messages));
      expect(saved!.subsessions).toEqual([`${id}-child`]);
    });

    test('importJsonl of a log of messages and events', async () => {
      const id = sid();
      // Every tenth entry an event.
      const log = batch('imported').map((message, i) =>
        i % 10 === 9
          ? { type: 'event', seq: i + 1, event: { type: 'tick', data: { i } }, createdAt: '2026-01-02T03:04:05.006Z' }
          : { type: 'message', seq: i + 1, message },
      );
      const jsonl = [{ type: 'session', version: 1, id, tenantId: null, title: 'big', metadata: null, createdAt: '2026-01-02T03:04:05.006Z' }, ...log]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join('');

      expect(await store.sessions.importJsonl(jsonl)).toEqual({ sessionId: id, entries: MANY, warnings: [] });

      const entries = await store.sessions.load(id);
      expect(seqs(entries)).toEqual(from(1, MANY));
      expect(entries.map((entry) => ('role' in entry ? entry.content : entry.data))).toEqual(
        log.map((line) => (line.message ? line.message.content : line.event!.data)),
      );
      expect(await store.messages.count(id)).toBe(MANY - MANY / 10);
    });

    test("a batch of large messages, past MariaDB's 16 MiB packets in all", async () => {
      const id = sid();
      // 1,200 messages of 16 KiB: 19 MiB.
      const messages = Array.from({ length: 1_200 }, (_, i): MessageInput => ({ role: 'user', content: `${i} ${'x'.repeat(16 * 1024)}` }));
      await store.messages.appendMany(id, [{ role: 'user', content: 'first' }]);
      await store.messages.appendMany(id, messages);
      await expectStored(id, [{ role: 'user', content: 'first' }, ...messages], 1);
    });
  });

  describe('a batch the database refuses near its end leaves nothing behind', () => {
    /** `SEVERAL` messages, the last of which the database refuses. */
    const poisoned = (tag: string): MessageInput[] => [...batch(tag, SEVERAL - 1), { role: 'user', content: 'refused', id: `refused-${tag}` }];

    /** Runs `write` while the database refuses the message `refused-<tag>`: it fails as the database failed (not unavailable, not busy). */
    async function refused(tag: string, write: () => Promise<unknown>) {
      const trigger = await refuseMessage(store.url, `refused-${tag}`);
      try {
        const failure = await write().then(
          () => new Error('the write succeeded'),
          (error: unknown) => error,
        );
        expect((failure as Error).constructor).toBe(StoreDatabaseError);
      } finally {
        await trigger.remove();
      }
    }

    /** The log and header of `id`: what must not change. */
    async function state(id: string) {
      return { transcript: await store.messages.getTranscript(id), session: await store.sessions.get(id) };
    }

    test('appendMany to a new thread: no thread, no messages', async () => {
      const id = sid();
      await refused('new', () => store.messages.appendMany(id, poisoned('new')));
      expect(await state(id)).toEqual({ transcript: [], session: null });
    });

    test('appendMany to an existing thread: its log and its sequence numbers are as they were', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('kept', 2));
      const before = await state(id);
      await refused('existing', () => store.messages.appendMany(id, poisoned('existing')));
      expect(await state(id)).toEqual(before);
      expect((await store.messages.append(id, { role: 'user', content: 'next' })).seq).toBe(3);
    });

    test('replaceHistory: the old log is still there', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('kept', 2));
      const before = await state(id);
      await refused('replace', () => store.messages.replaceHistory(id, poisoned('replace')));
      expect(await state(id)).toEqual(before);
    });

    test('afterRun: neither the request nor the response', async () => {
      const id = sid();
      await store.messages.appendMany(id, batch('kept', 2));
      const before = await state(id);
      await refused('run', () => store.histories.forThread(id).afterRun(batch('request', SEVERAL), poisoned('run')));
      expect(await state(id)).toEqual(before);
    });

    test("a tenant's appendMany to its session: its log is as it was", async () => {
      const tenant = store.tenants.forTenant(`${sid()}-tenant`);
      const id = await tenant.sessions.create({ id: sid() });
      await tenant.messages.appendMany(id, batch('kept', 2));
      const before = await state(id);
      await refused('scoped', () => tenant.messages.appendMany(id, poisoned('scoped')));
      expect(await state(id)).toEqual(before);
    });

    test('saveTranscript: the old transcript and its subsessions are still there', async () => {
      const id = sid();
      await store.transcripts.saveTranscript(id, { messages: batch('kept', 2), subsessions: [`${id}-child`] });
      const before = { ...(await state(id)), saved: await store.transcripts.getTranscript(id) };
      await refused('save', () => store.transcripts.saveTranscript(id, { messages: poisoned('save'), subsessions: [`${id}-other`] }));
      expect({ ...(await state(id)), saved: await store.transcripts.getTranscript(id) }).toEqual(before);
      expect(await store.sessions.get(`${id}-other`)).toBeNull();
    });

    test('importJsonl: no session', async () => {
      const id = sid();
      const jsonl = [
        { type: 'session', version: 1, id, createdAt: '2026-01-02T03:04:05.006Z' },
        ...poisoned('import').map((message, i) => ({ type: 'message', seq: i + 1, message })),
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join('');
      await refused('import', () => store.sessions.importJsonl(jsonl));
      expect(await state(id)).toEqual({ transcript: [] as StoredMessage[], session: null });
    });
  });
});
