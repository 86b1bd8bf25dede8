// The HTTP API's e2e suites share this: an app with the store mounted on a
// fresh SQLite file (or the url given), served on a loopback port, and clients
// that record every answer, so a suite can check that no error ever came back
// as a 500 or with a stack trace, whatever the test asserted itself.
import { request as httpRequest, STATUS_CODES, type IncomingHttpHeaders, type Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import supertest from 'supertest';
import { setupStoreDocs } from '../../src/http/index.js';
import { StoreModule, type StoreHttpOptions, type StoreModuleOptions } from '../../src/index.js';
import { tempSqliteUrl } from './databases.js';

export const KEY_A = 'e2e-key-tenant-a-0123456789abcdef';
export const KEY_B = 'e2e-key-tenant-b-0123456789abcdef';
export const TENANT_A = 'tenant-a';
export const TENANT_B = 'tenant-b';
export const PREFIX = '/agent-store';

export interface HttpApp {
  app: INestApplication;
  server: Server;
  /** The OpenAPI document setupStoreDocs built for this app. */
  document: OpenAPIObject;
  close(): Promise<void>;
}

/**
 * Boots StoreModule with the HTTP API (two API keys, no throttling: Jest
 * cannot load @nestjs/throttler on Node 20) on `store.url`, a fresh SQLite
 * file by default, with Nest's own body parser off, and listens on a loopback port.
 */
export async function bootHttpApp(http: Partial<StoreHttpOptions> = {}, store: StoreModuleOptions = {}): Promise<HttpApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      StoreModule.forRoot({
        url: tempSqliteUrl(),
        migrate: true,
        ...store,
        http: { apiKeys: { [KEY_A]: TENANT_A, [KEY_B]: TENANT_B }, throttle: false, ...http },
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  const document = setupStoreDocs(app, 'docs');
  await app.init();
  const server = app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { app, server, document, close: () => app.close() };
}

/** Every answer a Client received, for `expectEveryErrorClean`. */
export const answers: { method: string; path: string; status: number; headers: IncomingHttpHeaders; text: string }[] = [];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

/** Requests under the prefix, with `key` as the bearer token (none when null). Each answer is recorded. */
export class Client {
  constructor(
    private readonly server: Server,
    private readonly key: string | null,
  ) {}

  request(method: Method, path: string): supertest.Test {
    const test = supertest(this.server)[method](`${PREFIX}${path}`);
    if (this.key !== null) test.set('Authorization', `Bearer ${this.key}`);
    test.on('response', (response: supertest.Response) =>
      answers.push({ method: method.toUpperCase(), path, status: response.status, headers: response.headers, text: response.text ?? '' }),
    );
    return test;
  }

  get = (path: string) => this.request('get', path);
  post = (path: string, body?: unknown) => this.withBody(this.request('post', path), body);
  put = (path: string, body?: unknown) => this.withBody(this.request('put', path), body);
  patch = (path: string, body?: unknown) => this.withBody(this.request('patch', path), body);
  delete = (path: string) => this.request('delete', path);

  /** A JSON body as the exact text given (malformed, deep, a bare value…). */
  postText = (path: string, text: string, contentType = 'application/json') => this.request('post', path).set('Content-Type', contentType).send(text);

  private withBody(test: supertest.Test, body: unknown): supertest.Test {
    return body === undefined ? test : test.send(body as object);
  }
}

/** What a raw HTTP exchange gave: for bodies supertest would re-encode (bytes that are not UTF-8, chunked uploads). */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Sends `chunks` as the body, one write each; chunked unless a Content-Length header is given. */
export function rawRequest(server: Server, method: string, path: string, headers: Record<string, string>, chunks: Buffer[] = []): Promise<RawAnswer> {
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path: `${PREFIX}${path}`, headers }, (response) => {
      const received: Buffer[] = [];
      response.on('data', (chunk: Buffer) => received.push(chunk));
      response.on('end', () => {
        const answer = { status: response.statusCode!, headers: response.headers, text: Buffer.concat(received).toString('utf8') };
        answers.push({ method, path, ...answer });
        resolve(answer);
      });
    });
    outgoing.on('error', reject);
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

// A stack frame ("    at fn (file.ts:1:2)", "at async …", "at node:internal…") or a source position.
const STACK = /(^|\n)\s*at\s|\bat (async )?[\w$.<>[\]]+ \(|\.(ts|js|mjs|cjs):\d+(:\d+)?|node:internal|Invalid `/;

/** An error answer as the docs promise it: JSON `{ statusCode, error, message }`, that status, no stack trace. */
export function expectError(answer: { status: number; headers: IncomingHttpHeaders; text: string }, status: number, message?: RegExp | string): void {
  expect({ status: answer.status, text: answer.text }).toEqual({ status, text: expect.any(String) });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'statusCode']);
  expect(body).toMatchObject({ statusCode: status, error: STATUS_CODES[status] });
  const text = Array.isArray(body.message) ? body.message.join('\n') : body.message;
  expect(typeof text).toBe('string');
  expect(answer.text).not.toMatch(STACK);
  if (message !== undefined) expect(text).toMatch(message);
}

/**
 * Every answer recorded so far: none is a 500, and every 4xx or 5xx but
 * /health's (terminus's shape) is a clean error. Suites call it after each test.
 */
export function expectEveryErrorClean(): void {
  const recorded = answers.splice(0);
  const unclean = recorded.filter((answer) => {
    if (answer.status < 400) return false;
    if (answer.status >= 500 && answer.status !== 503) return true;
    if (answer.path === '/health' || answer.method === 'HEAD') return STACK.test(answer.text);
    try {
      expectError(answer, answer.status);
      return false;
    } catch {
      return true;
    }
  });
  expect(unclean.map(({ method, path, status, text }) => `${method} ${path} -> ${status} ${text.slice(0, 300)}`)).toEqual([]);
}

/** The (method, path) pairs the app's router serves under the prefix, paths in Express's `:param` form. */
export function mappedRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } };
  return (
    express.router.stack
      .flatMap((layer) => (layer.route ? Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${layer.route!.path}`) : []))
      .filter((route) => route.split(' ')[1].startsWith(`${PREFIX}/`))
      // Express registers each route with and without a trailing slash.
      .map((route) => route.replace(` ${PREFIX}`, ' ').replace(/(.)\/$/, '$1'))
      .filter((route, i, all) => all.indexOf(route) === i)
      .sort()
  );
}

/** The (method, path) pairs the OpenAPI document describes, in the same form. */
export function documentedRoutes(document: OpenAPIObject): string[] {
  return Object.entries(document.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path.replace(PREFIX, '').replace(/\{(\w+)\}/g, ':$1')}`),
    )
    .sort();
}

/** A line of JSONL as the store exports it. */
export const jsonl = (...values: object[]) => values.map((value) => `${JSON.stringify(value)}\n`).join('');

/** One request the API serves: a route as Nest maps it, with what a valid request sends. */
export interface RouteCase {
  /** e.g. `POST /sessions/:id/messages`, as `mappedRoutes` lists it. */
  route: string;
  /** Which of the route's requests this is, when a route has several. */
  variant?: string;
  query?: string;
  /** A valid body, given another session of the caller's that is free to become a subsession. */
  body?: (other: string) => unknown;
  /** The body's media type when it is not JSON. */
  contentType?: string;
  /** The answer to a valid request on a session of the caller's. */
  status: 200 | 201 | 204;
}

const summary = { role: 'system', content: 'Summary: nothing yet.' };
let imports = 0;

/** A JSONL session with one message, as an import body. */
export const sessionJsonl = (id: string) =>
  jsonl(
    { type: 'session', version: 1, id, tenantId: null, title: 'imported', metadata: null, createdAt: '2026-01-01T00:00:00.000Z' },
    { type: 'message', seq: 1, message: { role: 'user', content: 'imported', createdAt: '2026-01-01T00:00:01.000Z' } },
  );

/**
 * Every request of the API, one or more per route and method. The isolation
 * suite checks this list against the routes Nest mapped, so a route added
 * later without a case here fails it.
 */
export const ROUTES: RouteCase[] = [
  { route: 'POST /sessions', body: () => ({ title: 'new' }), status: 201 },
  { route: 'GET /sessions', status: 200 },
  { route: 'GET /sessions', variant: 'page', query: 'limit=1', status: 200 },
  { route: 'GET /sessions', variant: 'search', query: 'search=a', status: 200 },
  { route: 'POST /sessions/import', body: () => sessionJsonl(`imported-${++imports}`), contentType: 'application/x-ndjson', status: 201 },
  { route: 'GET /health', status: 200 },
  { route: 'GET /sessions/:id', status: 200 },
  { route: 'PATCH /sessions/:id', body: () => ({ title: 'changed', metadata: { changed: true } }), status: 200 },
  { route: 'PATCH /sessions/:id', variant: 'null clears', body: () => ({ title: null, metadata: null }), status: 200 },
  { route: 'DELETE /sessions/:id', status: 204 },
  { route: 'DELETE /sessions/:id', variant: 'cascade', query: 'cascade=true', status: 204 },
  { route: 'DELETE /sessions/:id', variant: 'cascade=false', query: 'cascade=false', status: 204 },
  { route: 'GET /sessions/:id/export', status: 200 },
  { route: 'POST /sessions/:id/fork', body: () => ({}), status: 201 },
  { route: 'POST /sessions/:id/messages', body: () => ({ role: 'user', content: 'hello' }), status: 201 },
  {
    route: 'POST /sessions/:id/messages/batch',
    body: () => ({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ],
    }),
    status: 201,
  },
  { route: 'POST /sessions/:id/messages/batch', variant: 'empty', body: () => ({ messages: [] }), status: 201 },
  { route: 'GET /sessions/:id/history', status: 200 },
  { route: 'GET /sessions/:id/history', variant: 'page', query: 'limit=1', status: 200 },
  { route: 'PUT /sessions/:id/history', body: () => ({ messages: [{ role: 'user', content: 'replaced' }] }), status: 200 },
  { route: 'DELETE /sessions/:id/history', status: 204 },
  { route: 'GET /sessions/:id/count', status: 200 },
  { route: 'POST /sessions/:id/compactions', body: () => ({ messages: [summary], sourceMessageCount: 0, retainedMessageCount: 0 }), status: 204 },
  {
    route: 'POST /sessions/:id/repairs',
    body: () => ({ repairMessage: { role: 'tool', content: [{ type: 'text', text: 'repaired' }] }, balancedMessages: [], sourceMessageCount: 0 }),
    status: 204,
  },
  { route: 'GET /sessions/:id/repairs', status: 200 },
  { route: 'GET /sessions/:id/transcript', status: 200 },
  { route: 'GET /sessions/:id/transcript', variant: 'page', query: 'limit=1', status: 200 },
  { route: 'PUT /sessions/:id/transcript', body: () => ({ messages: [{ role: 'user', content: 'saved' }], metadata: { saved: true } }), status: 200 },
  { route: 'PUT /sessions/:id/transcript', variant: 'with a subsession', body: (other) => ({ messages: [], subsessions: [other] }), status: 200 },
  { route: 'POST /sessions/:id/subsessions', body: (other) => ({ childId: other }), status: 204 },
  { route: 'GET /sessions/:id/subsessions', status: 200 },
  { route: 'POST /sessions/:id/entries', variant: 'message', body: () => ({ role: 'user', content: 'entry' }), status: 201 },
  { route: 'POST /sessions/:id/entries', variant: 'event', body: () => ({ type: 'tool-approval', data: { approved: true } }), status: 201 },
  { route: 'GET /sessions/:id/entries', status: 200 },
  { route: 'GET /sessions/:id/log', status: 200 },
  { route: 'GET /sessions/:id/log', variant: 'from a seq', query: 'fromSeq=2&limit=1', status: 200 },
];

export const caseName = (c: RouteCase) => (c.variant ? `${c.route} (${c.variant})` : c.route);

/** Sends `c` for the session `id` (ignored by routes without `:id`) with `client`'s key. */
export function send(client: Client, c: RouteCase, id: string, other = 'no-such-session'): supertest.Test {
  const [method, route] = c.route.split(' ');
  const path = route.replace(':id', encodeURIComponent(id)) + (c.query ? `?${c.query}` : '');
  const test = client.request(method.toLowerCase() as Method, path);
  if (!c.body) return test;
  const body = c.body(other);
  return typeof body === 'string' ? test.set('Content-Type', c.contentType ?? 'application/json').send(body) : test.send(body as object);
}
