// The HTTP API, smoke-tested on SQLite: mounting, authentication, validation,
// body limits, throttling, health and docs. Not the exhaustive e2e suite.
import { Controller, Get, Inject, Injectable, Module, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import request from 'supertest';
import {
  MessageStore,
  SessionStore,
  setRequestTenant,
  StoreHealthIndicator,
  StoreModule,
  type StoreHttpOptions,
  type StoreModuleOptions,
} from '../../src/index.js';
import { setupStoreDocs } from '../../src/http/index.js';
import { runFixture } from '../support/processes.js';
import { tempSqliteUrl } from '../support/databases.js';

const KEY_A = 'smoke-key-tenant-a-0123456789';
const KEY_B = 'smoke-key-tenant-b-0123456789';
const asA = { Authorization: `Bearer ${KEY_A}` };

/**
 * An app with the store mounted (unless `http` is null). Throttling is off:
 * Jest cannot load @nestjs/throttler before Node 24.9, so the 429 is tested
 * in a child process below.
 */
async function httpApp(
  http: Partial<StoreHttpOptions> | null = {},
  { bodyParser = false, store = {} }: { bodyParser?: boolean; store?: StoreModuleOptions } = {},
): Promise<INestApplication> {
  const mounted = http && { http: { apiKeys: { [KEY_A]: 'tenant-a', [KEY_B]: 'tenant-b' }, throttle: false as const, ...http } };
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, ...store, ...mounted }), TerminusModule],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser, logger: false });
  if (http) setupStoreDocs(app);
  return app.init();
}

describe('the HTTP API', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await httpApp();
  });
  afterAll(() => app.close());

  test('refuses a missing or wrong API key with 401 and a Bearer challenge', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-key-but-long-enough-0000' }, { Authorization: KEY_A }]) {
      const response = await request(app.getHttpServer()).get('/agent-store/sessions').set(headers);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.text).not.toContain(KEY_A);
    }
  });

  test("creates a session (201) in the caller's tenant and reads it back (200); another tenant gets 404", async () => {
    const server = app.getHttpServer();
    const created = await request(server)
      .post('/agent-store/sessions')
      .set(asA)
      .send({ id: 'smoke-1', title: 'Smoke', metadata: { a: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'smoke-1', tenantId: 'tenant-a', title: 'Smoke', metadata: { a: 1 } });

    expect((await request(server).post('/agent-store/sessions/smoke-1/messages').set(asA).send({ role: 'user', content: 'hi' })).status).toBe(201);
    const read = await request(server).get('/agent-store/sessions/smoke-1').set(asA);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'smoke-1', tenantId: 'tenant-a' });
    const history = await request(server).get('/agent-store/sessions/smoke-1/history').set(asA);
    expect(history.body).toMatchObject({ messages: [{ seq: 1, role: 'user', content: 'hi' }], nextCursor: null });

    expect((await request(server).get('/agent-store/sessions/smoke-1').set('Authorization', `Bearer ${KEY_B}`)).status).toBe(404);
  });

  test('answers 400 to a non-whitelisted property and to ids that are objects', async () => {
    const server = app.getHttpServer();
    const extra = await request(server).post('/agent-store/sessions').set(asA).send({ id: 'smoke-2', tenantId: 'tenant-b' });
    expect(extra.status).toBe(400);
    expect(extra.body).toEqual({ statusCode: 400, error: 'Bad Request', message: ['property tenantId should not exist'] });
    expect(
      (
        await request(server)
          .post('/agent-store/sessions/smoke-1/subsessions')
          .set(asA)
          .send({ childId: { contains: '' } })
      ).status,
    ).toBe(400);
    expect((await request(server).get('/agent-store/sessions?parentId[contains]=').set(asA)).status).toBe(400);
  });

  test('refuses a body nested 10,000 deep with a 400, without walking it recursively', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const response = await request(app.getHttpServer()).post('/agent-store/sessions').set(asA).set('Content-Type', 'application/json').send(deep);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/deeper than 64 levels/);
  });

  test('serves /health (up) without a key, and the Swagger UI with a bearer scheme', async () => {
    const server = app.getHttpServer();
    const health = await request(server).get('/agent-store/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', info: { agentStore: { status: 'up' } }, error: {}, details: { agentStore: { status: 'up' } } });

    const ui = await request(server).get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('Swagger UI');
    const document = (await request(server).get('/docs-json')).body;
    expect(document.components.securitySchemes).toMatchObject({ bearer: { type: 'http', scheme: 'bearer' } });
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/agent-store/sessions', '/agent-store/sessions/{id}/history', '/agent-store/health']));
    // Documented once each, whether or not the compiler emitted decorator metadata (ts-jest does, tsx does not).
    const names = (path: string) => document.paths[path].get.parameters.map((parameter: { name: string }) => parameter.name).sort();
    expect(names('/agent-store/sessions')).toEqual(['createdAfter', 'createdBefore', 'cursor', 'forkedFrom', 'limit', 'parentId', 'search']);
    expect(names('/agent-store/sessions/{id}/history')).toEqual(['cursor', 'id', 'limit']);
    expect(names('/agent-store/sessions/{id}/log')).toEqual(['cursor', 'fromSeq', 'id', 'limit']);
    // A history page says where it starts, and compactions and repairs take it back as their precondition.
    const { schemas } = document.components;
    expect(schemas.HistoryPageResponse.properties.startSeq).toMatchObject({ type: 'integer', nullable: true });
    expect(schemas.HistoryPageResponse.required).toContain('startSeq');
    for (const [schema, route] of [
      ['CompactionBody', 'compactions'],
      ['RepairBody', 'repairs'],
    ]) {
      expect(schemas[schema].properties.expectedStartSeq).toMatchObject({ type: 'integer', minimum: 1, nullable: true });
      expect(schemas[schema].required).not.toContain('expectedStartSeq');
      expect(document.paths[`/agent-store/sessions/{id}/${route}`].post.responses['409'].description).toMatch(/expectedStartSeq/);
    }
  });
});

test('without the http option nothing is mounted', async () => {
  const app = await httpApp(null);
  expect((await request(app.getHttpServer()).get('/agent-store/sessions').set(asA)).status).toBe(404);
  expect((await request(app.getHttpServer()).get('/agent-store/health')).status).toBe(404);
  await app.close();
});

test('the prefix option moves every route', async () => {
  const app = await httpApp({ prefix: 'api/store' });
  expect((await request(app.getHttpServer()).get('/api/store/sessions').set(asA)).body).toEqual({ sessions: [], nextCursor: null });
  expect((await request(app.getHttpServer()).get('/agent-store/sessions').set(asA)).status).toBe(404);
  await app.close();
});

test('forRootAsync mounts it too, with http beside useFactory', async () => {
  const url = tempSqliteUrl();
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRootAsync({ useFactory: () => ({ url, migrate: true }), http: { apiKeys: { [KEY_A]: 'tenant-a' }, throttle: false } })],
  }).compile();
  const app = await moduleRef.createNestApplication({ logger: false }).init();
  expect((await request(app.getHttpServer()).post('/agent-store/sessions').set(asA).send({ id: 'async' })).status).toBe(201);
  await app.close();
});

test('a guard of your own sets the tenant; a request it lets through without one is refused (500)', async () => {
  @Injectable()
  class HeaderGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
      if (request.headers['x-tenant'] !== 'forget') setRequestTenant(request, request.headers['x-tenant']);
      return true;
    }
  }
  const app = await httpApp({ apiKeys: undefined, guard: HeaderGuard });
  const created = await request(app.getHttpServer()).post('/agent-store/sessions').set('X-Tenant', 'tenant-c').send({});
  expect(created.body).toMatchObject({ tenantId: 'tenant-c' });
  const forgotten = await request(app.getHttpServer()).get('/agent-store/sessions').set('X-Tenant', 'forget');
  expect(forgotten.status).toBe(500);
  expect(forgotten.text).not.toMatch(/ at /);
  await app.close();
});

test("a guard of your own can inject the store's providers", async () => {
  @Injectable()
  class ExistingSessionGuard implements CanActivate {
    constructor(@Inject(SessionStore) private readonly sessions: SessionStore) {}
    async canActivate(context: ExecutionContext): Promise<boolean> {
      const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
      // Lets a caller in as the tenant of the session it names.
      const session = await this.sessions.get(request.headers['x-session']);
      if (session?.tenantId) setRequestTenant(request, session.tenantId);
      return session !== null;
    }
  }
  const url = tempSqliteUrl();
  const app = await httpApp({ apiKeys: undefined, guard: ExistingSessionGuard }, { store: { url } });
  await app.get<SessionStore>(SessionStore).create({ id: 'door', tenantId: 'tenant-d' });
  expect((await request(app.getHttpServer()).get('/agent-store/sessions').set('X-Session', 'door')).body).toMatchObject({ sessions: [{ id: 'door' }] });
  expect((await request(app.getHttpServer()).get('/agent-store/sessions').set('X-Session', 'no-such')).status).toBe(403);
  await app.close();
});

test("the docs hold the store's routes only, and isGlobal serves the app's modules while the API is mounted", async () => {
  @Controller('own')
  class OwnController {
    constructor(@Inject(MessageStore) private readonly messages: MessageStore) {}
    @Get()
    async count(): Promise<{ count: number }> {
      return { count: await this.messages.count('own') };
    }
  }
  @Module({ controllers: [OwnController] })
  class OwnModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [
      StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, isGlobal: true, http: { apiKeys: { [KEY_A]: 'tenant-a' }, throttle: false } }),
      OwnModule,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  const document = setupStoreDocs(app);
  await app.init();
  expect((await request(app.getHttpServer()).post('/agent-store/sessions').set(asA).send({ id: 'own' })).status).toBe(201);
  expect((await request(app.getHttpServer()).post('/agent-store/sessions/own/messages').set(asA).send({ role: 'user', content: 'x' })).status).toBe(201);
  expect((await request(app.getHttpServer()).get('/own')).body).toEqual({ count: 1 });
  expect(Object.keys(document.paths).length).toBeGreaterThan(10);
  expect(Object.keys(document.paths).filter((path) => !path.startsWith('/agent-store/'))).toEqual([]);
  await app.close();
});

test('a body over maxBodyBytes is a 413, whether the store or Nest read it', async () => {
  const small = await httpApp({ maxBodyBytes: 1000 });
  const overLimit = await request(small.getHttpServer())
    .post('/agent-store/sessions')
    .set(asA)
    .send({ title: 'x'.repeat(2000) });
  expect(overLimit.status).toBe(413);
  expect(overLimit.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  await small.close();

  // Nest's default JSON parser reads first, with its 100 kb limit: a JSON 413 too, not an HTML page with a stack.
  const parsed = await httpApp({}, { bodyParser: true });
  const overNest = await request(parsed.getHttpServer())
    .post('/agent-store/sessions')
    .set(asA)
    .send({ title: 'x'.repeat(200_000) });
  expect(overNest.status).toBe(413);
  expect(overNest.headers['content-type']).toMatch(/^application\/json/);
  expect(overNest.text).not.toMatch(/ at /);
  // A body Nest parsed is still depth-checked.
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  expect((await request(parsed.getHttpServer()).post('/agent-store/sessions').set(asA).set('Content-Type', 'application/json').send(deep)).status).toBe(400);
  await parsed.close();
});

test('/health is a 503 while the migrations are not applied', async () => {
  const app = await httpApp({}, { store: { migrate: false } });
  const health = await request(app.getHttpServer()).get('/agent-store/health');
  expect(health.status).toBe(503);
  expect(health.body).toMatchObject({ status: 'error', info: {}, error: { agentStore: { status: 'down' } } });
  await app.close();
});

test("StoreHealthIndicator plugs into terminus's HealthCheckService", async () => {
  for (const migrate of [true, false]) {
    const app = await httpApp(null, { store: { migrate } });
    const check = app.get(HealthCheckService).check([() => app.get(StoreHealthIndicator).isHealthy()]);
    if (migrate) await expect(check).resolves.toMatchObject({ status: 'ok', info: { agentStore: { status: 'up' } } });
    else await expect(check).rejects.toMatchObject({ response: { status: 'error', error: { agentStore: { status: 'down' } } } });
    await app.close();
  }
});

test("past the throttle limit a 429, also for a wrong key, and the app's own ThrottlerModule keeps its options", async () => {
  const run = await runFixture('http-throttle.ts', []);
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({
    created: 201,
    read: 200,
    third: 200,
    fourth: { status: 429, body: expect.objectContaining({ statusCode: 429 }), retryAfter: expect.any(String) },
    wrongKey: 429,
    health: 200,
    appThrottlerOptions: [{ limit: 50, ttl: 60_000 }],
  });
});
