// The `viewer` option, without a browser (test/browser/ drives the page): off by
// default, validated, moved by the prefix, outside the API's docs and guards.
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { setupStoreDocs } from '../../src/http/index.js';
import { StoreConfigurationError, StoreModule, type StoreHttpOptions } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

const KEY = 'viewer-option-key-0123456789';

async function httpApp(http: Partial<StoreHttpOptions>): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, http: { apiKeys: { [KEY]: 'tenant-a' }, throttle: false, ...http } })],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  return app;
}

test('is off unless asked for', async () => {
  const app = await (await httpApp({})).init();
  try {
    expect((await request(app.getHttpServer()).get('/agent-store/viewer/')).status).toBe(404);
    expect((await request(app.getHttpServer()).get('/agent-store/viewer/app.js')).status).toBe(404);
  } finally {
    await app.close();
  }
});

test('is true or false', () => {
  for (const viewer of ['yes', 1, 'false']) {
    expect(() => StoreModule.forRoot({ http: { apiKeys: { [KEY]: 'tenant-a' }, viewer: viewer as never } })).toThrow(
      new StoreConfigurationError(`StoreModule option "http.viewer" must be true or false, got ${String(viewer)}`),
    );
  }
});

test('is served under the prefix without a key, and is not in the API docs', async () => {
  const app = await httpApp({ prefix: 'api/store', viewer: true });
  const document = setupStoreDocs(app);
  await app.init();
  try {
    const server = app.getHttpServer();
    const page = await request(server).get('/api/store/viewer/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="app.js"></script>');
    expect((await request(server).get('/api/store/viewer')).headers.location).toBe('viewer/');
    expect((await request(server).get('/api/store/viewer?x=1')).headers.location).toBe('viewer/');
    // Only the listed files: nothing else of the package, and no name an object has by inheritance.
    for (const name of ['..%2Fpackage.json', '%2e%2e%2fpackage.json', '__proto__', 'constructor', 'hasOwnProperty', 'toString', 'index.htm', 'APP.JS']) {
      const answer = await request(server).get(`/api/store/viewer/${name}`);
      expect({ name, status: answer.status }).toEqual({ name, status: 404 });
    }
    expect((await request(server).get('/api/store/viewer/../../package.json')).status).toBe(404);
    const script = await request(server).get('/api/store/viewer/app.js');
    expect(script.status).toBe(200);
    expect(Number(script.headers['content-length'])).toBe(Buffer.byteLength(script.text));
    expect((await request(server).get('/agent-store/viewer/')).status).toBe(404);
    // The data it shows still needs the key.
    expect((await request(server).get('/api/store/sessions')).status).toBe(401);
    expect(Object.keys(document.paths).filter((path) => path.includes('viewer'))).toEqual([]);
  } finally {
    await app.close();
  }
});
