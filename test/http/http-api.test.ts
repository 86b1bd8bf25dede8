// The HTTP API end to end over supertest, on SQLite (the stores' conformance
// suites run on every database): every route's success answer and body, and
// every error status the docs promise (docs/guide/http-api.md). After each test, every error answer
// the test received is checked: JSON `{ statusCode, error, message }`, never a
// 500, never a stack trace.
import { STATUS_CODES } from 'node:http';
import pg from 'pg';
import type { Response } from 'supertest';
import { describeWith, freshPostgresUrl, POSTGRESQL, postgresServerUrl } from '../support/databases.js';
import { hasPostgresBinaries, startPostgres, stopServer } from '../support/test-servers.js';
import {
  bootHttpApp,
  caseName,
  Client,
  expectError,
  expectEveryErrorClean,
  jsonl,
  KEY_A,
  KEY_B,
  rawRequest,
  ROUTES,
  send,
  TENANT_A,
  type HttpApp,
} from '../support/http-api.js';
import { MAX_JSON_DEPTH } from '../../src/index.js';
import '../../src/testing/kit-binding.js';

let h: HttpApp;
let a: Client;
let anonymous: Client;
beforeAll(async () => {
  h = await bootHttpApp();
  a = new Client(h.server, KEY_A);
  anonymous = new Client(h.server, null);
});
afterAll(() => h?.close());
afterEach(expectEveryErrorClean);

let counter = 0;
const unique = (label: string) => `${label}-${++counter}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ok(pending: PromiseLike<Response>, status: number): Promise<Response> {
  const response = await pending;
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  return response;
}

async function createSession(body: object = {}): Promise<string> {
  return (await ok(a.post('/sessions', body), 201)).body.id as string;
}

/** Every page of a paged route, with `limit`: the pages' messages in order. */
async function allPages(path: string, limit: number): Promise<{ messages: unknown[]; pages: number }> {
  const messages: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response: Response = await ok(a.get(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200);
    expect(Object.keys(response.body).sort()).toEqual(path.endsWith('/history') ? ['messages', 'nextCursor', 'startSeq'] : ['messages', 'nextCursor']);
    expect(response.body.messages.length).toBeLessThanOrEqual(limit);
    if (response.body.nextCursor !== null) expect(response.body.messages).toHaveLength(limit);
    messages.push(...response.body.messages);
    cursor = response.body.nextCursor;
    pages++;
  } while (cursor);
  return { messages, pages };
}

const contents = (messages: { content: unknown }[]) => messages.map((message) => message.content);
/** A page cursor written by hand: base64url JSON, as the store writes its own. */
const forge = (...value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** `n` arrays nested inside one another. */
const nest = (n: number): unknown => (n === 0 ? 'leaf' : [nest(n - 1)]);
const toolCall = { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris', days: [1, 2] } };
const toolResult = { type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { celsius: 18.5, sunny: true, note: null } };

describe('sessions', () => {
  test("POST /sessions without a body: 201 with the full header, a generated UUID, in the caller's tenant; GET /sessions/:id answers it again", async () => {
    const created = await ok(a.post('/sessions'), 201);
    expect(created.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'forkedFrom', 'id', 'metadata', 'parentId', 'tenantId', 'title', 'updatedAt']);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      tenantId: TENANT_A,
      title: null,
      parentId: null,
      forkedFrom: null,
      metadata: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect((await ok(a.get(`/sessions/${created.body.id}`), 200)).body).toEqual(created.body);
  });

  test('POST /sessions keeps id, title, metadata and parentId as given; the parent lists the child', async () => {
    const parent = await createSession({ id: unique('parent') });
    const metadata = { nested: { list: [1, 'two', { three: 3 }], none: null, flag: false }, unicode: 'ünï 😀', number: -1.5e-3 };
    const child = await ok(a.post('/sessions', { id: unique('child'), title: 'Child chat', parentId: parent, metadata }), 201);
    expect(child.body).toMatchObject({ title: 'Child chat', parentId: parent, metadata, tenantId: TENANT_A });
    expect((await ok(a.get(`/sessions/${child.body.id}`), 200)).body).toEqual(child.body);
    expect((await ok(a.get(`/sessions/${parent}/subsessions`), 200)).body).toEqual({ subsessions: [child.body.id] });
  });

  test('ids with characters that need escaping in a URL work on every route', async () => {
    for (const id of ['with/slash', 'with space inside', 'ünïcödé-😀', 'q?x=1#frag', '%41%2F', 'a+b&c=d']) {
      await ok(a.post('/sessions', { id }), 201);
      const path = `/sessions/${encodeURIComponent(id)}`;
      expect((await ok(a.get(path), 200)).body.id).toBe(id);
      expect((await ok(a.post(`${path}/messages`, { role: 'user', content: id }), 201)).body.seq).toBe(1);
      expect((await ok(a.get(`${path}/history`), 200)).body.messages.map((m: { content: string }) => m.content)).toEqual([id]);
      expect((await ok(a.get(`${path}/export`), 200)).text.split('\n')[0]).toContain(JSON.stringify(id));
      await ok(a.delete(path), 204);
      expectError(await a.get(path), 404, `session ${id} does not exist`);
    }
  });

  describe('GET /sessions', () => {
    let parent: string;
    let children: { id: string; createdAt: string }[];
    beforeAll(async () => {
      parent = await createSession({ id: unique('list-parent') });
      children = [];
      for (let i = 0; i < 5; i++) {
        children.push((await ok(a.post('/sessions', { id: unique(`list-child-${i}`), parentId: parent }), 201)).body);
        await sleep(3); // distinct createdAt
      }
    });
    const newestFirst = () => [...children].reverse().map((child) => child.id);
    const listIds = async (query: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const response: Response = await ok(a.get(`/sessions?${query}${cursor ? `&cursor=${cursor}` : ''}`), 200);
        expect(Object.keys(response.body).sort()).toEqual(['nextCursor', 'sessions']);
        ids.push(...response.body.sessions.map((s: { id: string }) => s.id));
        cursor = response.body.nextCursor;
      } while (cursor);
      return ids;
    };

    test('answers { sessions, nextCursor }, newest first; pages of any size concatenate to the whole list, the last with nextCursor null', async () => {
      const first = await ok(a.get(`/sessions?parentId=${parent}&limit=2`), 200);
      expect(first.body.sessions).toEqual([children[4], children[3]]);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      for (const limit of [1, 2, 3, 5, 6]) expect(await listIds(`parentId=${parent}&limit=${limit}`)).toEqual(newestFirst());
      expect((await ok(a.get(`/sessions?parentId=${parent}&limit=5`), 200)).body.nextCursor).toBeNull();
    });

    test('without a filter, holds every session of the tenant, the subsessions too', async () => {
      const ids = await listIds('limit=7');
      expect(ids).toEqual(expect.arrayContaining([parent, ...newestFirst()]));
      expect(new Set(ids).size).toBe(ids.length);
    });

    test('createdAfter and createdBefore bound the list, exclusively', async () => {
      const [, second, , fourth] = children;
      expect(await listIds(`parentId=${parent}&createdAfter=${second.createdAt}`)).toEqual(newestFirst().slice(0, 3));
      expect(await listIds(`parentId=${parent}&createdBefore=${fourth.createdAt}`)).toEqual(newestFirst().slice(2));
      expect(await listIds(`parentId=${parent}&createdAfter=${second.createdAt}&createdBefore=${fourth.createdAt}&limit=1`)).toEqual([children[2].id]);
    });

    test('parentId of a session without subsessions, or of none at all, is an empty list', async () => {
      expect((await ok(a.get(`/sessions?parentId=${children[0].id}`), 200)).body).toEqual({ sessions: [], nextCursor: null });
      expect((await ok(a.get('/sessions?parentId=no-such-parent'), 200)).body).toEqual({ sessions: [], nextCursor: null });
    });
  });

  test('PATCH /sessions/:id changes what it is given, replaces metadata whole, keeps what is omitted, and null clears', async () => {
    const id = await createSession({ id: unique('patch'), title: 'Before', metadata: { a: 1, b: 2 } });
    const created = (await ok(a.get(`/sessions/${id}`), 200)).body;
    await sleep(3);

    const retitled = await ok(a.patch(`/sessions/${id}`, { title: 'After' }), 200);
    expect(retitled.body).toMatchObject({ id, title: 'After', metadata: { a: 1, b: 2 }, createdAt: created.createdAt });
    expect(Date.parse(retitled.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toEqual(retitled.body);

    expect((await ok(a.patch(`/sessions/${id}`, { metadata: { c: [3] } }), 200)).body).toMatchObject({ title: 'After', metadata: { c: [3] } });
    expect((await ok(a.patch(`/sessions/${id}`, {}), 200)).body).toMatchObject({ title: 'After', metadata: { c: [3] } });
    expect((await ok(a.patch(`/sessions/${id}`, { title: null }), 200)).body).toMatchObject({ title: null, metadata: { c: [3] } });
    expect((await ok(a.patch(`/sessions/${id}`, { metadata: null }), 200)).body).toMatchObject({ title: null, metadata: null });
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toMatchObject({ id, title: null, metadata: null, parentId: null });
  });

  describe('DELETE /sessions/:id', () => {
    /** parent -> (kid1 -> grandkid, kid2) */
    async function tree() {
      const parent = await createSession({ id: unique('del-parent') });
      const kid1 = await createSession({ id: unique('del-kid1'), parentId: parent });
      const kid2 = await createSession({ id: unique('del-kid2'), parentId: parent });
      const grandkid = await createSession({ id: unique('del-grandkid'), parentId: kid1 });
      for (const id of [parent, kid1, kid2, grandkid]) await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: id }), 201);
      return { parent, kid1, kid2, grandkid };
    }

    test('without cascade: 204 with no body; the session is gone, its children become roots with their own subtrees', async () => {
      const { parent, kid1, kid2, grandkid } = await tree();
      const deleted = await ok(a.delete(`/sessions/${parent}`), 204);
      expect(deleted.text).toBe('');
      expectError(await a.get(`/sessions/${parent}`), 404, `session ${parent} does not exist`);
      for (const kid of [kid1, kid2]) {
        expect((await ok(a.get(`/sessions/${kid}`), 200)).body).toMatchObject({ id: kid, parentId: null });
        expect((await ok(a.get(`/sessions/${kid}/count`), 200)).body).toEqual({ count: 1 });
      }
      expect((await ok(a.get(`/sessions/${grandkid}`), 200)).body).toMatchObject({ parentId: kid1 });
      expect((await ok(a.get(`/sessions?parentId=${parent}`), 200)).body).toEqual({ sessions: [], nextCursor: null });
      expect((await ok(a.get('/sessions?limit=500'), 200)).body.sessions.map((s: { id: string }) => s.id)).not.toContain(parent);
    });

    test('?cascade=false is the same as no cascade', async () => {
      const { parent, kid1 } = await tree();
      await ok(a.delete(`/sessions/${parent}?cascade=false`), 204);
      expectError(await a.get(`/sessions/${parent}`), 404);
      expect((await ok(a.get(`/sessions/${kid1}`), 200)).body).toMatchObject({ parentId: null });
    });

    test('with ?cascade=true: 204, and the whole subtree is gone; the rest of the tree stays', async () => {
      const { parent, kid1, kid2, grandkid } = await tree();
      expect((await ok(a.delete(`/sessions/${kid1}?cascade=true`), 204)).text).toBe('');
      for (const id of [kid1, grandkid]) expectError(await a.get(`/sessions/${id}`), 404, `session ${id} does not exist`);
      expect((await ok(a.get(`/sessions/${parent}/subsessions`), 200)).body).toEqual({ subsessions: [kid2] });
      await ok(a.delete(`/sessions/${parent}?cascade=true`), 204);
      for (const id of [parent, kid2]) expectError(await a.get(`/sessions/${id}`), 404);
    });

    test('a deleted id answers 404 on every route afterwards, and cannot be created again (409)', async () => {
      const { parent, grandkid } = await tree();
      await ok(a.delete(`/sessions/${parent}?cascade=true`), 204);
      const free = await createSession();
      for (const id of [parent, grandkid]) {
        for (const c of ROUTES.filter((c) => c.route.includes(':id'))) {
          const response = await send(a, c, id, free);
          expect({ case: caseName(c), status: response.status }).toEqual({ case: caseName(c), status: 404 });
          expectError(response, 404);
        }
        expectError(await a.post('/sessions', { id }), 409);
      }
      expect((await ok(a.get(`/sessions/${free}`), 200)).body).toMatchObject({ parentId: null });
    });
  });
});

describe('POST /sessions/:id/fork', () => {
  test("201 with the fork's header: the source's history up to the point, in the caller's tenant; the source lists it", async () => {
    const source = await createSession({ title: 'Trip' });
    await ok(
      a.post(`/sessions/${source}/messages/batch`, {
        messages: [
          { role: 'user', content: 'Rome?' },
          { role: 'assistant', content: 'Rome.' },
          { role: 'user', content: 'Paris?' },
        ],
      }),
      201,
    );
    const fork = (await ok(a.post(`/sessions/${source}/fork`, { id: unique('fork'), at: { seq: 2 } }), 201)).body;
    expect(fork).toMatchObject({ title: 'Trip', tenantId: TENANT_A, parentId: null, forkedFrom: { sessionId: source, seq: 2 } });
    expect((await ok(a.get(`/sessions/${fork.id}/history`), 200)).body.messages.map((m: { content: string }) => m.content)).toEqual(['Rome?', 'Rome.']);
    expect((await ok(a.get(`/sessions?forkedFrom=${source}`), 200)).body.sessions.map((s: { id: string }) => s.id)).toEqual([fork.id]);
    expect((await ok(a.get(`/sessions/${fork.id}`), 200)).body.forkedFrom).toEqual({ sessionId: source, seq: 2 });
  });

  test('edit and regenerate: replaceLastUserMessage ends the fork with the edited message', async () => {
    const source = await createSession();
    await ok(
      a.post(`/sessions/${source}/messages/batch`, {
        messages: [
          { role: 'user', content: 'Rome?' },
          { role: 'assistant', content: 'Rome.' },
        ],
      }),
      201,
    );
    const fork = (await ok(a.post(`/sessions/${source}/fork`, { replaceLastUserMessage: { role: 'user', content: 'Paris?' } }), 201)).body;
    expect((await ok(a.get(`/sessions/${fork.id}/history`), 200)).body.messages).toMatchObject([{ role: 'user', content: 'Paris?', seq: 1 }]);
  });

  test('400 for a bad point or a point between a tool call and its result, 409 for a taken id, 404 for an unknown source', async () => {
    const source = await createSession();
    const call = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }] };
    await ok(a.post(`/sessions/${source}/messages/batch`, { messages: [{ role: 'user', content: 'go' }, call] }), 201);
    expectError(await a.post(`/sessions/${source}/fork`, { at: { seq: 9 } }), 400);
    expectError(await a.post(`/sessions/${source}/fork`, { at: { seq: 1, position: 1 } }), 400);
    expectError(await a.post(`/sessions/${source}/fork`, { at: 'end' }), 400);
    expectError(await a.post(`/sessions/${source}/fork`, { depth: 1 }), 400);
    expectError(await a.post(`/sessions/${source}/fork`, {}), 400, /tool calls without their results/);
    const repaired = (await ok(a.post(`/sessions/${source}/fork`, { unansweredToolCalls: 'repair' }), 201)).body;
    expect((await ok(a.get(`/sessions/${repaired.id}/history`), 200)).body.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
    expectError(await a.post(`/sessions/${source}/fork`, { id: source, at: { position: 1 } }), 409);
    expectError(await a.post(`/sessions/${unique('missing')}/fork`, {}), 404);
  });
});

describe('messages', () => {
  test('POST /sessions/:id/messages: 201 with the stored message and its seq; what was given is kept exactly', async () => {
    const id = await createSession();
    const first = await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'What is the weather?' }), 201);
    expect(first.body).toEqual({ seq: 1, role: 'user', content: 'What is the weather?', createdAt: expect.stringMatching(ISO) });

    const given = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Checking.' }, toolCall],
      id: 'my-msg-1',
      metadata: { model: 'x', tokens: 12 },
      createdAt: '2025-05-06T07:08:09.010Z',
    };
    const second = await ok(a.post(`/sessions/${id}/messages`, given), 201);
    expect(second.body).toEqual({ ...given, seq: 2 });
    const third = await ok(a.post(`/sessions/${id}/messages`, { role: 'tool', content: [toolResult] }), 201);
    expect(third.body).toMatchObject({ seq: 3, role: 'tool', content: [toolResult] });
    expect((await ok(a.get(`/sessions/${id}/history`), 200)).body).toEqual({ messages: [first.body, second.body, third.body], nextCursor: null, startSeq: 1 });
  });

  test('values JSON would lose travel as their text with valueTypes: bytes, URL and Dates, NUL characters and key order come back as sent, in responses, pages and exports', async () => {
    const id = await createSession();
    const bytes = Buffer.from([0, 137, 80, 78, 71, 255]).toString('base64');
    const given = {
      role: 'user',
      content: [
        { type: 'text', text: 'NUL \u0000 here', zeta: 1, alpha: 2 },
        { type: 'image', image: bytes, mediaType: 'image/png' },
        { type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
      ],
      metadata: { z: 1, a: { y: 2, b: 3 }, at: '2025-05-06T07:08:09.010Z' },
      providerOptions: { openai: { reasoningEffort: 'low' } },
      createdAt: '2025-05-06T07:08:09.010Z',
      valueTypes: [
        [['content', 1, 'image'], 'Uint8Array'],
        [['content', 2, 'data'], 'URL'],
        [['metadata', 'at'], 'Date'],
      ],
    };
    const stored = await ok(a.post(`/sessions/${id}/messages`, given), 201);
    // The response is the message as sent, key for key and in order.
    expect(stored.body).toEqual({ ...given, seq: 1 });
    expect(Object.keys(stored.body.content[0])).toEqual(['type', 'text', 'zeta', 'alpha']);
    expect(Object.keys(stored.body.metadata)).toEqual(['z', 'a', 'at']);
    expect((await ok(a.get(`/sessions/${id}/history`), 200)).body.messages).toEqual([stored.body]);
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body.messages).toEqual([stored.body]);
    const exported = (await ok(a.get(`/sessions/${id}/export`), 200)).text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(exported[1]).toEqual({ type: 'message', seq: 1, message: given });
    // The same message appended again (a retried request) is the stored one, not a second row.
    const retried = await ok(a.post(`/sessions/${id}/messages/batch`, { messages: [{ ...given, id: 'm1' }] }), 201);
    expect((await ok(a.post(`/sessions/${id}/messages/batch`, { messages: [{ ...given, id: 'm1' }] }), 201)).body).toEqual(retried.body);
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 2 });
    expectError(await a.post(`/sessions/${id}/messages`, { role: 'user', content: 'other', id: 'm1' }), 409, /already holds message id "m1"/);
  });

  test('POST /sessions/:id/messages/batch: 201 { messages } with consecutive seqs; an empty batch is 201 { messages: [] }', async () => {
    const id = await createSession();
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'zero' }), 201);
    const batch = await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: [toolCall] },
          { role: 'tool', content: [toolResult] },
        ],
      }),
      201,
    );
    expect(batch.body.messages.map((m: { seq: number; role: string }) => [m.seq, m.role])).toEqual([
      [2, 'user'],
      [3, 'assistant'],
      [4, 'tool'],
    ]);
    expect(batch.body.messages[1]).toEqual({ seq: 3, role: 'assistant', content: [toolCall], createdAt: expect.stringMatching(ISO) });
    expect((await ok(a.post(`/sessions/${id}/messages/batch`, { messages: [] }), 201)).body).toEqual({ messages: [] });
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 4 });
  });

  test('a batch with one bad message stores none of it (400)', async () => {
    const id = await createSession();
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'kept' }), 201);
    expectError(
      await a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'fine' },
          { role: 'user', content: 'bad \ud800' },
        ],
      }),
      400,
      /surrogate/,
    );
    expectError(
      await a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'fine' },
          { role: 'robot', content: 'x' },
        ],
      }),
      400,
    );
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body.messages.map((m: { content: string }) => m.content)).toEqual(['kept']);
  });

  describe('history, compaction, count and transcript', () => {
    let id: string;
    const log = ['u1', 'a1', 'u2', 'a2', 'u3', 'a3'];
    beforeAll(async () => {
      id = await createSession({ id: unique('compacted') });
      await ok(a.post(`/sessions/${id}/messages/batch`, { messages: log.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })) }), 201);
    });

    test('POST compactions: 204 with no body; the effective history is the summary, the retained message, then what followed', async () => {
      const compacted = await ok(
        a.post(`/sessions/${id}/compactions`, {
          messages: [
            { role: 'system', content: 'Summary of u1..a2' },
            { role: 'assistant', content: 'a2 (kept)' },
          ],
          sourceMessageCount: 4,
          retainedMessageCount: 1,
        }),
        204,
      );
      expect(compacted.text).toBe('');
      expect((await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'u4' }), 201)).body.seq).toBe(8);

      const history = await ok(a.get(`/sessions/${id}/history`), 200);
      expect(history.body.nextCursor).toBeNull();
      expect(history.body.messages.map((m: { seq: number | null; content: string }) => [m.seq, m.content])).toEqual([
        [null, 'Summary of u1..a2'],
        [null, 'a2 (kept)'],
        [5, 'u3'],
        [6, 'a3'],
        [8, 'u4'],
      ]);
      expect(history.body.messages[0]).toEqual({ seq: null, role: 'system', content: 'Summary of u1..a2', createdAt: expect.stringMatching(ISO) });
    });

    test('GET count is the length of the effective history after the compaction', async () => {
      expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 5 });
    });

    test('history pages of every size concatenate to the whole effective history, across the compaction', async () => {
      const full = (await ok(a.get(`/sessions/${id}/history?limit=1000`), 200)).body.messages;
      expect(full).toHaveLength(5);
      for (const limit of [1, 2, 3, 4, 5, 6]) {
        const { messages, pages } = await allPages(`/sessions/${id}/history`, limit);
        expect({ limit, messages }).toEqual({ limit, messages: full });
        expect(pages).toBe(Math.max(1, Math.ceil(5 / limit)));
      }
    });

    test('GET transcript holds every message as appended, whatever was compacted, and its pages concatenate to it', async () => {
      const transcript = await ok(a.get(`/sessions/${id}/transcript`), 200);
      expect(transcript.body.nextCursor).toBeNull();
      expect(transcript.body.messages.map((m: { seq: number; content: string }) => [m.seq, m.content])).toEqual([
        ...log.map((content, i) => [i + 1, content]),
        [8, 'u4'],
      ]);
      for (const limit of [1, 2, 3, 7, 8]) {
        expect((await allPages(`/sessions/${id}/transcript`, limit)).messages).toEqual(transcript.body.messages);
      }
    });

    test('a history cursor handed out before a compaction is stale afterwards (409); a transcript cursor is not', async () => {
      const historyPage = await ok(a.get(`/sessions/${id}/history?limit=2`), 200);
      const transcriptPage = await ok(a.get(`/sessions/${id}/transcript?limit=2`), 200);
      await ok(
        a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 'Summary 2' }], sourceMessageCount: 2, retainedMessageCount: 0 }),
        204,
      );
      expectError(await a.get(`/sessions/${id}/history?limit=2&cursor=${historyPage.body.nextCursor}`), 409, /compacted|read it again/);
      const rest = await ok(a.get(`/sessions/${id}/transcript?limit=100&cursor=${transcriptPage.body.nextCursor}`), 200);
      expect(rest.body.messages.map((m: { content: string }) => m.content)).toEqual(['u2', 'a2', 'u3', 'a3', 'u4']);
      expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 4 });
    });
  });

  test('PUT history replaces the whole log (200 { messages }, seqs never reused); old cursors are stale (409)', async () => {
    const id = await createSession();
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'old1' },
          { role: 'assistant', content: 'old2' },
          { role: 'user', content: 'old3' },
        ],
      }),
      201,
    );
    const historyCursor = (await ok(a.get(`/sessions/${id}/history?limit=1`), 200)).body.nextCursor;
    const transcriptCursor = (await ok(a.get(`/sessions/${id}/transcript?limit=1`), 200)).body.nextCursor;

    const replaced = await ok(
      a.put(`/sessions/${id}/history`, {
        messages: [
          { role: 'system', content: 'new1' },
          { role: 'user', content: 'new2', metadata: { k: 1 } },
        ],
      }),
      200,
    );
    expect(replaced.body).toEqual({
      messages: [
        { seq: 4, role: 'system', content: 'new1', createdAt: expect.stringMatching(ISO) },
        { seq: 5, role: 'user', content: 'new2', metadata: { k: 1 }, createdAt: expect.stringMatching(ISO) },
      ],
    });
    expect((await ok(a.get(`/sessions/${id}/history`), 200)).body).toEqual({ messages: replaced.body.messages, nextCursor: null, startSeq: 4 });
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body).toEqual({ messages: replaced.body.messages, nextCursor: null });
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 2 });
    expectError(await a.get(`/sessions/${id}/history?cursor=${historyCursor}`), 409);
    expectError(await a.get(`/sessions/${id}/transcript?cursor=${transcriptCursor}`), 409);
  });

  test('DELETE history: 204 with no body, then count 0 and nothing in any view; the session stays, and seqs go on', async () => {
    const id = await createSession({ title: 'Cleared' });
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
        ],
      }),
      201,
    );
    await ok(a.post(`/sessions/${id}/entries`, { type: 'note' }), 201);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 's' }], sourceMessageCount: 1, retainedMessageCount: 0 }), 204);
    await ok(
      a.post(`/sessions/${id}/repairs`, {
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'r' }] },
        balancedMessages: [],
        sourceMessageCount: 0,
      }),
      204,
    );
    const historyCursor = (await ok(a.get(`/sessions/${id}/history?limit=1`), 200)).body.nextCursor;

    const cleared = await ok(a.delete(`/sessions/${id}/history`), 204);
    expect(cleared.text).toBe('');
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 0 });
    expect((await ok(a.get(`/sessions/${id}/history`), 200)).body).toEqual({ messages: [], nextCursor: null, startSeq: null });
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body).toEqual({ messages: [], nextCursor: null });
    expect((await ok(a.get(`/sessions/${id}/entries`), 200)).body).toEqual({ entries: [] });
    expect((await ok(a.get(`/sessions/${id}/repairs`), 200)).body).toEqual({ repairs: [] });
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toMatchObject({ id, title: 'Cleared' });
    expectError(await a.get(`/sessions/${id}/history?cursor=${historyCursor}`), 409);
    expect((await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'after' }), 201)).body.seq).toBeGreaterThan(5);
    await ok(a.delete(`/sessions/${id}/history`), 204);
  });

  test('POST repairs: 204; GET repairs lists the evidence oldest first; the history is the balanced messages, then the rest', async () => {
    const id = await createSession();
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [toolCall] },
          { role: 'user', content: 'hello?' },
        ],
      }),
      201,
    );
    expect((await ok(a.get(`/sessions/${id}/repairs`), 200)).body).toEqual({ repairs: [] });

    const repairMessage = { role: 'tool', content: [{ ...toolResult, output: { error: 'tool call was interrupted' } }], metadata: { synthetic: true } };
    const repaired = await ok(
      a.post(`/sessions/${id}/repairs`, {
        repairMessage,
        balancedMessages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: [toolCall] }, repairMessage],
        sourceMessageCount: 2,
      }),
      204,
    );
    expect(repaired.text).toBe('');
    const history = (await ok(a.get(`/sessions/${id}/history`), 200)).body.messages;
    expect(history.map((m: { seq: number | null; role: string }) => [m.seq, m.role])).toEqual([
      [null, 'user'],
      [null, 'assistant'],
      [null, 'tool'],
      [3, 'user'],
    ]);
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 4 });

    await ok(a.post(`/sessions/${id}/repairs`, { repairMessage: { role: 'system', content: 'second' }, balancedMessages: [], sourceMessageCount: 0 }), 204);
    const repairs = await ok(a.get(`/sessions/${id}/repairs`), 200);
    expect(repairs.body).toEqual({
      repairs: [
        { seq: 4, repairMessage: { ...repairMessage, createdAt: expect.stringMatching(ISO) }, sourceMessageCount: 2, createdAt: expect.stringMatching(ISO) },
        {
          seq: 5,
          repairMessage: { role: 'system', content: 'second', createdAt: expect.stringMatching(ISO) },
          sourceMessageCount: 0,
          createdAt: expect.stringMatching(ISO),
        },
      ],
    });
    // The transcript is untouched by repairs.
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2, 3]);
  });
});

describe('compactions and repairs from a history read before another one (expectedStartSeq)', () => {
  const batch = (prefix: string) => ({ messages: Array.from({ length: 10 }, (_, i) => ({ role: 'user', content: `${prefix}${i + 1}` })) });

  test.each([
    [
      'compactions',
      (text: string, source: number, expectedStartSeq: unknown) => ({
        messages: [{ role: 'system', content: text }],
        sourceMessageCount: source,
        retainedMessageCount: 0,
        expectedStartSeq,
      }),
    ],
    [
      'repairs',
      (text: string, source: number, expectedStartSeq: unknown) => ({
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'r' }] },
        balancedMessages: [{ role: 'system', content: text }],
        sourceMessageCount: source,
        expectedStartSeq,
      }),
    ],
  ])('POST %s with the startSeq of a read that another boundary followed: 409, and nothing changes', async (route, body) => {
    const id = await createSession();
    await ok(a.post(`/sessions/${id}/messages/batch`, batch('m')), 201);
    const readA = (await ok(a.get(`/sessions/${id}/history`), 200)).body;
    const readB = (await ok(a.get(`/sessions/${id}/history`), 200)).body;
    expect([readA.startSeq, readB.startSeq]).toEqual([1, 1]);
    await ok(a.post(`/sessions/${id}/${route}`, body('A', 10, readA.startSeq)), 204);
    await ok(a.post(`/sessions/${id}/messages/batch`, batch('n')), 201);
    const before = (await ok(a.get(`/sessions/${id}/export`), 200)).text;

    expectError(await a.post(`/sessions/${id}/${route}`, body('B', 10, readB.startSeq)), 409, /changed after it was read.*read it again/);
    expect((await ok(a.get(`/sessions/${id}/export`), 200)).text).toBe(before);

    const again = (await ok(a.get(`/sessions/${id}/history`), 200)).body;
    expect(again.startSeq).toBe(11);
    await ok(a.post(`/sessions/${id}/${route}`, body('B again', 11, again.startSeq)), 204);
    expect(contents((await ok(a.get(`/sessions/${id}/history`), 200)).body.messages)).toEqual(['B again']);
  });

  test('null is the startSeq of an empty history, and is checked like any other', async () => {
    const id = await createSession();
    const empty = (await ok(a.get(`/sessions/${id}/history`), 200)).body;
    expect(empty).toEqual({ messages: [], nextCursor: null, startSeq: null });
    const preamble = { messages: [{ role: 'system', content: 'preamble' }], sourceMessageCount: 0, retainedMessageCount: 0, expectedStartSeq: null };
    await ok(a.post(`/sessions/${id}/compactions`, preamble), 204);
    expectError(await a.post(`/sessions/${id}/compactions`, preamble), 409);
  });

  test('without expectedStartSeq nothing is checked, as before', async () => {
    const id = await createSession();
    await ok(a.post(`/sessions/${id}/messages/batch`, batch('m')), 201);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 'A' }], sourceMessageCount: 10, retainedMessageCount: 0 }), 204);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 'B' }], sourceMessageCount: 1, retainedMessageCount: 0 }), 204);
    expect(contents((await ok(a.get(`/sessions/${id}/history`), 200)).body.messages)).toEqual(['B']);
  });
});

describe('transcripts and subsessions', () => {
  test('PUT transcript: 200 with the stored transcript; messages, subsessions and metadata replace the old ones', async () => {
    const id = await createSession({ title: 'Kept title' });
    const [kid1, kid2, kid3] = [await createSession(), await createSession(), await createSession()];
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'old' }), 201);
    await ok(a.post(`/sessions/${id}/subsessions`, { childId: kid3 }), 204);

    const saved = await ok(
      a.put(`/sessions/${id}/transcript`, {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        subsessions: [kid1, kid2],
        metadata: { run: 7 },
      }),
      200,
    );
    expect(saved.body).toEqual({
      messages: [
        { seq: 2, role: 'user', content: 'hi', createdAt: expect.stringMatching(ISO) },
        { seq: 3, role: 'assistant', content: 'hello', createdAt: expect.stringMatching(ISO) },
      ],
      subsessions: [kid1, kid2],
      metadata: { run: 7 },
    });
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body).toEqual({ messages: saved.body.messages, nextCursor: null });
    expect((await ok(a.get(`/sessions/${id}/subsessions`), 200)).body).toEqual({ subsessions: [kid1, kid2] });
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toMatchObject({ title: 'Kept title', metadata: { run: 7 } });
    expect((await ok(a.get(`/sessions/${kid1}`), 200)).body).toMatchObject({ parentId: id });
    expect((await ok(a.get(`/sessions/${kid3}`), 200)).body).toMatchObject({ parentId: null });

    const emptied = await ok(a.put(`/sessions/${id}/transcript`, { messages: [] }), 200);
    expect(emptied.body).toEqual({ messages: [], subsessions: [], metadata: null });
    expect((await ok(a.get(`/sessions/${id}/subsessions`), 200)).body).toEqual({ subsessions: [] });
  });

  test('POST subsessions: 204 with no body, idempotent; GET lists the children in registration order', async () => {
    const parent = await createSession();
    const kids = [await createSession({ id: unique('zz-kid') }), await createSession({ id: unique('aa-kid') })];
    expect((await ok(a.get(`/sessions/${parent}/subsessions`), 200)).body).toEqual({ subsessions: [] });
    for (const kid of kids) expect((await ok(a.post(`/sessions/${parent}/subsessions`, { childId: kid }), 204)).text).toBe('');
    await ok(a.post(`/sessions/${parent}/subsessions`, { childId: kids[0] }), 204);
    expect((await ok(a.get(`/sessions/${parent}/subsessions`), 200)).body).toEqual({ subsessions: kids });
    expect((await ok(a.get(`/sessions/${kids[1]}`), 200)).body).toMatchObject({ parentId: parent });
  });
});

describe('entries', () => {
  test('POST entries takes a message or an event (201, each in its shape); GET entries is the whole log in order', async () => {
    const id = await createSession();
    const message = await ok(a.post(`/sessions/${id}/entries`, { role: 'user', content: 'hello', metadata: { via: 'entries' } }), 201);
    expect(message.body).toEqual({ seq: 1, role: 'user', content: 'hello', metadata: { via: 'entries' }, createdAt: expect.stringMatching(ISO) });
    const event = await ok(a.post(`/sessions/${id}/entries`, { type: 'tool-approval', data: { tool: 'weather', approved: true } }), 201);
    expect(event.body).toEqual({ seq: 2, type: 'tool-approval', data: { tool: 'weather', approved: true }, createdAt: expect.stringMatching(ISO) });
    const bare = await ok(a.post(`/sessions/${id}/entries`, { type: 'heartbeat' }), 201);
    expect(bare.body).toEqual({ seq: 3, type: 'heartbeat', data: null, createdAt: expect.stringMatching(ISO) });
    const scalar = await ok(a.post(`/sessions/${id}/entries`, { type: 'score', data: 0.75 }), 201);
    expect(scalar.body).toMatchObject({ seq: 4, data: 0.75 });
    await ok(a.post(`/sessions/${id}/messages`, { role: 'assistant', content: 'bye' }), 201);

    const entries = await ok(a.get(`/sessions/${id}/entries`), 200);
    expect(entries.body.entries).toEqual([
      message.body,
      event.body,
      bare.body,
      scalar.body,
      expect.objectContaining({ seq: 5, role: 'assistant', content: 'bye' }),
    ]);
    // Events are in the log, not in the history.
    expect((await ok(a.get(`/sessions/${id}/history`), 200)).body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 5]);
    expect((await ok(a.get(`/sessions/${id}/count`), 200)).body).toEqual({ count: 2 });
  });

  test("a binding's kinds and session ids are its own: POST entries, POST /sessions and an import refuse them with 400, and nothing is written", async () => {
    const id = await createSession();
    // The conformance kit's binding (declared as any binding is), and the package's own, loaded here or not.
    for (const type of ['conformance-kit.event', 'conformance-kit.whatever', 'openai-agents.item', 'claude-agent-sdk.entry', 'langgraph.write']) {
      expectError(await a.post(`/sessions/${id}/entries`, { type, data: { role: 'user', content: 'forged' } }), 400, /binding's: only the binding writes it/);
    }
    for (const reserved of ['conformance-kit:forged', 'claude-agent-sdk:forged']) {
      expectError(await a.post('/sessions', { id: reserved }), 400, /keeps for its own sessions/);
      expectError(await a.post(`/sessions/${reserved}/messages`, { role: 'user', content: 'x' }), 400, /keeps for its own sessions/);
    }
    const forged = jsonl(
      { type: 'session', version: 1, id: 'forged', createdAt: '2026-01-01T00:00:00.000Z' },
      { type: 'event', seq: 1, event: { type: 'conformance-kit.keyed', data: { id: 'a' } }, createdAt: '2026-01-01T00:00:00.000Z', key: 'k:forged' },
    );
    expectError(await a.postText(`/sessions/import?sessionId=${unique('forged')}`, forged, 'application/x-ndjson'), 400, /not the key its binding gives/);
    expect((await ok(a.get(`/sessions/${id}/entries`), 200)).body).toEqual({ entries: [] });
  });
});

describe('GET /sessions/:id/log', () => {
  test('the whole log a page at a time, each entry as its export line; fromSeq starts at a seq', async () => {
    const id = await createSession();
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'q1' },
          { role: 'assistant', content: [toolCall] },
        ],
      }),
      201,
    );
    await ok(a.post(`/sessions/${id}/entries`, { type: 'approval', data: { ok: true } }), 201);
    await ok(a.post(`/sessions/${id}/messages`, { role: 'tool', content: [toolResult] }), 201);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 'sum' }], sourceMessageCount: 2, retainedMessageCount: 0 }), 204);
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'q2' }), 201);
    const exported = (await ok(a.get(`/sessions/${id}/export`), 200)).text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as object);
    const entries: object[] = [];
    let cursor: string | null = null;
    do {
      const page: Response = await ok(a.get(`/sessions/${id}/log?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 200);
      expect(Object.keys(page.body).sort()).toEqual(['entries', 'nextCursor']);
      expect(page.body.entries.length).toBeLessThanOrEqual(2);
      entries.push(...page.body.entries);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(entries).toEqual(exported);
    expect(entries.map((entry) => (entry as { type: string }).type)).toEqual(['message', 'message', 'event', 'message', 'compaction', 'message']);
    const from = await ok(a.get(`/sessions/${id}/log?fromSeq=5`), 200);
    expect(from.body).toEqual({ entries: exported.slice(4), nextCursor: null });
  });

  test('400 for a bad limit, fromSeq or cursor; 404 for an unknown session', async () => {
    const id = await createSession();
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'q1' },
          { role: 'user', content: 'q2' },
        ],
      }),
      201,
    );
    const { nextCursor } = (await ok(a.get(`/sessions/${id}/log?limit=1`), 200)).body as { nextCursor: string };
    for (const query of [
      'limit=0',
      'limit=1001',
      'fromSeq=0',
      'fromSeq=1e2',
      'fromSeq=-1',
      'fromSeq=2147483648',
      `fromSeq=1&cursor=${encodeURIComponent(nextCursor)}`,
      'cursor=forged',
      'after=1',
    ]) {
      expectError(await a.get(`/sessions/${id}/log?${query}`), 400);
    }
    expectError(await a.get(`/sessions/${unique('missing')}/log`), 404);
  });
});

describe('GET /sessions?search', () => {
  test('finds the sessions whose id or title contains the text, in either case, a page at a time', async () => {
    const marker = unique('needle');
    const byId = await createSession({ id: `${marker}-by-id` });
    const byTitle = await createSession({ title: `About ${marker.toUpperCase()}` });
    await createSession({ title: 'something else' });
    const first = await ok(a.get(`/sessions?search=${marker}&limit=1`), 200);
    const second = await ok(a.get(`/sessions?search=${marker}&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`), 200);
    expect([...first.body.sessions, ...second.body.sessions].map((meta: { id: string }) => meta.id).sort()).toEqual([byId, byTitle].sort());
    expect(second.body.nextCursor).toBeNull();
    for (const query of ['search=', `search=${'x'.repeat(201)}`, 'search=a&search=b']) expectError(await a.get(`/sessions?${query}`), 400);
  });
});

describe('export and import', () => {
  /** A session with a bit of everything: messages, an event, a compaction, a repair, two subsessions. */
  async function richSession() {
    const id = await createSession({ id: unique('rich'), title: 'Rich', metadata: { rich: true } });
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'q1', id: 'm1' },
          { role: 'assistant', content: [toolCall], metadata: { t: 1 } },
        ],
      }),
      201,
    );
    await ok(a.post(`/sessions/${id}/entries`, { type: 'approval', data: { ok: true } }), 201);
    await ok(a.post(`/sessions/${id}/messages`, { role: 'tool', content: [toolResult] }), 201);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 'sum' }], sourceMessageCount: 2, retainedMessageCount: 0 }), 204);
    await ok(
      a.post(`/sessions/${id}/repairs`, {
        repairMessage: { role: 'system', content: 'fix' },
        balancedMessages: [{ role: 'system', content: 'sum2' }],
        sourceMessageCount: 1,
      }),
      204,
    );
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'q2' }), 201);
    const kids = [await createSession({ id: unique('rich-kid') }), await createSession({ id: unique('rich-kid') })];
    for (const kid of kids) await ok(a.post(`/sessions/${id}/subsessions`, { childId: kid }), 204);
    return { id, kids };
  }

  const views = async (id: string) => ({
    history: (await ok(a.get(`/sessions/${id}/history`), 200)).body,
    transcript: (await ok(a.get(`/sessions/${id}/transcript`), 200)).body,
    entries: (await ok(a.get(`/sessions/${id}/entries`), 200)).body,
    repairs: (await ok(a.get(`/sessions/${id}/repairs`), 200)).body,
    count: (await ok(a.get(`/sessions/${id}/count`), 200)).body,
    subsessions: (await ok(a.get(`/sessions/${id}/subsessions`), 200)).body,
  });

  test('GET export streams application/x-ndjson: a header line, the log in seq order, then the subsession lines', async () => {
    const { id, kids } = await richSession();
    const exported = await ok(a.get(`/sessions/${id}/export`), 200);
    expect(exported.headers['content-type']).toBe('application/x-ndjson');
    expect(exported.headers['transfer-encoding']).toBe('chunked');
    expect(exported.headers['content-length']).toBeUndefined();
    expect(exported.text.endsWith('\n')).toBe(true);
    const lines = exported.text
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({
      type: 'session',
      version: 1,
      id,
      tenantId: TENANT_A,
      title: 'Rich',
      metadata: { rich: true },
      createdAt: expect.stringMatching(ISO),
    });
    expect(lines.slice(1).map((line) => [line.type, line.seq])).toEqual([
      ['message', 1],
      ['message', 2],
      ['event', 3],
      ['message', 4],
      ['compaction', 5],
      ['repair', 6],
      ['message', 7],
      ['subsession', undefined],
      ['subsession', undefined],
    ]);
    expect(lines[1]).toEqual({ type: 'message', seq: 1, message: { role: 'user', content: 'q1', id: 'm1', createdAt: expect.stringMatching(ISO) } });
    expect(lines[3]).toEqual({ type: 'event', seq: 3, event: { type: 'approval', data: { ok: true } }, createdAt: expect.stringMatching(ISO) });
    expect(lines.slice(-2)).toEqual(kids.map((childId) => ({ type: 'subsession', childId })));
  });

  test('an export imported back (POST /sessions/import, application/x-ndjson) is the same session: 201, and its export is the same text', async () => {
    const { id, kids } = await richSession();
    const exported = (await ok(a.get(`/sessions/${id}/export`), 200)).text;
    const original = await views(id);
    // The subsessions have one parent at most: free them first by deleting the original (its children become roots).
    await ok(a.delete(`/sessions/${id}`), 204);

    const copy = unique('copy');
    const imported = await ok(a.postText(`/sessions/import?sessionId=${copy}`, exported, 'application/x-ndjson'), 201);
    expect(imported.body).toEqual({ sessionId: copy, entries: 7, warnings: [] });
    expect((await ok(a.get(`/sessions/${copy}/export`), 200)).text).toBe(exported.replace(`"id":"${id}"`, `"id":"${copy}"`));
    expect(await views(copy)).toEqual(original);
    expect((await ok(a.get(`/sessions/${copy}`), 200)).body).toMatchObject({ title: 'Rich', metadata: { rich: true }, tenantId: TENANT_A });
    for (const kid of kids) expect((await ok(a.get(`/sessions/${kid}`), 200)).body).toMatchObject({ parentId: copy });
  });

  test("without ?sessionId the import takes the header's id; into an existing empty session it is allowed", async () => {
    const id = unique('header-id');
    const body = jsonl(
      { type: 'session', version: 1, id, tenantId: null, title: 'From header', metadata: { m: 1 }, createdAt: '2024-02-03T04:05:06.007Z' },
      { type: 'message', seq: 1, message: { role: 'user', content: 'imported', createdAt: '2024-02-03T04:05:07.000Z' } },
    );
    expect((await ok(a.postText('/sessions/import', body, 'application/x-ndjson'), 201)).body).toEqual({ sessionId: id, entries: 1, warnings: [] });
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toMatchObject({
      id,
      tenantId: TENANT_A,
      title: 'From header',
      metadata: { m: 1 },
      createdAt: '2024-02-03T04:05:06.007Z',
    });

    const empty = await createSession();
    expect((await ok(a.postText(`/sessions/import?sessionId=${empty}`, body, 'application/x-ndjson'), 201)).body).toEqual({
      sessionId: empty,
      entries: 1,
      warnings: [],
    });
    expect((await ok(a.get(`/sessions/${empty}/history`), 200)).body.messages).toEqual([
      { seq: 1, role: 'user', content: 'imported', createdAt: '2024-02-03T04:05:07.000Z' },
    ]);
  });

  test("a tree restored file by file, parent first: the child's own file gives it back its header", async () => {
    const [parent, child] = [unique('tree-parent'), unique('tree-child')];
    const header = (id: string, fields: object) => ({ type: 'session', version: 1, id, tenantId: null, createdAt: '2024-03-01T00:00:00.000Z', ...fields });
    const parentFile = jsonl(header(parent, { title: 'Parent' }), { type: 'subsession', childId: child });
    const childFile = jsonl(header(child, { title: 'Child', metadata: { agent: 'flights' }, createdAt: '2024-03-01T00:00:05.000Z' }), {
      type: 'message',
      seq: 1,
      message: { role: 'user', content: 'find flights', createdAt: '2024-03-01T00:00:06.000Z' },
    });
    await ok(a.postText('/sessions/import', parentFile, 'application/x-ndjson'), 201);
    await ok(a.postText('/sessions/import', childFile, 'application/x-ndjson'), 201);
    expect((await ok(a.get(`/sessions/${child}`), 200)).body).toMatchObject({
      parentId: parent,
      tenantId: TENANT_A,
      title: 'Child',
      metadata: { agent: 'flights' },
      createdAt: '2024-03-01T00:00:05.000Z',
    });
    expect((await ok(a.get(`/sessions/${child}/transcript`), 200)).body.messages).toHaveLength(1);

    // A copy of the parent cannot take the child, which is the parent's: 409 saying what to do; ?subsessions=omit copies it alone.
    const copy = unique('tree-copy');
    const refused = await ok(a.postText(`/sessions/import?sessionId=${copy}`, parentFile, 'application/x-ndjson'), 409);
    expect(refused.body.message).toMatch(/already a subsession of .*subsessions: 'omit'/);
    await ok(a.get(`/sessions/${copy}`), 404);
    await ok(a.postText(`/sessions/import?sessionId=${copy}&subsessions=omit`, parentFile, 'application/x-ndjson'), 201);
    expect((await ok(a.get(`/sessions/${copy}`), 200)).body).toMatchObject({ title: 'Parent' });
    expect((await ok(a.get(`/sessions/${copy}/subsessions`), 200)).body).toEqual({ subsessions: [] });
    await ok(a.postText(`/sessions/import?sessionId=${unique('x')}&subsessions=copy`, parentFile, 'application/x-ndjson'), 400);
  });

  test('a body that starts with a byte-order mark imports; a seq past 1,000,000,000 is a 400', async () => {
    const id = unique('bom');
    const body = jsonl(
      { type: 'session', version: 1, id, tenantId: null, title: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z' },
      { type: 'message', seq: 1, message: { role: 'user', content: 'one', createdAt: '2024-01-01T00:00:01.000Z' } },
    );
    expect((await ok(a.postText('/sessions/import', `\uFEFF${body}`, 'application/x-ndjson'), 201)).body).toEqual({ sessionId: id, entries: 1, warnings: [] });
    const far = await ok(a.postText(`/sessions/import?sessionId=${unique('far')}`, body.replace('"seq":1', '"seq":2147483647'), 'application/x-ndjson'), 400);
    expect(far.body.message).toMatch(/line 2: seq must be an integer from 1 to 1000000000/);
  });

  test('imports into a session cleared again and again (DELETE history) cost its counter one seq an entry: it can still take messages', async () => {
    const id = unique('cleared');
    const file = (seq: number) =>
      jsonl(
        { type: 'session', version: 1, id, tenantId: null, title: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z' },
        { type: 'message', seq, message: { role: 'user', content: 'one', createdAt: '2024-01-01T00:00:01.000Z' } },
      );
    await ok(a.postText('/sessions/import', file(1_000_000_000), 'application/x-ndjson'), 201);
    for (const seq of [1_000_000_000, 147_483_647]) {
      await ok(a.delete(`/sessions/${id}/history`), 204);
      await ok(a.postText(`/sessions/import?sessionId=${id}`, file(seq), 'application/x-ndjson'), 201);
    }
    expect((await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'more' }), 201)).body.seq).toBe(1_000_000_003);
  });

  test('an import whose last line was cut short by a crash: 201, the line skipped with a warning', async () => {
    const id = unique('truncated');
    const complete = jsonl(
      { type: 'session', version: 1, id, tenantId: null, title: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z' },
      { type: 'message', seq: 1, message: { role: 'user', content: 'one', createdAt: '2024-01-01T00:00:01.000Z' } },
      { type: 'message', seq: 2, message: { role: 'assistant', content: 'two', createdAt: '2024-01-01T00:00:02.000Z' } },
    );
    const cut = `${complete}{"type":"message","seq":3,"message":{"role":"user","con`;
    const imported = await ok(a.postText('/sessions/import', cut, 'application/x-ndjson'), 201);
    expect(imported.body).toEqual({ sessionId: id, entries: 2, warnings: [expect.stringMatching(/line 4 .*skipped/)] });
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body.messages.map((m: { content: string }) => m.content)).toEqual(['one', 'two']);
  });
});

describe('GET /health', () => {
  test('answers 200 { status, info, error, details } without a key, and with a wrong one', async () => {
    const expected = { status: 'ok', info: { agentStore: { status: 'up' } }, error: {}, details: { agentStore: { status: 'up' } } };
    expect((await ok(anonymous.get('/health'), 200)).body).toEqual(expected);
    expect((await ok(new Client(h.server, 'not-a-key-of-this-app-at-all').get('/health'), 200)).body).toEqual(expected);
  });
});

describe('400: bad input', () => {
  let id: string;
  let other: string;
  beforeAll(async () => {
    id = await createSession({ id: unique('bad-input') });
    other = await createSession({ id: unique('bad-input-other') });
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'three' },
        ],
      }),
      201,
    );
  });
  const json = (method: 'post' | 'put' | 'patch', path: () => string, body: unknown) => () => a[method](path(), body);
  const text = (path: () => string, body: string) => () => a.postText(path(), body);
  const session =
    (suffix = '') =>
    () =>
      `/sessions/${id}${suffix}`;

  const cases: [string, () => PromiseLike<Response>, RegExp][] = [
    // Not whitelisted
    ['a property the body does not have', json('post', () => '/sessions', { title: 'x', tenantId: 'tenant-b' }), /property tenantId should not exist/],
    [
      'a property a nested message does not have',
      json('post', session('/messages/batch'), { messages: [{ role: 'user', content: 'x', seq: 9 }] }),
      /property seq should not exist/,
    ],
    ['a property an event does not have', json('post', session('/entries'), { type: 'note', tenantId: 'tenant-b' }), /property tenantId should not exist/],
    ['a property PATCH does not take', json('patch', session(), { parentId: 'x' }), /property parentId should not exist/],
    ['a query parameter the route does not take', () => a.get('/sessions?tenantId=tenant-b'), /property tenantId should not exist/],
    ['a query parameter on a session route', () => a.get(`/sessions/${id}/history?seq=1`), /property seq should not exist/],
    // Wrong types
    ['a title that is a number', json('post', () => '/sessions', { title: 5 }), /title must be a string/],
    ['metadata that is an array', json('post', () => '/sessions', { metadata: [1] }), /metadata must be an object/],
    ['metadata that is a string', json('patch', session(), { metadata: 'x' }), /metadata must be an object/],
    ['content that is a number', json('post', session('/messages'), { role: 'user', content: 5 }), /content must be a string or an array of parts/],
    ['content parts without a type', json('post', session('/messages'), { role: 'user', content: [{ text: 'x' }] }), /content/],
    ['a role that is not one', json('post', session('/messages'), { role: 'robot', content: 'x' }), /role must be one of/],
    [
      'createdAt that is not a date',
      json('post', session('/messages'), { role: 'user', content: 'x', createdAt: 'yesterday' }),
      /createdAt must be an ISO-8601 date-time with Z or an offset/,
    ],
    ['messages that are not an array', json('post', session('/messages/batch'), { messages: 'x' }), /messages must be an array/],
    ['a message that is not an object', json('put', session('/history'), { messages: ['x'] }), /./],
    [
      'a count given as a string',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: '1', retainedMessageCount: 0 }),
      /sourceMessageCount must be an integer/,
    ],
    [
      'a count that is not an integer',
      json('post', session('/repairs'), {
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'x' }] },
        balancedMessages: [],
        sourceMessageCount: 1.5,
      }),
      /sourceMessageCount must be an integer/,
    ],
    [
      'a repair message that is not an object',
      json('post', session('/repairs'), { repairMessage: 'x', balancedMessages: [], sourceMessageCount: 0 }),
      /repairMessage/,
    ],
    ['an event type that is not a string', json('post', session('/entries'), { type: 5 }), /type must be a string/],
    ['subsessions that are not an array of strings', json('put', session('/transcript'), { messages: [], subsessions: 'x' }), /subsessions/],
    ['a JSON string as the body', text(() => '/sessions', '"a session"'), /object is expected/],
    ['a JSON array as the body', text(session('/messages'), '[{"role":"user","content":"x"}]'), /./],
    ['cascade that is not true or false', () => a.delete(`/sessions/${other}?cascade=yes`), /cascade must be a boolean/],
    ['createdAfter that is not a date', () => a.get('/sessions?createdAfter=last-tuesday'), /createdAfter must be a Date/],
    // Ids given as objects
    ['an id that is an object', json('post', () => '/sessions', { id: { contains: '' } }), /id must be a string/],
    ['a parentId that is an object', json('post', () => '/sessions', { parentId: { not: 'x' } }), /parentId must be a string/],
    ['a childId that is an object', json('post', session('/subsessions'), { childId: { contains: '' } }), /childId must be a string/],
    ['a subsession id that is an object', json('put', session('/transcript'), { messages: [], subsessions: [{ contains: '' }] }), /subsessions/],
    ['a message id that is an object', json('post', session('/messages'), { role: 'user', content: 'x', id: { in: ['a'] } }), /id must be a string/],
    ['?parentId[contains]=x', () => a.get('/sessions?parentId[contains]=x'), /parentId/],
    ['?parentId given twice', () => a.get('/sessions?parentId=a&parentId=b'), /parentId must be a string/],
    [
      '?sessionId[contains]=x on import',
      () =>
        a.postText(
          '/sessions/import?sessionId[contains]=x',
          jsonl({ type: 'session', version: 1, id: 'x', createdAt: '2024-01-01T00:00:00Z' }),
          'application/x-ndjson',
        ),
      /sessionId/,
    ],
    ['?cursor[x]=1', () => a.get(`/sessions/${id}/history?cursor[x]=1`), /cursor/],
    // Limits
    ['?limit=0 on sessions', () => a.get('/sessions?limit=0'), /limit must be an integer from 1 to 500/],
    ['?limit=501 on sessions', () => a.get('/sessions?limit=501'), /limit must be an integer from 1 to 500/],
    ['?limit=-1 on sessions', () => a.get('/sessions?limit=-1'), /limit/],
    ['?limit=abc on sessions', () => a.get('/sessions?limit=abc'), /limit must be an integer/],
    ['?limit=1.5 on history', () => a.get(`/sessions/${id}/history?limit=1.5`), /limit must be an integer/],
    ['?limit=0 on history', () => a.get(`/sessions/${id}/history?limit=0`), /limit must be an integer from 1 to 1000/],
    ['?limit=1001 on transcript', () => a.get(`/sessions/${id}/transcript?limit=1001`), /limit must be an integer from 1 to 1000/],
    ['?limit given twice', () => a.get(`/sessions/${id}/transcript?limit=1&limit=2`), /limit/],
    // Cursors
    ['a malformed sessions cursor', () => a.get('/sessions?cursor=not-a-cursor'), /cursor is not one this store handed out/],
    ['a malformed history cursor', () => a.get(`/sessions/${id}/history?cursor=!!!`), /cursor is not a history cursor/],
    ['a malformed transcript cursor', () => a.get(`/sessions/${id}/transcript?cursor=e30`), /cursor is not a transcript cursor/],
    ['an empty cursor', () => a.get(`/sessions/${id}/history?cursor=`), /cursor/],
    // Malformed bodies
    ['malformed JSON', text(() => '/sessions', '{"title": "unterminated'), /not valid JSON/],
    ['JSON with a trailing comma', text(session('/messages'), '{"role":"user","content":"x",}'), /not valid JSON/],
    ['JSON with single quotes', text(session('/messages'), "{'role':'user'}"), /not valid JSON/],
    // What the store refuses
    [
      "content in a JSONL file nested one level past the store's bound",
      () =>
        a.postText(
          '/sessions/import',
          `${jsonl({ type: 'session', version: 1, id: unique('deep-content'), createdAt: '2024-01-01T00:00:00Z' })}{"type":"message","seq":1,"message":{"role":"user","content":[{"type":"deep","value":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}]}}\n`,
          'application/x-ndjson',
        ),
      new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`),
    ],
    ['a NUL character in a title', json('post', () => '/sessions', { title: 'a\u0000b' }), /NUL/],
    ['a NUL character in a title', json('patch', session(), { title: 'a\u0000b' }), /NUL/],
    [
      'valueTypes naming a path the message does not have',
      json('post', session('/messages'), { role: 'user', content: 'a', valueTypes: [[['content', 0], 'URL']] }),
      /valueTypes name a path/,
    ],
    [
      'valueTypes with a type the store does not keep',
      json('post', session('/messages'), { role: 'user', content: [{ type: 'text', text: 'x' }], valueTypes: [[['content', 0, 'text'], 'Map']] }),
      /valueTypes must be/,
    ],
    [
      'bytes that are not base64',
      json('post', session('/messages'), {
        role: 'user',
        content: [{ type: 'image', image: 'not base64!' }],
        valueTypes: [[['content', 0, 'image'], 'Uint8Array']],
      }),
      /base64/,
    ],
    ['a NUL character in an event type', json('post', session('/entries'), { type: 'a\u0000b' }), /NUL/],
    ['a NUL character in an id in the path', () => a.get('/sessions/a%00b'), /NUL/],
    ['a NUL character in an id in the body', json('post', () => '/sessions', { id: 'a\u0000b' }), /NUL/],
    ['a lone surrogate in content', text(session('/messages'), '{"role":"user","content":"\\ud800"}'), /surrogate/],
    ['an id ending with a space', () => a.get('/sessions/trailing%20'), /must not end with a space/],
    ['an id longer than 191 characters', () => a.get(`/sessions/${'x'.repeat(192)}`), /at most 191 characters/],
    ['an empty id', json('post', () => '/sessions', { id: '' }), /non-empty/],
    ['a malformed percent-encoding in the path', () => a.get('/sessions/%E0%A4%A'), /decode/],
    ['a title longer than 65,535 bytes', json('post', () => '/sessions', { title: 'é'.repeat(32_768) }), /65,535 bytes/],
    [
      'a createdAt before the year 1000',
      json('post', session('/messages'), { role: 'user', content: 'x', createdAt: '0999-12-31T00:00:00.000Z' }),
      /years 1000 to 9999/,
    ],
    [
      'a compaction of more messages than the history has',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: 4, retainedMessageCount: 0 }),
      /exceeds the 3 messages/,
    ],
    [
      'a compaction that retains more than it replaces',
      json('post', session('/compactions'), { messages: [{ role: 'system', content: 's' }], sourceMessageCount: 0, retainedMessageCount: 1 }),
      /retainedMessageCount/,
    ],
    [
      'a negative count',
      json('post', session('/repairs'), {
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'x' }] },
        balancedMessages: [],
        sourceMessageCount: -1,
      }),
      /sourceMessageCount/,
    ],
    [
      'a count past what the database stores',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: 2 ** 31, retainedMessageCount: 0 }),
      /sourceMessageCount/,
    ],
    [
      'an expectedStartSeq given as a string',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: 0, retainedMessageCount: 0, expectedStartSeq: '1' }),
      /expectedStartSeq must be an integer/,
    ],
    [
      'an expectedStartSeq of 0',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: 0, retainedMessageCount: 0, expectedStartSeq: 0 }),
      /expectedStartSeq must not be less than 1/,
    ],
    [
      'an expectedStartSeq that is not an integer',
      json('post', session('/repairs'), {
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'x' }] },
        balancedMessages: [],
        sourceMessageCount: 0,
        expectedStartSeq: 1.5,
      }),
      /expectedStartSeq must be an integer/,
    ],
    [
      'an expectedStartSeq that is an object',
      json('post', session('/repairs'), {
        repairMessage: { role: 'tool', content: [{ type: 'text', text: 'x' }] },
        balancedMessages: [],
        sourceMessageCount: 0,
        expectedStartSeq: { gt: 0 },
      }),
      /expectedStartSeq must be an integer/,
    ],
    [
      'an expectedStartSeq past the integers',
      json('post', session('/compactions'), { messages: [], sourceMessageCount: 0, retainedMessageCount: 0, expectedStartSeq: 2 ** 53 }),
      /expectedStartSeq/,
    ],
    [
      'a history cursor into a summary the session does not have',
      () => a.get(`/sessions/${id}/history?cursor=${forge('h', id, 0, 1, 0)}`),
      /not a history cursor this store handed out/,
    ],
    [
      'a history cursor past the last seq',
      () => a.get(`/sessions/${id}/history?cursor=${forge('h', id, 0, 0, 99)}`),
      /not a history cursor this store handed out/,
    ],
    [
      'a transcript cursor past the last seq',
      () => a.get(`/sessions/${id}/transcript?cursor=${forge('t', id, 99)}`),
      /not a transcript cursor this store handed out/,
    ],
    ['an empty event type', json('post', session('/entries'), { type: '' }), /non-empty/],
    [
      'an empty ?sessionId on import',
      () =>
        a.postText('/sessions/import?sessionId=', jsonl({ type: 'session', version: 1, id: 'x', createdAt: '2024-01-01T00:00:00Z' }), 'application/x-ndjson'),
      /sessionId/,
    ],
    // JSONL
    [
      'a JSONL line that is not JSON before the last',
      () =>
        a.postText(
          '/sessions/import',
          `${jsonl({ type: 'session', version: 1, id: unique('bad-jsonl'), createdAt: '2024-01-01T00:00:00Z' })}{oops\n`,
          'application/x-ndjson',
        ),
      /line 2 is not valid JSON/,
    ],
    [
      'a JSONL file without a header',
      () => a.postText('/sessions/import', jsonl({ type: 'message', seq: 1, message: { role: 'user', content: 'x' } }), 'application/x-ndjson'),
      /line 1/,
    ],
    [
      'a JSONL line nested 10,000 deep',
      () =>
        a.postText(
          '/sessions/import',
          `${jsonl({ type: 'session', version: 1, id: unique('deep-jsonl'), createdAt: '2024-01-01T00:00:00Z' })}{"type":"event","seq":1,"event":{"type":"x","data":${'['.repeat(10_000)}${']'.repeat(10_000)}},"createdAt":"2024-01-01T00:00:00Z"}\n`,
          'application/x-ndjson',
        ),
      new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`),
    ],
    // Deep bodies
    ['a body of arrays nested 10,000 deep', text(() => '/sessions', '['.repeat(10_000) + ']'.repeat(10_000)), /deeper than 64 levels/],
    [
      'a body of objects nested 10,000 deep',
      text(session('/entries'), `{"type":"x","data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`),
      /deeper than 64 levels/,
    ],
    ['a body nested 65 deep, one past the limit', text(session('/entries'), `{"type":"x","data":${'['.repeat(64)}${']'.repeat(64)}}`), /deeper than 64 levels/],
  ];

  test.each(cases)('%s', async (_name, request, message) => {
    const before = (await ok(a.get(`/sessions/${id}/export`), 200)).text;
    expectError(await request(), 400, message);
    // Nothing was written.
    expect((await ok(a.get(`/sessions/${id}/export`), 200)).text).toBe(before);
  });

  test('the body limit is exact: a body 64 deep is taken, whatever it holds (the store keeps values up to MAX_JSON_DEPTH levels)', async () => {
    // The body, the content array, its part, then 61 arrays: 64 levels.
    await ok(a.post(`/sessions/${other}/messages`, { role: 'user', content: [{ type: 'deep', value: nest(61) }] }), 201);
    await ok(a.post('/sessions', { metadata: { deep: nest(62) } }), 201);
    await ok(a.postText(`/sessions/${other}/entries`, `{"type":"x","data":${'['.repeat(63)}${']'.repeat(63)}}`), 201);
  });

  test('a page cursor of another session, or of the other kind of page: 400', async () => {
    const historyCursor = (await ok(a.get(`/sessions/${id}/history?limit=1`), 200)).body.nextCursor;
    const transcriptCursor = (await ok(a.get(`/sessions/${id}/transcript?limit=1`), 200)).body.nextCursor;
    await ok(a.get(`/sessions/${id}/history?limit=1&cursor=${historyCursor}`), 200);
    expectError(await a.get(`/sessions/${other}/history?cursor=${historyCursor}`), 400, `cursor belongs to another thread than ${other}`);
    expectError(await a.get(`/sessions/${other}/transcript?cursor=${transcriptCursor}`), 400, `cursor belongs to another thread than ${other}`);
    expectError(await a.get(`/sessions/${id}/transcript?cursor=${historyCursor}`), 400, /not a transcript cursor/);
    expectError(await a.get(`/sessions/${id}/history?cursor=${transcriptCursor}`), 400, /not a history cursor/);
    expectError(await a.get(`/sessions?cursor=${historyCursor}`), 400, /cursor is not one this store handed out/);
  });

  test("a forged history cursor into a compacted session's cut-off messages: 400, and the real cursors still read the history", async () => {
    const compacted = await createSession();
    await ok(a.post(`/sessions/${compacted}/messages/batch`, { messages: ['m1', 'm2', 'm3', 'm4'].map((content) => ({ role: 'user', content })) }), 201);
    await ok(
      a.post(`/sessions/${compacted}/compactions`, { messages: [{ role: 'system', content: 'summary' }], sourceMessageCount: 2, retainedMessageCount: 0 }),
      204,
    );
    // [boundary seq, summary messages read, last seq read]: a seq before the cut (2), the log under the summary, an index past the summary.
    for (const position of [
      [5, 1, 1],
      [5, 0, 0],
      [5, 2, 3],
    ]) {
      expectError(
        await a.get(`/sessions/${compacted}/history?cursor=${forge('h', compacted, ...position)}`),
        400,
        /not a history cursor this store handed out/,
      );
    }
    const first = (await ok(a.get(`/sessions/${compacted}/history?limit=1`), 200)).body;
    const rest = (await ok(a.get(`/sessions/${compacted}/history?cursor=${first.nextCursor}`), 200)).body;
    expect([...first.messages, ...rest.messages].map((m: { content: string }) => m.content)).toEqual(['summary', 'm3', 'm4']);
  });

  test('a __proto__ property is refused like any property the body does not have, not dropped in silence', async () => {
    const response = await a.postText('/sessions', `{"id":"${unique('proto')}","__proto__":{"tenantId":"tenant-b"}}`);
    expectError(response, 400, /__proto__/);
  });

  test('a __proto__ key inside metadata or content is refused or kept as sent, never dropped in silence', async () => {
    const sent = '{"role":"user","content":[{"type":"text","text":"x","__proto__":{"y":1}}],"metadata":{"b":2,"__proto__":{"x":1}}}';
    const response = await a.postText(`/sessions/${other}/messages`, sent);
    if (response.status === 400) return expectError(response, 400);
    const stored = (await ok(a.get(`/sessions/${other}/entries`), 200)).body.entries.at(-1);
    const given = JSON.parse(sent) as { content: unknown; metadata: unknown };
    expect(JSON.stringify({ content: stored.content, metadata: stored.metadata })).toBe(JSON.stringify({ content: given.content, metadata: given.metadata }));
  });

  test('bytes that are not UTF-8: 400', async () => {
    const answer = await rawRequest(h.server, 'POST', '/sessions', { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY_A}` }, [
      Buffer.from('{"title":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    expectError(answer, 400, /not valid UTF-8/);
  });
});

describe('401: no valid API key', () => {
  const lastChanged = KEY_A.slice(0, -1) + (KEY_A.endsWith('f') ? 'e' : 'f');
  const credentials: [string, string | undefined, 'Bearer' | 'Bearer error="invalid_token"'][] = [
    ['no Authorization header', undefined, 'Bearer'],
    ['an unknown key', 'Bearer e2e-key-nobody-has-0123456789abcdef', 'Bearer error="invalid_token"'],
    ['the key with its last character changed', `Bearer ${lastChanged}`, 'Bearer error="invalid_token"'],
    ['the key without its last character', `Bearer ${KEY_A.slice(0, -1)}`, 'Bearer error="invalid_token"'],
    ['the key with one character more', `Bearer ${KEY_A}0`, 'Bearer error="invalid_token"'],
    ['the key in upper case', `Bearer ${KEY_A.toUpperCase()}`, 'Bearer error="invalid_token"'],
    ['the key without a scheme', KEY_A, 'Bearer'],
    ['the key under the Basic scheme', `Basic ${KEY_A}`, 'Bearer'],
    ['the key as Basic credentials', `Basic ${Buffer.from(`user:${KEY_A}`).toString('base64')}`, 'Bearer'],
    ['the key under the Token scheme', `Token ${KEY_A}`, 'Bearer'],
    ['the Bearer scheme without a key', 'Bearer ', 'Bearer'],
    ['two keys', `Bearer ${KEY_A} ${KEY_B}`, 'Bearer'],
    ['an empty header', '', 'Bearer'],
  ];
  let target: string;
  let free: string;
  let before: string;
  beforeAll(async () => {
    target = await createSession({ id: unique('auth-target') });
    free = await createSession({ id: unique('auth-free') });
    await ok(a.post(`/sessions/${target}/messages`, { role: 'user', content: 'kept' }), 201);
    before = (await ok(a.get(`/sessions/${target}/export`), 200)).text;
  });

  test.each(credentials)('%s: every route but /health answers 401 with a Bearer challenge, and nothing changes', async (_name, authorization, challenge) => {
    const client = new Client(h.server, null);
    for (const c of ROUTES.filter((c) => c.route !== 'GET /health')) {
      const pending = send(client, c, target, free);
      if (authorization !== undefined) pending.set('Authorization', authorization);
      const response = await pending;
      expect({ case: caseName(c), status: response.status }).toEqual({ case: caseName(c), status: 401 });
      expectError(response, 401, 'send a valid API key as "Authorization: Bearer <key>"');
      expect(response.headers['www-authenticate']).toBe(challenge);
      expect(response.text).not.toContain(KEY_A.slice(8));
    }
    expect((await ok(a.get(`/sessions/${target}/export`), 200)).text).toBe(before);
    expect((await ok(a.get(`/sessions/${free}`), 200)).body).toMatchObject({ parentId: null });
  });

  test('a missing session answers 401 too, not 404: without a key nothing is told', async () => {
    expectError(await anonymous.get('/sessions/no-such-session'), 401);
    expectError(await anonymous.delete('/sessions/no-such-session'), 401);
  });

  test("the scheme is case-insensitive, as RFC 9110 has it, and B's key acts for B", async () => {
    const lower = await a.request('get', `/sessions/${target}`).set('Authorization', `bearer ${KEY_A}`);
    expect(lower.status).toBe(200);
    expectError(await new Client(h.server, KEY_B).get(`/sessions/${target}`), 404);
  });
});

describe('404: not found', () => {
  test.each(ROUTES.filter((c) => c.route.includes(':id')).map((c) => [caseName(c), c] as const))('%s on a session that does not exist', async (_name, c) => {
    const free = await createSession();
    expectError(await send(a, c, 'no-such-session', free), 404, 'session no-such-session does not exist');
    expectError(await a.get('/sessions/no-such-session'), 404);
  });

  test('a parent, a child or a subsession that does not exist: 404, and nothing is created', async () => {
    const id = await createSession();
    const child = unique('never-created');
    expectError(await a.post('/sessions', { id: child, parentId: 'no-such-parent' }), 404, 'parent session no-such-parent does not exist');
    expectError(await a.get(`/sessions/${child}`), 404);
    expectError(await a.post(`/sessions/${id}/subsessions`, { childId: 'no-such-child' }), 404, 'session no-such-child does not exist');
    await ok(a.post(`/sessions/${id}/messages`, { role: 'user', content: 'kept' }), 201);
    expectError(await a.put(`/sessions/${id}/transcript`, { messages: [], subsessions: ['no-such-child'] }), 404);
    expect((await ok(a.get(`/sessions/${id}/transcript`), 200)).body.messages).toHaveLength(1);
    expectError(await a.get('/sessions/no-such-child'), 404);
    expectError(await a.get('/sessions/no-such-parent'), 404);
  });

  test('a path the API does not have: 404 in the same JSON shape', async () => {
    expectError(await a.get('/sessions/x/nothing-here'), 404);
    expectError(await a.request('put', '/sessions/x').send({}), 404);
    expectError(await anonymous.get('/nothing-here'), 404);
  });
});

describe('409: conflicts', () => {
  test('a session id that is taken', async () => {
    const id = await createSession({ id: unique('taken'), title: 'First' });
    expectError(await a.post('/sessions', { id, title: 'Second' }), 409, `session ${id} already exists`);
    expect((await ok(a.get(`/sessions/${id}`), 200)).body).toMatchObject({ title: 'First' });
  });

  test('a second parent, by POST subsessions or PUT transcript', async () => {
    const [first, second] = [await createSession(), await createSession()];
    const child = await createSession({ parentId: first });
    expectError(await a.post(`/sessions/${second}/subsessions`, { childId: child }), 409, /already a subsession/);
    await ok(a.post(`/sessions/${second}/messages`, { role: 'user', content: 'kept' }), 201);
    expectError(await a.put(`/sessions/${second}/transcript`, { messages: [], subsessions: [child] }), 409, /already a subsession/);
    expect((await ok(a.get(`/sessions/${second}/transcript`), 200)).body.messages).toHaveLength(1);
    expect((await ok(a.get(`/sessions/${child}`), 200)).body).toMatchObject({ parentId: first });
  });

  test('a cycle, its own parent included', async () => {
    const root = await createSession();
    const kid = await createSession({ parentId: root });
    const grandkid = await createSession({ parentId: kid });
    expectError(await a.post(`/sessions/${grandkid}/subsessions`, { childId: root }), 409, /cycle/);
    expectError(await a.post(`/sessions/${root}/subsessions`, { childId: root }), 409, /own subsession/);
    const self = unique('self');
    expectError(await a.post('/sessions', { id: self, parentId: self }), 409, /own subsession/);
    expect((await ok(a.get(`/sessions/${root}`), 200)).body).toMatchObject({ parentId: null });
  });

  test('a history cursor that a compaction made stale', async () => {
    const id = await createSession();
    await ok(
      a.post(`/sessions/${id}/messages/batch`, {
        messages: [
          { role: 'user', content: '1' },
          { role: 'user', content: '2' },
          { role: 'user', content: '3' },
        ],
      }),
      201,
    );
    const cursor = (await ok(a.get(`/sessions/${id}/history?limit=1`), 200)).body.nextCursor;
    await ok(a.get(`/sessions/${id}/history?limit=1&cursor=${cursor}`), 200);
    await ok(a.post(`/sessions/${id}/compactions`, { messages: [{ role: 'system', content: 's' }], sourceMessageCount: 2, retainedMessageCount: 0 }), 204);
    expectError(await a.get(`/sessions/${id}/history?limit=1&cursor=${cursor}`), 409, /read it again from the first page/);
  });

  test('an import into a session that is not empty, named by ?sessionId or by the header', async () => {
    const id = await createSession();
    await ok(a.post(`/sessions/${id}/entries`, { type: 'only-an-event' }), 201);
    const body = jsonl({ type: 'session', version: 1, id, tenantId: null, title: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z' });
    expectError(await a.postText(`/sessions/import?sessionId=${id}`, body, 'application/x-ndjson'), 409, /not empty/);
    expectError(await a.postText('/sessions/import', body, 'application/x-ndjson'), 409, /not empty/);
    expect((await ok(a.get(`/sessions/${id}/entries`), 200)).body.entries).toHaveLength(1);
  });
});

describe('413: a body past maxBodyBytes', () => {
  const LIMIT = 4096;
  let small: HttpApp;
  let client: Client;
  beforeAll(async () => {
    small = await bootHttpApp({ maxBodyBytes: LIMIT });
    client = new Client(small.server, KEY_A);
  });
  afterAll(() => small?.close());

  /** A create body of exactly `size` bytes. */
  const createBody = (size: number) => {
    const shell = JSON.stringify({ title: '' });
    return JSON.stringify({ title: 'x'.repeat(size - shell.length) });
  };
  const auth = { Authorization: `Bearer ${KEY_A}` };

  test('JSON: a body of exactly the limit is taken; one byte more is a 413, announced or chunked', async () => {
    expect((await client.postText('/sessions', createBody(LIMIT))).status).toBe(201);
    expectError(await client.postText('/sessions', createBody(LIMIT + 1)), 413, `the body is larger than ${LIMIT} bytes`);
    const body = Buffer.from(createBody(LIMIT + 1));
    expectError(
      await rawRequest(small.server, 'POST', '/sessions', { 'Content-Type': 'application/json', ...auth }, [body.subarray(0, 1000), body.subarray(1000)]),
      413,
    );
    // A chunked body within the limit is read whole.
    const within = Buffer.from(JSON.stringify({ title: 'chunked' }));
    expect(
      (await rawRequest(small.server, 'POST', '/sessions', { 'Content-Type': 'application/json', ...auth }, [within.subarray(0, 5), within.subarray(5)]))
        .status,
    ).toBe(201);
    const titles = (await client.get('/sessions?limit=500')).body.sessions.map((s: { title: string }) => s.title.length);
    expect(titles.sort((x: number, y: number) => x - y)).toEqual([7, LIMIT - JSON.stringify({ title: '' }).length]);
  });

  test('ndjson import: past the limit a 413, announced or chunked, and nothing is imported', async () => {
    const header = jsonl({ type: 'session', version: 1, id: 'too-big', tenantId: null, title: null, metadata: null, createdAt: '2024-01-01T00:00:00.000Z' });
    const line = jsonl({ type: 'message', seq: 1, message: { role: 'user', content: 'x'.repeat(LIMIT), createdAt: '2024-01-01T00:00:00.000Z' } });
    expectError(await client.postText('/sessions/import', header + line, 'application/x-ndjson'), 413, `the body is larger than ${LIMIT} bytes`);
    const body = Buffer.from(header + line);
    expectError(
      await rawRequest(small.server, 'POST', '/sessions/import', { 'Content-Type': 'application/x-ndjson', ...auth }, [
        body.subarray(0, 100),
        body.subarray(100),
      ]),
      413,
    );
    expectError(await client.get('/sessions/too-big'), 404);
  });

  test('a message or a batch past the limit on a session route', async () => {
    const id = (await client.post('/sessions', {})).body.id;
    expectError(await client.post(`/sessions/${id}/messages`, { role: 'user', content: 'x'.repeat(LIMIT) }), 413);
    expectError(await client.put(`/sessions/${id}/transcript`, { messages: [{ role: 'user', content: 'x'.repeat(LIMIT) }] }), 413);
    expect((await client.get(`/sessions/${id}/count`)).body).toEqual({ count: 0 });
  });
});

describe('415: a media type the API does not take', () => {
  test.each([
    ['text/plain', '/sessions', 'text/plain', '{}'],
    ['form data', '/sessions', 'application/x-www-form-urlencoded', 'title=x'],
    ['JSON in another charset', '/sessions', 'application/json; charset=iso-8859-1', '{}'],
    ['XML', '/sessions/x/messages', 'application/xml', '<message/>'],
    ['JSON sent to the import route', '/sessions/import', 'application/json', '{"type":"session"}'],
  ])('%s', async (_name, path, contentType, body) => {
    expectError(await a.postText(path, body, contentType), 415);
  });

  test('JSON with an explicit UTF-8 charset, or a +json type, is taken', async () => {
    expect((await a.postText('/sessions', '{"title":"charset"}', 'application/json; charset=utf-8')).status).toBe(201);
    expect((await a.postText('/sessions', '{"title":"vendor"}', 'application/vnd.agent+json')).status).toBe(201);
  });

  test('an empty JSONL body is a 400 (it has no session header), not a 415: its media type is the right one', async () => {
    expectError(await a.postText('/sessions/import', '', 'application/x-ndjson'), 400, /no session header/);
  });
});

// 503 needs a database that can go away: PostgreSQL, a server of the test's own or a database of the shared one.
describeWith(hasPostgresBinaries() && POSTGRESQL.available, 'PostgreSQL binaries missing')('503: the database is unavailable', () => {
  const UNAVAILABLE = { statusCode: 503, error: STATUS_CODES[503], message: 'the database is unavailable; try again later' };
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: await postgresServerUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  /** Boots on `url`, makes a session, runs `takeAway`, then sends every request of the table: each must be a 503. */
  async function everyRouteUnavailable(url: string, takeAway: () => Promise<void>) {
    const app = await bootHttpApp({}, { url, pool: { max: 2, connectionTimeoutMs: 1_000 } });
    try {
      const client = new Client(app.server, KEY_A);
      const id = (await ok(client.post('/sessions', {}), 201)).body.id;
      const free = (await ok(client.post('/sessions', {}), 201)).body.id;
      await takeAway();
      const answers: { case: string; status: number; body: unknown }[] = [];
      for (const c of ROUTES) {
        const response = await send(client, c, id, free);
        answers.push({ case: caseName(c), status: response.status, body: response.body });
      }
      const health = answers.find((answer) => answer.case === 'GET /health')!;
      expect(health).toEqual({
        case: 'GET /health',
        status: 503,
        body: {
          status: 'error',
          info: {},
          error: { agentStore: { status: 'down', message: 'the database does not answer' } },
          details: { agentStore: { status: 'down', message: 'the database does not answer' } },
        },
      });
      const others = answers.filter((answer) => answer !== health);
      expect(others.map((answer) => `${answer.case} -> ${answer.status} ${JSON.stringify(answer.body)}`)).toEqual(
        others.map((answer) => `${answer.case} -> 503 ${JSON.stringify(UNAVAILABLE)}`),
      );
    } finally {
      await app.close();
    }
  }

  test('its server is stopped: every route answers 503, /health too', async () => {
    const server = await startPostgres();
    if (!server) throw new Error('PostgreSQL did not start');
    try {
      await everyRouteUnavailable(server.url, () => stopServer(server));
    } finally {
      await stopServer(server);
    }
  });

  test('its database was dropped: every route answers 503, as /health does', async () => {
    const url = await freshPostgresUrl();
    await everyRouteUnavailable(url, () => admin(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`));
  });

  test('its database refuses connections: every route answers 503, as /health does', async () => {
    const url = await freshPostgresUrl();
    const name = new URL(url).pathname.slice(1);
    await everyRouteUnavailable(url, async () => {
      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    });
    await admin(`DROP DATABASE ${name} WITH (FORCE)`);
  });
});
