// Tenant isolation over HTTP: tenant B's key on tenant A's sessions. Every
// request of every route (the table in support/http-api.ts, checked against the
// routes Nest mapped) answers exactly as for a session that never existed, and
// leaves A's data as it was; B's lists never show A's sessions.
import type { Response } from 'supertest';
import {
  bootHttpApp,
  caseName,
  Client,
  documentedRoutes,
  expectError,
  expectEveryErrorClean,
  jsonl,
  KEY_A,
  KEY_B,
  mappedRoutes,
  ROUTES,
  send,
  TENANT_A,
  TENANT_B,
  type HttpApp,
  type RouteCase,
} from '../support/http-api.js';

// One length for all, so that answers naming them have one length too.
const A_ROOT = 'a-root-session-0001';
const A_KID = 'a-kid-session-00001';
const A_DELETED = 'a-gone-session-0001';
const GHOST = 'never-existed-00001';
const B_OWN = 'b-own-session-00001';
const B_FREE = 'b-free-session-0001';

let h: HttpApp;
let a: Client;
let b: Client;
/** What A's API shows of A's data once it is set up. */
let before: Awaited<ReturnType<typeof snapshotOfA>>;
const aSessions: string[] = [];
const bSessions: string[] = [];

const ok = async (pending: PromiseLike<Response>, status: number): Promise<Response> => {
  const response = await pending;
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  return response;
};

/** Everything A's API shows of a session. */
async function viewOf(client: Client, id: string) {
  const read = async (path: string) => {
    const response = await client.get(path);
    return { status: response.status, body: response.body as unknown };
  };
  return {
    header: await read(`/sessions/${id}`),
    history: await read(`/sessions/${id}/history?limit=1000`),
    transcript: await read(`/sessions/${id}/transcript?limit=1000`),
    entries: await read(`/sessions/${id}/entries`),
    subsessions: await read(`/sessions/${id}/subsessions`),
    count: await read(`/sessions/${id}/count`),
    repairs: await read(`/sessions/${id}/repairs`),
    export: (await client.get(`/sessions/${id}/export`)).text,
  };
}

async function snapshotOfA() {
  return {
    root: await viewOf(a, A_ROOT),
    kid: await viewOf(a, A_KID),
    list: (await a.get('/sessions?limit=500')).body as unknown,
  };
}

/** An answer with the session id it names replaced, and without the headers that vary by time or body hash. */
function normalized(response: Response, id: string) {
  const { date: _date, etag: _etag, ...headers } = response.headers;
  return { status: response.status, headers, text: (response.text ?? '').split(id).join('<id>') };
}

/** B's list, every page of `limit`, with `query`. */
async function listAllOfB(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await ok(b.get(`/sessions?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`), 200);
    ids.push(
      ...(response.body.sessions as { id: string; tenantId: string }[]).map((session) => {
        expect(session.tenantId).toBe(TENANT_B);
        return session.id;
      }),
    );
    cursor = response.body.nextCursor;
  } while (cursor);
  return ids;
}

beforeAll(async () => {
  h = await bootHttpApp();
  a = new Client(h.server, KEY_A);
  b = new Client(h.server, KEY_B);

  // A's session holds a bit of everything: messages, an event, a compaction, a repair, metadata and a subsession.
  await ok(a.post('/sessions', { id: A_ROOT, title: 'A root', metadata: { owner: 'a' } }), 201);
  await ok(a.post(`/sessions/${A_ROOT}/messages`, { role: 'user', content: 'a1' }), 201);
  await ok(
    a.post(`/sessions/${A_ROOT}/messages/batch`, {
      messages: [
        { role: 'assistant', content: 'a2' },
        { role: 'user', content: 'a3' },
      ],
    }),
    201,
  );
  await ok(a.post(`/sessions/${A_ROOT}/entries`, { type: 'note', data: { n: 1 } }), 201);
  await ok(
    a.post(`/sessions/${A_ROOT}/compactions`, { messages: [{ role: 'system', content: 'A summary' }], sourceMessageCount: 2, retainedMessageCount: 0 }),
    204,
  );
  await ok(
    a.post(`/sessions/${A_ROOT}/repairs`, {
      repairMessage: { role: 'tool', content: [{ type: 'text', text: 'A repair' }] },
      balancedMessages: [{ role: 'system', content: 'A balanced' }],
      sourceMessageCount: 1,
    }),
    204,
  );
  await ok(a.post(`/sessions/${A_ROOT}/messages`, { role: 'assistant', content: 'a4' }), 201);
  await ok(a.post('/sessions', { id: A_KID, title: 'A kid', parentId: A_ROOT }), 201);
  await ok(a.post(`/sessions/${A_KID}/messages`, { role: 'user', content: 'kid' }), 201);
  await ok(a.post('/sessions', { id: A_DELETED }), 201);
  await ok(a.delete(`/sessions/${A_DELETED}`), 204);
  aSessions.push(A_ROOT, A_KID);

  await ok(b.post('/sessions', { id: B_OWN, title: 'B own' }), 201);
  await ok(b.post(`/sessions/${B_OWN}/messages`, { role: 'user', content: 'b1' }), 201);
  await ok(b.post('/sessions', { id: B_FREE }), 201);
  bSessions.push(B_OWN, B_FREE);
  // Interleaved in time, so that pages of B's list fall between A's sessions.
  for (let i = 0; i < 4; i++) {
    aSessions.push((await ok(a.post('/sessions', { title: `a-${i}` }), 201)).body.id);
    bSessions.push((await ok(b.post('/sessions', { title: `b-${i}` }), 201)).body.id);
  }
  before = await snapshotOfA();
});
afterAll(() => h?.close());
afterEach(expectEveryErrorClean);

test("A's data as set up: what the isolation tests compare against", () => {
  expect(before.root.header).toMatchObject({ status: 200, body: { id: A_ROOT, tenantId: TENANT_A, title: 'A root' } });
  expect(before.root.count).toEqual({ status: 200, body: { count: 3 } });
  expect(before.root.transcript.body).toMatchObject({ messages: [{ content: 'a1' }, { content: 'a2' }, { content: 'a3' }, { content: 'a4' }] });
  expect(before.root.repairs.body).toMatchObject({ repairs: [{ repairMessage: { content: [{ type: 'text', text: 'A repair' }] } }] });
  expect(before.root.subsessions).toEqual({ status: 200, body: { subsessions: [A_KID] } });
  expect(before.kid.header).toMatchObject({ status: 200, body: { parentId: A_ROOT } });
  expect((before.list as { sessions: unknown[] }).sessions).toHaveLength(aSessions.length);
});

describe('the route table', () => {
  const tableRoutes = [...new Set(ROUTES.map((c) => c.route))].sort();

  test('names every route Nest mapped under the prefix, and no other', () => {
    expect(tableRoutes).toEqual(mappedRoutes(h.app));
  });

  test('names every route of the OpenAPI document, and no other', () => {
    expect(tableRoutes).toEqual(documentedRoutes(h.document));
  });

  test('gives each route the success status its OpenAPI document promises', () => {
    for (const c of ROUTES) {
      const [method, route] = c.route.split(' ');
      const operation = h.document.paths[`/agent-store${route.replace(':id', '{id}')}`][method.toLowerCase() as 'get'];
      const documented = Object.keys(operation?.responses ?? {}).filter((code) => code.startsWith('2'));
      expect({ route: caseName(c), documented }).toEqual({ route: caseName(c), documented: [String(c.status)] });
    }
  });
});

// Each case once per target: B's request on A's session answers as on GHOST, which never existed.
const SESSION_CASES = ROUTES.filter((c) => c.route.includes(':id'));
// GET routes answer HEAD too (Express runs the GET handler): B's HEAD must not tell either.
const HEAD_CASES: RouteCase[] = SESSION_CASES.filter((c) => c.route.startsWith('GET ') && !c.variant).map((c) => ({
  ...c,
  route: c.route.replace('GET', 'HEAD'),
  variant: 'HEAD',
}));

describe.each([
  ['root session', A_ROOT],
  ['subsession', A_KID],
  ['deleted session', A_DELETED],
])("B's requests on A's %s", (_name, target) => {
  test.each(SESSION_CASES.map((c) => [caseName(c), c] as const))('%s: 404, as for a session that never existed, and A is unchanged', async (_label, c) => {
    const onA = await send(b, c, target, B_FREE);
    const onGhost = await send(b, c, GHOST, B_FREE);
    expectError(onA, 404, `session ${target} does not exist`);
    expect(normalized(onA, target)).toEqual(normalized(onGhost, GHOST));
    expect(await snapshotOfA()).toEqual(before);
    // B's own session that the request named stays free.
    expect((await b.get(`/sessions/${B_FREE}`)).body).toMatchObject({ parentId: null });
  });

  test.each(HEAD_CASES.map((c) => [c.route, c] as const))('%s: 404 with the same headers as for a session that never existed', async (_label, c) => {
    const onA = await b.request('head', c.route.slice('HEAD '.length).replace(':id', target));
    const onGhost = await b.request('head', c.route.slice('HEAD '.length).replace(':id', GHOST));
    expect(onA.status).toBe(404);
    expect(normalized(onA, target)).toEqual(normalized(onGhost, GHOST));
  });
});

test('the never-existing session was not created by any of those requests, for either tenant', async () => {
  expectError(await b.get(`/sessions/${GHOST}`), 404);
  expectError(await a.get(`/sessions/${GHOST}`), 404);
  expect(await listAllOfB('', 500)).not.toContain(GHOST);
  expect(await snapshotOfA()).toEqual(before);
});

test("the same requests, sent by B on B's own sessions, succeed: the 404s above are about A's sessions, not bad requests", async () => {
  for (const c of SESSION_CASES) {
    const own = (await ok(b.post('/sessions', {}), 201)).body.id as string;
    const free = (await ok(b.post('/sessions', {}), 201)).body.id as string;
    expect({ case: caseName(c), status: (await send(b, c, own, free)).status }).toEqual({ case: caseName(c), status: c.status });
    bSessions.push(free, ...(c.route === 'DELETE /sessions/:id' ? [] : [own]));
  }
});

describe("B's list", () => {
  test.each([1, 2, 3, 500])("never contains A's sessions, across pages of %i, and contains all of B's", async (limit) => {
    const ids = await listAllOfB('', limit);
    expect(ids.filter((id) => aSessions.includes(id) || id === A_DELETED)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(bSessions));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("with parentId of A's session (or subsession) is empty", async () => {
    for (const parent of [A_ROOT, A_KID]) {
      const response = await ok(b.get(`/sessions?parentId=${parent}`), 200);
      expect(response.body).toEqual({ sessions: [], nextCursor: null });
      expect(await listAllOfB(`&parentId=${parent}`, 1)).toEqual([]);
    }
    // A's own view of the same filter has the subsession: the filter itself works.
    expect((await a.get(`/sessions?parentId=${A_ROOT}`)).body.sessions.map((s: { id: string }) => s.id)).toEqual([A_KID]);
  });

  test("with a time window around every session holds only B's", async () => {
    const ids = await listAllOfB('&createdAfter=2000-01-01T00:00:00Z&createdBefore=2999-01-01T00:00:00Z', 2);
    expect(ids.filter((id) => aSessions.includes(id))).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(bSessions));
  });

  test("with a cursor from A's list holds only B's sessions", async () => {
    const aPage = await ok(a.get('/sessions?limit=1'), 200);
    expect(aPage.body.nextCursor).toEqual(expect.any(String));
    const response = await b.get(`/sessions?limit=500&cursor=${aPage.body.nextCursor}`);
    expect(response.status).toBe(200);
    expect(response.body.sessions.filter((s: { tenantId: string }) => s.tenantId !== TENANT_B)).toEqual([]);
  });

  test("A's list, likewise, never contains B's sessions", async () => {
    const ids = (await ok(a.get('/sessions?limit=500'), 200)).body.sessions.map((s: { id: string }) => s.id);
    expect(ids.filter((id: string) => bSessions.includes(id))).toEqual([]);
    expect(ids.sort()).toEqual([...aSessions].sort());
  });
});

describe("B naming A's sessions in bodies", () => {
  test("POST /sessions with parentId of A's session: 404 as for a missing parent, and nothing is created", async () => {
    for (const parent of [A_ROOT, A_KID]) {
      const onA = await b.post('/sessions', { id: 'b-would-be-child-01', parentId: parent });
      const onGhost = await b.post('/sessions', { id: 'b-would-be-child-01', parentId: GHOST });
      expectError(onA, 404);
      expect(normalized(onA, parent)).toEqual(normalized(onGhost, GHOST));
      expectError(await b.get('/sessions/b-would-be-child-01'), 404);
    }
    expect(await snapshotOfA()).toEqual(before);
  });

  test("POST /sessions with the id of A's session: 409 (ids are unique across tenants), and A's session is unchanged", async () => {
    expectError(await b.post('/sessions', { id: A_ROOT, title: 'B takes over' }), 409);
    expect(await snapshotOfA()).toEqual(before);
  });

  test("POST subsessions with childId of A's session: 404 as for a missing child, and neither tree changes", async () => {
    for (const child of [A_ROOT, A_KID]) {
      const onA = await b.post(`/sessions/${B_OWN}/subsessions`, { childId: child });
      const onGhost = await b.post(`/sessions/${B_OWN}/subsessions`, { childId: GHOST });
      expectError(onA, 404, `session ${child} does not exist`);
      expect(normalized(onA, child)).toEqual(normalized(onGhost, GHOST));
    }
    expect((await b.get(`/sessions/${B_OWN}/subsessions`)).body).toEqual({ subsessions: [] });
    expect(await snapshotOfA()).toEqual(before);
  });

  test("PUT transcript with subsessions naming A's session: 404 as for a missing one, and B's transcript is not replaced", async () => {
    const bBefore = await viewOf(b, B_OWN);
    for (const child of [A_ROOT, A_KID]) {
      const body = (id: string) => ({ messages: [{ role: 'user', content: 'overwritten' }], subsessions: [B_FREE, id], metadata: { x: 1 } });
      const onA = await b.put(`/sessions/${B_OWN}/transcript`, body(child));
      const onGhost = await b.put(`/sessions/${B_OWN}/transcript`, body(GHOST));
      expectError(onA, 404, `session ${child} does not exist`);
      expect(normalized(onA, child)).toEqual(normalized(onGhost, GHOST));
    }
    expect(await viewOf(b, B_OWN)).toEqual(bBefore);
    expect((await b.get(`/sessions/${B_FREE}`)).body).toMatchObject({ parentId: null });
    expect(await snapshotOfA()).toEqual(before);
  });
});

describe("B's imports naming A's sessions", () => {
  const header = (id: string, fields: object = {}) => ({
    type: 'session',
    version: 1,
    id,
    tenantId: TENANT_B,
    title: 'B import',
    metadata: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  });
  const message = { type: 'message', seq: 1, message: { role: 'user', content: 'B was here', createdAt: '2026-01-01T00:00:01.000Z' } };
  const importAsB = (body: string, query = '') => b.postText(`/sessions/import${query}`, body, 'application/x-ndjson');

  test("a header naming A's session does not touch it", async () => {
    for (const target of [A_ROOT, A_KID]) {
      const response = await importAsB(jsonl(header(target), message));
      expect([404, 409]).toContain(response.status);
      expectError(response, response.status);
    }
    expect(await listAllOfB('', 500)).not.toContain(A_ROOT);
    expect(await snapshotOfA()).toEqual(before);
  });

  test("?sessionId naming A's session does not touch it", async () => {
    for (const target of [A_ROOT, A_KID, A_DELETED]) {
      const response = await importAsB(jsonl(header('b-import-target-01'), message), `?sessionId=${target}`);
      expect([404, 409]).toContain(response.status);
      expectError(response, response.status);
    }
    expectError(await b.get('/sessions/b-import-target-01'), 404);
    expect(await snapshotOfA()).toEqual(before);
  });

  test("a subsession line naming A's session fails the whole import, and A's session keeps its parent", async () => {
    for (const child of [A_ROOT, A_KID]) {
      const response = await importAsB(jsonl(header('b-import-parent-01'), message, { type: 'subsession', childId: child }));
      expect([404, 409]).toContain(response.status);
      expectError(response, response.status);
      expectError(await b.get('/sessions/b-import-parent-01'), 404);
    }
    expect(await snapshotOfA()).toEqual(before);
  });

  test("A's own export, imported by B as a copy, cannot claim A's subsession", async () => {
    const exported = (await ok(a.get(`/sessions/${A_ROOT}/export`), 200)).text;
    const response = await importAsB(exported, '?sessionId=b-copy-of-a-root-01');
    expect([404, 409]).toContain(response.status);
    expectError(await b.get('/sessions/b-copy-of-a-root-01'), 404);
    expect(await snapshotOfA()).toEqual(before);
  });

  test("a header naming tenant A puts the session in B's tenant, out of A's sight", async () => {
    const response = await ok(importAsB(jsonl(header('b-claims-tenant-a1', { tenantId: TENANT_A }), message)), 201);
    expect(response.body).toEqual({ sessionId: 'b-claims-tenant-a1', entries: 1, warnings: [] });
    expect((await b.get('/sessions/b-claims-tenant-a1')).body).toMatchObject({ tenantId: TENANT_B });
    expectError(await a.get('/sessions/b-claims-tenant-a1'), 404);
    expect(await snapshotOfA()).toEqual(before);
    bSessions.push('b-claims-tenant-a1');
  });

  test('the import route itself is no way around it: B importing its own session works (the refusals above are about A)', async () => {
    const response = await ok(importAsB(jsonl(header('b-import-own-00001'), message, { type: 'subsession', childId: B_FREE })), 201);
    expect(response.body).toEqual({ sessionId: 'b-import-own-00001', entries: 1, warnings: [] });
    expect((await b.get(`/sessions/${B_FREE}`)).body).toMatchObject({ parentId: 'b-import-own-00001' });
    bSessions.push('b-import-own-00001');
  });
});

test("A's requests on B's session answer 404 too (the other direction), and B's session is unchanged", async () => {
  const bBefore = await viewOf(b, B_OWN);
  for (const c of SESSION_CASES) {
    const response = await send(a, c, B_OWN, A_KID);
    expect({ case: caseName(c), status: response.status }).toEqual({ case: caseName(c), status: 404 });
  }
  expect(await viewOf(b, B_OWN)).toEqual(bBefore);
});
