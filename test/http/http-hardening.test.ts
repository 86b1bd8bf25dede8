// The HTTP API against what a security review found: database text in error
// bodies, a host's global ValidationPipe, prototype keys in free-form JSON,
// huge arrays, loose query coercion and compressed bodies. On SQLite.
import { deflateSync, gzipSync } from 'node:zlib';
import { jest } from '@jest/globals';
import { Logger, ValidationPipe, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { toStoreError } from '../../src/engine/db-errors.js';
import { KITS } from '../../src/databases/index.js';
import { MAX_ARRAY_ITEMS } from '../../src/http/dto/message.dto.js';
import { setupStoreDocs } from '../../src/http/index.js';
import { StoreModule, TenantStores, type ScopedStores } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

const KEY = 'hardening-key-tenant-a-0123456789';
const auth = { Authorization: `Bearer ${KEY}` };

async function httpApp({ bodyParser = false, globalPipe }: { bodyParser?: boolean; globalPipe?: ValidationPipe } = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, http: { apiKeys: { [KEY]: 'tenant-a' }, throttle: false } })],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser, logger: false });
  if (globalPipe) app.useGlobalPipes(globalPipe);
  return app.init();
}

/** Requests as tenant-a, with bodies sent as the exact JSON text given. */
const client = (app: INestApplication) => {
  const server = app.getHttpServer();
  return {
    get: (path: string) => request(server).get(`/agent-store${path}`).set(auth),
    send: (method: 'post' | 'put' | 'patch', path: string, json: string) =>
      request(server)[method](`/agent-store${path}`).set(auth).set('Content-Type', 'application/json').send(json),
    // Bytes as they are: superagent would serialize a Buffer sent as JSON into {"type":"Buffer",…}.
    raw: (path: string) =>
      request(server)
        .post(`/agent-store${path}`)
        .set(auth)
        .serialize((body) => body),
  };
};

/** The session's whole log as exported: unchanged when nothing was written. */
const exported = async (app: INestApplication, id: string) => (await client(app).get(`/sessions/${id}/export`).expect(200)).text;

describe('errors converted from database errors', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
  });
  afterAll(() => app.close());

  /** Makes the tenant's `sessions.create` throw what toStoreError makes of `error`. */
  function failCreateWith(error: Error) {
    const tenants = app.get<TenantStores>(TenantStores);
    const forTenant = tenants.forTenant.bind(tenants);
    return jest.spyOn(tenants, 'forTenant').mockImplementation((tenant) => {
      const stores = forTenant(tenant);
      const sessions = Object.assign(Object.create(stores.sessions), { create: () => Promise.reject(toStoreError(error, KITS.postgresql)) });
      return { ...stores, sessions } as ScopedStores;
    });
  }
  const prismaError = (code: string, message: string) => Object.assign(new Error(message), { name: 'PrismaClientKnownRequestError', code });

  test.each([
    ['P2002', 409, 'the write conflicts with stored data'],
    ['P2025', 404, 'a record the request needs does not exist'],
  ])('%s answers %i with a generic sentence, and the detail goes to the log only', async (code, status, sentence) => {
    const detail = 'Invalid `prisma.agentThread.create()` invocation: Unique constraint failed on the fields: (`tenant_id`,`id`) in table agent_thread';
    const spy = failCreateWith(prismaError(code, detail));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const response = await client(app).send('post', '/sessions', '{"id":"db-error"}');
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ statusCode: status, error: expect.any(String), message: sentence });
      expect(response.text).not.toMatch(/prisma|agent_thread|tenant_id|P20/i);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('agent_thread'));
    } finally {
      spy.mockRestore();
      warn.mockRestore();
    }
  });

  test("the stores' own errors keep their message", async () => {
    const c = client(app);
    await c.send('post', '/sessions', '{"id":"taken"}').expect(201);
    const again = await c.send('post', '/sessions', '{"id":"taken"}');
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('session taken already exists');
    expect((await c.send('post', '/sessions/missing/messages', '{"role":"user","content":"x"}')).body.message).toMatch(/missing/);
  });
});

describe.each([
  [
    'whitelist, transform and implicit conversion',
    () => new ValidationPipe({ whitelist: true, transform: true, transformOptions: { enableImplicitConversion: true } }),
  ],
  ['its defaults', () => new ValidationPipe()],
])("a host's global ValidationPipe with %s leaves the store's routes alone", (_name, globalPipe) => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp({ globalPipe: globalPipe() });
  });
  afterAll(() => app.close());

  test('an id given as an object, or a title as a number, is our 400, and creates nothing', async () => {
    const c = client(app);
    const response = await c.send('post', '/sessions', '{"id":{"contains":""},"title":123}');
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(expect.arrayContaining(['id must be a string', 'title must be a string']));
    expect((await c.get('/sessions').expect(200)).body.sessions).toEqual([]);
  });

  test('a property we do not take is refused, not stripped', async () => {
    const c = client(app);
    const response = await c.send('post', '/sessions', '{"id":"p1","extra":1}');
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(['property extra should not exist']);
    expect((await c.get('/sessions/p1')).status).toBe(404);
  });

  test('what is stored is what was sent, and our query checks still apply', async () => {
    const c = client(app);
    const created = await c.send('post', '/sessions', '{"id":"p2","title":"007","metadata":{"n":"1","constructor":"c"}}').expect(201);
    expect(created.body).toMatchObject({ id: 'p2', title: '007', metadata: { n: '1', constructor: 'c' } });
    const content = '[{"type":"tool-call","args":{"constructor":"Foo","keep":1}}]';
    const message = await c.send('post', '/sessions/p2/messages', `{"role":"assistant","content":${content}}`).expect(201);
    expect(JSON.stringify(message.body.content)).toBe(content);
    expect((await c.get('/sessions?limit=1e2')).status).toBe(400);
    expect((await c.get('/sessions/p2/history?limit=1').expect(200)).body.messages).toHaveLength(1);
  });
});

describe('constructor, prototype and __proto__ keys', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
    await client(app).send('post', '/sessions', '{"id":"keys"}').expect(201);
  });
  afterAll(() => app.close());

  test.each([false, true])('constructor and prototype are kept exactly in message content and metadata (Nest parsed the body: %s)', async (bodyParser) => {
    const parsed = await httpApp({ bodyParser });
    try {
      const c = client(parsed);
      await c.send('post', '/sessions', '{"id":"s"}').expect(201);
      const content = '[{"type":"tool-call","args":{"constructor":"Foo","keep":1}},{"type":"x","prototype":{"constructor":{"prototype":1}}}]';
      const metadata = '{"constructor":"c","prototype":null}';
      const created = await c.send('post', '/sessions/s/messages', `{"role":"assistant","content":${content},"metadata":${metadata}}`).expect(201);
      expect([JSON.stringify(created.body.content), JSON.stringify(created.body.metadata)]).toEqual([content, metadata]);
      const [read] = (await c.get('/sessions/s/history').expect(200)).body.messages;
      expect([JSON.stringify(read.content), JSON.stringify(read.metadata)]).toEqual([content, metadata]);
    } finally {
      await parsed.close();
    }
  });

  test('are kept in batches, event data, session and transcript metadata, as JSONL import keeps them', async () => {
    const c = client(app);
    const id = 'keys-everywhere';
    const metadata = '{"constructor":{"name":"n"},"prototype":[1]}';
    expect(JSON.stringify((await c.send('post', '/sessions', `{"id":"${id}","metadata":${metadata}}`).expect(201)).body.metadata)).toBe(metadata);
    expect(JSON.stringify((await c.send('patch', `/sessions/${id}`, `{"metadata":${metadata}}`).expect(200)).body.metadata)).toBe(metadata);
    const batch = await c.send(
      'post',
      `/sessions/${id}/messages/batch`,
      `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b","metadata":${metadata}}]}`,
    );
    expect(JSON.stringify(batch.body.messages[1].metadata)).toBe(metadata);
    const event = await c.send('post', `/sessions/${id}/entries`, `{"type":"t","data":${metadata}}`).expect(201);
    expect(JSON.stringify(event.body.data)).toBe(metadata);
    const transcript = await c
      .send('put', `/sessions/${id}/transcript`, `{"messages":[{"role":"user","content":"c","metadata":${metadata}}],"metadata":${metadata}}`)
      .expect(200);
    expect([JSON.stringify(transcript.body.metadata), JSON.stringify(transcript.body.messages[0].metadata)]).toEqual([metadata, metadata]);

    const jsonl = await exported(app, id);
    await request(app.getHttpServer())
      .post(`/agent-store/sessions/import?sessionId=${id}-copy`)
      .set(auth)
      .set('Content-Type', 'application/x-ndjson')
      .send(jsonl)
      .expect(201);
    const original = (await c.get(`/sessions/${id}/transcript`).expect(200)).body.messages;
    expect(JSON.stringify((await c.get(`/sessions/${id}-copy/transcript`).expect(200)).body.messages)).toBe(JSON.stringify(original));
  });

  // JSON.parse makes "__proto__" an own key, but Prisma's client writes JSON without it: refused rather than lost.
  test.each([
    [
      'content',
      'post',
      '/sessions/keys/messages',
      '{"role":"user","content":[{"type":"x","args":{"__proto__":{"polluted":true}}}]}',
      'content.0.args.__proto__',
    ],
    [
      'message metadata',
      'post',
      '/sessions/keys/messages',
      '{"role":"user","content":"x","metadata":{"a":[{"__proto__":{"polluted":true}}]}}',
      'metadata.a.0.__proto__',
    ],
    [
      'a batch',
      'post',
      '/sessions/keys/messages/batch',
      '{"messages":[{"role":"user","content":"x"},{"role":"user","content":"y","metadata":{"__proto__":{}}}]}',
      'messages.1.metadata.__proto__',
    ],
    ['event data', 'post', '/sessions/keys/entries', '{"type":"t","data":{"__proto__":{"polluted":true}}}', 'data.__proto__'],
    ['session metadata', 'patch', '/sessions/keys', '{"metadata":{"__proto__":{"polluted":true}}}', 'metadata.__proto__'],
    ['an escaped key', 'patch', '/sessions/keys', '{"metadata":{"\\u005f_proto__":{"polluted":true}}}', 'metadata.__proto__'],
  ] as const)('__proto__ in %s is a 400 that names it; nothing is written or polluted', async (_name, method, path, json, where) => {
    const c = client(app);
    const before = [await exported(app, 'keys'), (await c.get('/sessions/keys').expect(200)).text];
    const response = await c.send(method, path, json);
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual([`${where}: the store cannot keep a key named "__proto__" (its database client drops it); rename the key`]);
    expect([await exported(app, 'keys'), (await c.get('/sessions/keys').expect(200)).text]).toEqual(before);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test.each([
    ['a body', 'post', '/sessions', '{"id":"k1","constructor":"x"}', 'property constructor should not exist'],
    ['a body', 'post', '/sessions', '{"id":"k2","__proto__":{"title":"t"}}', 'property __proto__ should not exist'],
    [
      'a message of a batch',
      'post',
      '/sessions/keys/messages/batch',
      '{"messages":[{"role":"user","content":"x","prototype":1}]}',
      'messages.0.property prototype should not exist',
    ],
    [
      'a repair message',
      'post',
      '/sessions/keys/repairs',
      '{"repairMessage":{"role":"tool","content":"x","constructor":1},"balancedMessages":[],"sourceMessageCount":0}',
      'repairMessage.property constructor should not exist',
    ],
  ] as const)('are refused (400) as properties of %s, and nothing is written', async (_name, method, path, json, message) => {
    const c = client(app);
    const before = await exported(app, 'keys');
    const response = await c.send(method, path, json);
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual([message]);
    expect(await exported(app, 'keys')).toBe(before);
    expect((await c.get('/sessions/k1')).status).toBe(404);
    expect((await c.get('/sessions/k2')).status).toBe(404);
  });

  test('are refused (400) as query parameters', async () => {
    const response = await client(app).get('/sessions?constructor=x');
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual(['property constructor should not exist']);
  });
});

describe(`arrays of more than ${MAX_ARRAY_ITEMS} items`, () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
    await client(app).send('post', '/sessions', '{"id":"big"}').expect(201);
    await client(app).send('post', '/sessions', '{"id":"child"}').expect(201);
  });
  afterAll(() => app.close());

  const messages = (count: number) => JSON.stringify(Array.from({ length: count }, (_, i) => ({ role: 'user', content: `m${i}` })));
  const tooMany = messages(MAX_ARRAY_ITEMS + 1);

  test.each([
    ['a batch', 'post', '/sessions/big/messages/batch', `{"messages":${tooMany}}`, 'messages'],
    ['a history replacement', 'put', '/sessions/big/history', `{"messages":${tooMany}}`, 'messages'],
    ['a transcript', 'put', '/sessions/big/transcript', `{"messages":${tooMany}}`, 'messages'],
    ['a compaction', 'post', '/sessions/big/compactions', `{"messages":${tooMany},"sourceMessageCount":0,"retainedMessageCount":0}`, 'messages'],
    [
      'a repair',
      'post',
      '/sessions/big/repairs',
      `{"repairMessage":{"role":"tool","content":"r"},"balancedMessages":${tooMany},"sourceMessageCount":0}`,
      'balancedMessages',
    ],
    [
      'subsessions',
      'put',
      '/sessions/big/transcript',
      `{"messages":[],"subsessions":${JSON.stringify(Array(MAX_ARRAY_ITEMS + 1).fill('child'))}}`,
      'subsessions',
    ],
  ] as const)('%s is a 400 and changes nothing', async (_name, method, path, json, property) => {
    const before = await exported(app, 'big');
    const response = await client(app).send(method, path, json);
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual([`${property} must contain no more than ${MAX_ARRAY_ITEMS} elements`]);
    expect(await exported(app, 'big')).toBe(before);
  });

  test(`exactly ${MAX_ARRAY_ITEMS} messages are taken`, async () => {
    const response = await client(app).send('post', '/sessions/big/messages/batch', `{"messages":${messages(MAX_ARRAY_ITEMS)}}`);
    expect(response.status).toBe(201);
    expect(response.body.messages).toHaveLength(MAX_ARRAY_ITEMS);
    await client(app).send('post', '/sessions/big/messages/batch', '{"messages":[]}').expect(201);
  });

  test('subsessions that are not an array are a 400', async () => {
    const response = await client(app).send('put', '/sessions/big/transcript', '{"messages":[],"subsessions":"child"}');
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('subsessions must be an array');
  });

  test('a 1 MiB batch of 30,000 tiny messages is refused before it is validated', async () => {
    const started = performance.now();
    const response = await client(app).send('post', '/sessions/big/messages/batch', `{"messages":${messages(30_000)}}`);
    expect(response.status).toBe(400);
    // Validated item by item, it took over a second; refused up front, a few milliseconds past parsing.
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('the limit is in the OpenAPI schemas', () => {
    const { components } = setupStoreDocs(app);
    const schemas = components!.schemas as Record<string, { properties: Record<string, { maxItems?: number }> }>;
    expect(schemas.MessagesBody.properties.messages.maxItems).toBe(MAX_ARRAY_ITEMS);
    expect(schemas.RepairBody.properties.balancedMessages.maxItems).toBe(MAX_ARRAY_ITEMS);
    expect(schemas.TranscriptBody.properties.subsessions.maxItems).toBe(MAX_ARRAY_ITEMS);
  });
});

describe('query values in their strict formats only', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
    await client(app).send('post', '/sessions', '{"id":"q"}').expect(201);
  });
  afterAll(() => app.close());

  // Encoded as sent on the wire: %20 a space, %2B a plus (a bare + is a space in a query string).
  test.each(['1e2', '0x10', '%205', '5%20', '%2B5', '-1', '5.0', '0', '501', '00001', '', '1,2', 'Infinity'])(
    '?limit=%s is a 400 on sessions',
    async (limit) => {
      const response = await client(app).get(`/sessions?limit=${limit}`);
      expect(response.status).toBe(400);
      expect(response.body.message).toEqual(['limit must be an integer from 1 to 500, in plain decimal digits']);
    },
  );

  test.each(['1e2', '0x10', '%205', '1001'])('?limit=%s is a 400 on history and transcript', async (limit) => {
    for (const path of ['history', 'transcript']) {
      const response = await client(app).get(`/sessions/q/${path}?limit=${limit}`);
      expect(response.status).toBe(400);
      expect(response.body.message).toEqual(['limit must be an integer from 1 to 1000, in plain decimal digits']);
    }
  });

  test('plain decimal limits are taken', async () => {
    const c = client(app);
    expect((await c.get('/sessions?limit=500')).status).toBe(200);
    expect((await c.get('/sessions?limit=0001')).status).toBe(200);
    expect((await c.get('/sessions/q/history?limit=1000')).status).toBe(200);
  });

  test.each([
    '0',
    '1714000000000',
    '%2B275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    'Jan%201%202024',
    '2024/05/01',
    '2024-02-30',
    '2023-02-29T00:00:00Z',
    '2024-05-01T12:00:00', // no offset: the server's time zone would decide
    '2024-05-01%2012:00:00Z',
    '0999-12-31T23:59:59Z',
    '1000-01-01T00:00:00%2B01:00', // 999-12-31 in UTC
    '%202024-05-01',
  ])('createdAfter=%s is a 400', async (date) => {
    const response = await client(app).get(`/sessions?createdAfter=${date}`);
    expect(response.status).toBe(400);
    expect(response.body.message).toEqual([expect.stringMatching(/^createdAfter must be a Date in ISO-8601.*within the years 1000 to 9999$/)]);
  });

  test.each([
    '2024-05-01',
    '2024-02-29',
    '2024-05-01T12:00Z',
    '2024-05-01T12:00:00.123456Z',
    '2024-05-01T12:00:00%2B02:00',
    '1000-01-01',
    '9999-12-31T23:59:59.999Z',
  ])('createdBefore=%s is taken', async (date) => {
    expect((await client(app).get(`/sessions?createdBefore=${date}`)).status).toBe(200);
  });

  test('the dates taken bound the list', async () => {
    const c = client(app);
    expect((await c.get('/sessions?createdAfter=9999-12-31').expect(200)).body.sessions).toEqual([]);
    expect((await c.get('/sessions?createdBefore=9999-12-31').expect(200)).body.sessions.map((s: { id: string }) => s.id)).toEqual(['q']);
    expect((await c.get('/sessions?createdBefore=2000-01-01T00:00:00%2B01:00').expect(200)).body.sessions).toEqual([]);
  });
});

describe('dates in bodies', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
    await client(app).send('post', '/sessions', '{"id":"d"}').expect(201);
  });
  afterAll(() => app.close());

  const bad = ['2024-02-31T10:00:00Z', '1', '12/31/2024', '2024-05-01T12:00:00', '2024-05-01', '2024-05-01T24:00:00Z', '0999-12-31T23:59:59Z'];
  const body = (createdAt: string) => JSON.stringify({ role: 'user', content: 'x', createdAt });

  test.each(bad)('createdAt %s is a 400 on every route that takes a message, and nothing is written', async (createdAt) => {
    const c = client(app);
    const before = await exported(app, 'd');
    for (const [path, json] of [
      ['/sessions/d/messages', body(createdAt)],
      ['/sessions/d/messages/batch', `{"messages":[${body(createdAt)}]}`],
      ['/sessions/d/entries', body(createdAt)],
    ]) {
      const response = await c.send('post', path, json);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(JSON.stringify(response.body.message)).toMatch(/createdAt must be (a Date or )?an ISO-8601 date-time with Z or an offset/);
    }
    expect(await exported(app, 'd')).toBe(before);
  });

  test.each(bad)('a JSONL header with createdAt %s is a 400 and creates nothing', async (createdAt) => {
    const id = `dated-${bad.indexOf(createdAt)}`;
    const header = JSON.stringify({ type: 'session', version: 1, id, createdAt });
    const response = await client(app).raw('/sessions/import').set('Content-Type', 'application/x-ndjson').send(`${header}\n`);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^line 1: createdAt must be a Date or an ISO-8601 date-time with Z or an offset|within the years 1000 to 9999/);
    expect((await client(app).get(`/sessions/${id}`)).status).toBe(404);
  });

  test('an offset is applied, not dropped', async () => {
    const response = await client(app).send('post', '/sessions/d/messages', body('2024-05-01T12:00:00.250+02:00')).expect(201);
    expect(response.body.createdAt).toBe('2024-05-01T10:00:00.250Z');
  });
});

describe('Content-Encoding', () => {
  const json = '{"id":"zipped"}';
  const header = '{"type":"session","version":1,"id":"zipped","createdAt":"2024-01-01T00:00:00Z"}\n';

  test('anything but identity is a 415 when the store reads the body, and writes nothing', async () => {
    const app = await httpApp();
    try {
      const c = client(app);
      const cases: [string, string | Buffer, string, string][] = [
        ['gzip', gzipSync(json), 'application/json', '/sessions'],
        ['gzip', json, 'application/json', '/sessions'], // plain text labelled gzip
        ['deflate', deflateSync(json), 'application/json', '/sessions'],
        ['br', json, 'application/json', '/sessions'],
        ['gzip, identity', json, 'application/json', '/sessions'],
        ['gzip', gzipSync(header), 'application/x-ndjson', '/sessions/import'],
      ];
      for (const [encoding, body, type, path] of cases) {
        const response = await c.raw(path).set('Content-Type', type).set('Content-Encoding', encoding).send(body);
        expect({ encoding, type, status: response.status }).toEqual({ encoding, type, status: 415 });
        expect(response.body.message).toBe('send the body uncompressed: the store takes no Content-Encoding other than "identity"');
        expect(response.headers['accept-encoding']).toBe('identity');
      }
      expect((await c.get('/sessions').expect(200)).body.sessions).toEqual([]);
      for (const identity of ['identity', 'IDENTITY']) {
        await c.raw('/sessions').set('Content-Type', 'application/json').set('Content-Encoding', identity).send(`{"id":"plain-${identity}"}`).expect(201);
      }
    } finally {
      await app.close();
    }
  });

  test("a gzip body that Nest's parser inflated is a 415 all the same; one it cannot inflate is its own 400", async () => {
    const app = await httpApp({ bodyParser: true });
    try {
      const c = client(app);
      const inflated = await c.raw('/sessions').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(gzipSync(json));
      expect(inflated.status).toBe(415);
      expect(inflated.body.message).toMatch(/Content-Encoding/);
      const corrupt = await c.raw('/sessions').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(json);
      expect(corrupt.status).toBe(400);
      expect((await c.get('/sessions').expect(200)).body.sessions).toEqual([]);
    } finally {
      await app.close();
    }
  });

  test('a content type other than JSON (JSONL for imports) is a 415', async () => {
    const app = await httpApp();
    try {
      const response = await client(app).raw('/sessions').set('Content-Type', 'text/plain').send('{"id":"text"}');
      expect(response.status).toBe(415);
      expect(response.body.message).toMatch(/application\/json/);
    } finally {
      await app.close();
    }
  });
});
