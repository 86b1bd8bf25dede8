// Stored values the store accepts but the viewer must survive, and session ids the page
// cannot put in a URL path. Behind the cookie guard of viewer-app.ts (no key).
import { existsSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TenantStores } from '../../src/index.js';
import { startGuardedApp } from './viewer-app.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
let guarded: { app: INestApplication; api: string };
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
  guarded = await startGuardedApp();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'], timeout: 30_000 });
  context = await browser.newContext();
  await context.addCookies([{ name: 'host-session', value: 'cookie-tenant', url: guarded.api }]);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await guarded?.app.close();
});

const stores = () => guarded.app.get<TenantStores>(TenantStores).forTenant('cookie-tenant');

// The store checks only that a part is an object with a string `type`: the rest is any JSON, and JSON can
// hold an object whose `toString` is not a function, which String() and template literals throw on.
test('a part whose fields are objects with a non-callable toString is shown, not a broken page', async () => {
  const id = 'odd-shapes';
  await stores().sessions.create({ id, title: 'odd shapes' });
  await stores().messages.appendMany(id, [
    { role: 'user', content: 'before' },
    { role: 'user', content: [{ type: 'text', text: { toString: 1 } }] } as never,
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: { toString: 'x' }, input: {} }] } as never,
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: { type: { toString: null }, value: 1 } }] } as never,
    { role: 'user', content: 'after' },
  ]);
  await page.goto(`${guarded.api}/viewer/#/session/${id}`);
  const log = page.getByTestId('log-pane');
  await log
    .getByTestId('log-status')
    .filter({ hasText: /^seq 1–5/ })
    .or(log.getByTestId('log-error'))
    .first()
    .waitFor();
  // Today: the log's whole page (and the history's) is replaced by "Cannot convert object to primitive value".
  expect(await log.getByTestId('log-error').allTextContents()).toEqual([]);
  expect(await log.getByTestId('log-entry').count()).toBe(5);
  expect(await page.getByTestId('history-pane').getByTestId('history-entry').count()).toBe(5);
  expect(pageErrors).toEqual([]);
});

// "." and ".." are valid ids, but a browser resolves sessions/. to sessions/ (the list) and sessions/.. to the
// prefix itself (%2E is a dot to the URL parser too): the page says it cannot read them, rather than show another resource.
test.each(['.', '..'])('a session whose id is "%s" is refused with a reason, not shown as another resource', async (id) => {
  await stores().sessions.create({ id, title: `the id ${id}` });
  await stores().sessions.create({ id: `unrelated-${id.length}`, title: 'not a fork' });
  await page.goto(`${guarded.api}/viewer/#/`);
  await page
    .getByTestId('session-item')
    .filter({ hasText: `the id ${id}` })
    .getByRole('link')
    .click();
  await page
    .getByTestId('error')
    .filter({ hasText: `session "${id}" cannot be read in a browser` })
    .waitFor();
  expect(await page.getByTestId('session-header').count()).toBe(0);
  expect(pageErrors).toEqual([]);
});
