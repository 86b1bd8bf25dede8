// The largest batches the HTTP API takes, on SQLite, PostgreSQL and MariaDB:
// arrays hold at most 1,000 messages (400 past it) and a body at most
// maxBodyBytes (413 past it; test/http/http-hardening.test.ts and
// http-api.test.ts), so with maxBodyBytes raised a batch of 1,000 large
// messages is 20 MiB, past MariaDB's 16 MiB packets, and an import of small
// entries under the default 1 MiB is 10,000 entries and more. Each is stored whole.
import { eachDatabase } from '../support/databases.js';
import { bootHttpApp, Client, expectEveryErrorClean, jsonl, KEY_A, type HttpApp } from '../support/http-api.js';

/** 1,000 messages of 20 KiB each. */
const LARGE = Array.from({ length: 1_000 }, (_, i) => ({ role: 'user', content: `${i} ${'x'.repeat(20 * 1024)}` }));

eachDatabase((database) => {
  let h: HttpApp;
  let a: Client;
  beforeAll(async () => {
    h = await bootHttpApp({ maxBodyBytes: 32 * 1024 * 1024 }, { url: await database.freshUrl() });
    a = new Client(h.server, KEY_A);
  });
  afterAll(() => h?.close());
  afterEach(expectEveryErrorClean);

  let n = 0;
  const session = async () => (await a.post('/sessions', { id: `http-big-${++n}` }).expect(201)).body.id as string;
  const seqsOf = (body: { messages: { seq: number }[] }) => body.messages.map((message) => message.seq);
  const from = (first: number) => LARGE.map((_, i) => first + i);

  test('POST /sessions/:id/messages/batch of 1,000 messages of 20 KiB (20 MiB) → 201, all stored', async () => {
    const id = await session();
    await a.post(`/sessions/${id}/messages`, { role: 'user', content: 'first' }).expect(201);
    const response = await a.post(`/sessions/${id}/messages/batch`, { messages: LARGE }).expect(201);
    expect(seqsOf(response.body)).toEqual(from(2));
    expect((await a.get(`/sessions/${id}/count`).expect(200)).body).toEqual({ count: 1_001 });
  });

  test('PUT /sessions/:id/history and /transcript of 1,000 messages of 20 KiB → all stored', async () => {
    const id = await session();
    expect(seqsOf((await a.put(`/sessions/${id}/history`, { messages: LARGE }).expect(200)).body)).toEqual(from(1));
    expect(seqsOf((await a.put(`/sessions/${id}/transcript`, { messages: LARGE }).expect(200)).body)).toEqual(from(1_001));
    expect((await a.get(`/sessions/${id}/count`).expect(200)).body).toEqual({ count: 1_000 });
  });

  test('POST /sessions/import of 12,000 entries, messages and events, under the default 1 MiB → 201, all stored', async () => {
    const id = `http-big-import-${++n}`;
    const log = Array.from({ length: 12_000 }, (_, i) =>
      i % 10 === 9
        ? { type: 'event', seq: i + 1, event: { type: 't' }, createdAt: '2026-01-02T03:04:05.006Z' }
        : { type: 'message', seq: i + 1, message: { role: 'user', content: `${i}` } },
    );
    const body = jsonl({ type: 'session', version: 1, id, createdAt: '2026-01-02T03:04:05.006Z' }, ...log);
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    expect((await a.postText('/sessions/import', body, 'application/x-ndjson').expect(201)).body).toEqual({ sessionId: id, entries: 12_000, warnings: [] });
    expect((await a.get(`/sessions/${id}/entries`).expect(200)).body.entries).toHaveLength(12_000);
  });
});
