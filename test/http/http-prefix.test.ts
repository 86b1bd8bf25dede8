// The `prefix` option: a path a URL keeps as it is, or a StoreConfigurationError at boot.
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { StoreConfigurationError, StoreModule } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

const KEY = 'prefix-option-key-0123456789';
const forRoot = (prefix: unknown) =>
  StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, http: { apiKeys: { [KEY]: 'tenant-a' }, throttle: false, prefix: prefix as string } });

test('a prefix that browsers, curl and proxies would rewrite ("." or ".." segments), or that is no path, is refused at boot, saying what to pass', () => {
  for (const prefix of ['.', '..', '../x', 'a/../b', 'a/./b', './a', 'a/..', '/../', 'a//b', '', '/', 'a b', 'a%2e', 'a?b', 'a#b', 'é', 7]) {
    expect(() => forRoot(prefix)).toThrow(StoreConfigurationError);
    expect(() => forRoot(prefix)).toThrow(`got ${JSON.stringify(prefix)}`);
    expect(() => forRoot(prefix)).toThrow(/such as "agent-store" or "api\/agent-store".*none of them "\." or "\.\."/);
  }
});

test('a prefix of unreserved segments is taken, outer slashes aside, and its routes answer where a URL parser sends a client', async () => {
  for (const [given, path] of [
    ['/api/v1.2/', 'api/v1.2'],
    ['...', '...'],
    ['.well~known_x', '.well~known_x'],
    ['a..b/-', 'a..b/-'],
  ]) {
    const moduleRef = await Test.createTestingModule({ imports: [forRoot(given)] }).compile();
    const app: INestApplication = await moduleRef.createNestApplication({ bodyParser: false, logger: false }).init();
    try {
      const url = new URL(`/${path}/sessions`, 'http://host');
      expect(url.pathname).toBe(`/${path}/sessions`);
      const answer = await request(app.getHttpServer()).get(url.pathname).set('authorization', `Bearer ${KEY}`);
      expect({ given, status: answer.status }).toEqual({ given, status: 200 });
    } finally {
      await app.close();
    }
  }
});
