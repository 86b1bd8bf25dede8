// The log route and search across tenants over HTTP, on SQLite, with cursors and LIKE wildcards (beside http-isolation.test.ts's matrix of every route).
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { StoreModule } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

const A = 'review-tenant-a-key-0123456789';
const B = 'review-tenant-b-key-0123456789';
let app: INestApplication;

beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, http: { apiKeys: { [A]: 'tenant-a', [B]: 'tenant-b' }, throttle: false, viewer: true } }),
    ],
  }).compile();
  app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  await app.init();
});
afterAll(() => app?.close());

const as = (key: string) => ({
  get: (path: string) => request(app.getHttpServer()).get(`/agent-store${path}`).set('Authorization', `Bearer ${key}`),
  post: (path: string, body: object) => request(app.getHttpServer()).post(`/agent-store${path}`).set('Authorization', `Bearer ${key}`).send(body),
});

test("another tenant's key reads nothing of a session through /log or ?search, cursors included", async () => {
  expect((await as(A).post('/sessions', { id: 'secret-a', title: 'Secret plans of A' })).status).toBe(201);
  expect(
    (
      await as(A).post('/sessions/secret-a/messages/batch', {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: 'two' },
        ],
      })
    ).status,
  ).toBe(201);
  expect((await as(B).post('/sessions', { id: 'mine-b' })).status).toBe(201);
  const page = await as(A).get('/sessions/secret-a/log?limit=1');
  expect(page.status).toBe(200);
  const cursor = encodeURIComponent(page.body.nextCursor as string);

  expect((await as(B).get('/sessions/secret-a/log')).status).toBe(404);
  expect((await as(B).get(`/sessions/secret-a/log?cursor=${cursor}`)).status).toBe(404);
  expect((await as(B).get('/sessions/secret-a/log?fromSeq=1')).status).toBe(404);
  // A's cursor on B's own session: refused, and says nothing of A's session but that it is another thread.
  const mixed = await as(B).get(`/sessions/mine-b/log?cursor=${cursor}`);
  expect(mixed.status).toBe(400);
  for (const search of ['secret', 'SECRET-A', 'plans', '%', '_', '!', '%25', 's%', '\\']) {
    const found = await as(B).get(`/sessions?search=${encodeURIComponent(search)}`);
    expect([found.status, found.body.sessions.map((meta: { id: string }) => meta.id)]).toEqual([200, []]);
  }
  expect((await as(B).get('/sessions?search=mine')).body.sessions.map((meta: { id: string }) => meta.id)).toEqual(['mine-b']);
  expect((await as(A).get('/sessions?search=PLANS')).body.sessions.map((meta: { id: string }) => meta.id)).toEqual(['secret-a']);
  // Without a key: the viewer's page, nothing else.
  expect((await request(app.getHttpServer()).get('/agent-store/viewer/')).status).toBe(200);
  expect((await request(app.getHttpServer()).get('/agent-store/sessions/secret-a/log')).status).toBe(401);
  expect((await request(app.getHttpServer()).get('/agent-store/sessions?search=secret')).status).toBe(401);
});
