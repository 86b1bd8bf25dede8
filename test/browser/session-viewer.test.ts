// The session viewer in a real browser: Debian's Chromium driven by
// playwright-core (no browser download), over the demo's session and seeded ones.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { TenantStores } from '../../src/index.js';
import {
  COOKIE_SESSION_ID,
  DEMO_KEY,
  EDGE_ID,
  FAR_GAP,
  FAR_ID,
  FILLER_SESSIONS,
  FORK_ID,
  LONG_HALF,
  LONG_ID,
  OTHER_KEY,
  PRUNED_ID,
  PRUNED_REPAIR_ID,
  REPAIRED_TWICE_ID,
  REMOTE_URL,
  startGuardedApp,
  startViewerApp,
  XSS_ID,
  XSS_TEXT,
  XSS_TITLE,
  type ViewerApp,
} from './viewer-app.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SCREENSHOT = join(process.cwd(), 'test-artifacts', 'session-viewer.png');
const PAGE_SIZE = 100;

let viewer: ViewerApp;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const cspViolations: string[] = [];
const remoteRequests: string[] = [];
const keyedAssetRequests: string[] = [];

beforeAll(async () => {
  // Never skipped: a missing browser is a failure that says what to install.
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's package "chromium" (apt-get install chromium) or set CHROMIUM_PATH`);
  viewer = await startViewerApp();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'], timeout: 30_000 });
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // Chromium reports what the CSP refused on the console: the page itself must need nothing it forbids.
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  // Nothing goes anywhere but under the API's prefix, and the key only with the API's own calls.
  page.on('request', (request) => {
    if (!request.url().startsWith(`${viewer.api}/`)) remoteRequests.push(request.url());
    if (request.headers().authorization !== undefined && request.url().startsWith(`${viewer.api}/viewer/`)) keyedAssetRequests.push(request.url());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.app.close();
});

const api = (path: string, key = DEMO_KEY) => fetch(`${viewer.api}/${path}`, { headers: { Authorization: `Bearer ${key}` } });
const session = (id: string, query = '') => page.goto(`${viewer.api}/viewer/#/session/${encodeURIComponent(id)}${query}`);
const logEntries = () => page.getByTestId('log-pane').getByTestId('log-entry');
const firstLogSeq = async () => Number(await logEntries().first().getAttribute('data-seq'));

/** Waits (bounded) until the first element of `locator` contains `text`, or has exactly that text. */
async function hasText(locator: Locator, text: string, exact = false): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen: string | null = null;
  while (Date.now() < deadline) {
    seen = await locator
      .first()
      .textContent({ timeout: 10_000 })
      .catch(() => null);
    if (seen !== null && (exact ? seen === text : seen.includes(text))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected ${exact ? 'the text' : 'a text containing'} ${JSON.stringify(text)}, saw ${JSON.stringify(seen)}`);
}

/** Polls `condition` (bounded) until it holds. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await condition().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const logStartsAt = (seq: number) => until(async () => (await firstLogSeq()) === seq, `the log's page starts at seq ${seq}`);

async function useKey(key: string): Promise<void> {
  if (await page.getByTestId('key-forget').isVisible()) await page.getByTestId('key-forget').click();
  await page.getByTestId('key-input').fill(key);
  await page.getByTestId('key-save').click();
}

test('serves its files from a whitelist under a strict CSP, without a key, and redirects /viewer to /viewer/', async () => {
  const bare = await fetch(`${viewer.api}/viewer`, { redirect: 'manual' });
  expect(bare.status).toBe(302);
  expect(bare.headers.get('location')).toBe('viewer/');
  const index = await fetch(`${viewer.api}/viewer/`);
  expect(index.status).toBe(200);
  expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(index.headers.get('content-security-policy')).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  expect(index.headers.get('x-content-type-options')).toBe('nosniff');
  expect(index.headers.get('referrer-policy')).toBe('no-referrer');
  expect(index.headers.get('cache-control')).toBe('no-cache');
  const script = await fetch(`${viewer.api}/viewer/app.js`);
  expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect((await fetch(`${viewer.api}/viewer/viewer.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  expect((await fetch(`${viewer.api}/viewer/origins.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  const icon = await fetch(`${viewer.api}/viewer/favicon.svg`);
  expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  expect(icon.headers.get('content-security-policy')).toBe(index.headers.get('content-security-policy'));
  for (const path of ['nope.js', '..%2Fpackage.json', '%2E%2E%2F%2E%2E%2Fpackage.json', 'toString', '__proto__']) {
    expect((await fetch(`${viewer.api}/viewer/${path}`)).status).toBe(404);
  }
});

test('asks for a key with a prompt, not an error, says when a key is refused, then lists the demo session; search narrows the list', async () => {
  await page.goto(`${viewer.api}/viewer`);
  const prompt = page.getByTestId('key-prompt');
  await page.getByTestId('key-form').waitFor();
  // The prompt is the page: what to enter and where the key is kept, no error, no list.
  await hasText(prompt, 'API key');
  await hasText(prompt, 'this tab only (sessionStorage)');
  expect(await page.getByTestId('error').isVisible()).toBe(false);
  expect(await page.getByTestId('key-refused').isVisible()).toBe(false);
  expect(await page.locator('main').isVisible()).toBe(false);
  expect(await page.evaluate("document.activeElement.getAttribute('data-testid')")).toBe('key-input');

  // A key the API refuses: the prompt says so, still without the error banner, and the key is not kept.
  await useKey('not-a-key-of-this-store');
  await hasText(page.getByTestId('key-refused'), 'That key was not accepted');
  expect(await prompt.isVisible()).toBe(true);
  expect(await page.getByTestId('error').isVisible()).toBe(false);
  expect(await page.getByTestId('key-forget').isVisible()).toBe(false);
  expect(await page.evaluate('sessionStorage.length')).toBe(0);

  await useKey(DEMO_KEY);
  const items = page.getByTestId('session-item');
  await items.filter({ hasText: 'filler-20' }).waitFor();
  expect(await prompt.isVisible()).toBe(false);
  expect(await page.getByTestId('key-forget').isVisible()).toBe(true);

  await page.getByTestId('search-input').fill('lisbon');
  await page.getByTestId('search-button').click();
  await until(async () => new URL(page.url()).hash === '#/?search=lisbon', 'the search is in the route');
  await until(async () => (await items.count()) === 1, 'one session matches');
  expect(await items.first().getAttribute('data-session-id')).toBe(viewer.demoSessionId);

  await page.getByTestId('search-input').fill('RESEARCHER');
  await page.getByTestId('search-button').click();
  await until(async () => (await items.count()) === 1, 'one session matches');
  expect(await items.first().getAttribute('data-session-id')).toBe(`${viewer.demoSessionId}/researcher`);
  await items.first().getByTestId('badge-subsession').waitFor();
});

test('pages through the sessions list and back', async () => {
  const total = FILLER_SESSIONS + 10;
  await page.goto(`${viewer.api}/viewer/#/`);
  const items = page.getByTestId('session-item');
  await until(async () => (await items.count()) === 20, 'the first page holds 20 sessions');
  const firstOfPage1 = await items.first().getAttribute('data-session-id');
  expect(await page.getByTestId('sessions-previous').isDisabled()).toBe(true);
  await hasText(items.filter({ hasText: FORK_ID }).getByTestId('badge-fork'), `fork of ${viewer.demoSessionId} at seq `);
  await page.getByTestId('sessions-next').click();
  await until(async () => (await items.count()) === total - 20, `the second page holds the other ${total - 20}`);
  await hasText(page.getByTestId('session-status'), 'Page 2', true);
  expect(await page.getByTestId('sessions-next').isDisabled()).toBe(true);
  // Newest first: the demo's sessions, stored first, come last.
  expect(await items.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-session-id')))).toContain(viewer.demoSessionId);
  await page.getByTestId('sessions-previous').click();
  await until(async () => (await items.count()) === 20, 'the first page again');
  expect(await items.first().getAttribute('data-session-id')).toBe(firstOfPage1);
});

test("opens the demo session: its tree, its boundaries, paired and orphaned tool calls, a message's details", async () => {
  await page.getByTestId('search-input').fill('lisbon');
  await page.getByTestId('search-button').click();
  await page.getByTestId('session-item').filter({ hasText: 'A weekend in Lisbon' }).getByRole('link').click();
  await hasText(page.getByTestId('session-id'), viewer.demoSessionId, true);

  // The tree: the session is its root, highlighted, with the researcher under it.
  const tree = page.getByTestId('tree');
  const researcher = `${viewer.demoSessionId}/researcher`;
  await tree.locator(`[data-testid=tree-node][data-session-id="${researcher}"]`).waitFor();
  expect(await tree.locator('[aria-current=page]').getAttribute('data-session-id')).toBe(viewer.demoSessionId);
  await tree.getByRole('link', { name: researcher }).click();
  await hasText(page.getByTestId('session-id'), researcher, true);
  await hasText(page.getByTestId('parent-link'), viewer.demoSessionId, true);
  await page.locator(`[data-testid=tree] [aria-current=page][data-session-id="${researcher}"]`).waitFor();
  await page.goBack();
  await hasText(page.getByTestId('session-id'), viewer.demoSessionId, true);

  // Its fork, listed and linked both ways.
  await page.getByTestId('forks').getByRole('link', { name: FORK_ID }).click();
  await hasText(page.getByTestId('session-id'), FORK_ID, true);
  await hasText(page.getByTestId('forked-from-link'), viewer.demoSessionId, true);
  expect(
    await page
      .getByTestId('session-header')
      .locator('dd')
      .filter({ has: page.getByTestId('forked-from-link') })
      .textContent(),
  ).toMatch(/ at seq \d+$/);
  await page.goBack();
  await hasText(page.getByTestId('session-id'), viewer.demoSessionId, true);

  // The boundaries where they cut, their summary and evidence readable.
  const log = page.getByTestId('log-pane');
  const compaction = log.locator('[data-testid=boundary][data-kind=compaction]');
  const repair = log.locator('[data-testid=boundary][data-kind=repair]');
  await repair.waitFor();
  expect(await compaction.getByTestId('boundary-text').textContent()).toMatch(
    /^compaction at seq \d+ replaces seq ≤ \d+ with 3 messages, 2 kept verbatim \(made from 6 of the history\)/,
  );
  expect(await repair.getByTestId('boundary-text').textContent()).toMatch(
    /^repair at seq \d+ replaces seq ≤ \d+ with 5 messages \(the balanced projection of \d+ of the history\).*latest/,
  );
  await compaction.getByTestId('boundary-messages').locator('summary').click();
  await hasText(compaction.getByTestId('boundary-messages'), 'Summary: flights TP 1337');
  await repair.getByTestId('repair-evidence').locator('summary').click();
  await hasText(repair.getByTestId('repair-evidence'), 'book_hotel');
  await hasText(repair.getByTestId('repair-evidence').getByTestId('tool-result'), 'error-text');

  // What the latest boundary cut away is dimmed, and said once, above the log: not on each row.
  const cutSeq = Number(await repair.getAttribute('data-cut-seq'));
  const repairSeq = Number(await repair.getAttribute('data-seq'));
  const compactionSeq = Number(await compaction.getAttribute('data-seq'));
  const dimmed = await log
    .locator('[data-testid=log-entry]:has(.message.dim)')
    .evaluateAll((entries) => entries.map((entry) => Number(entry.getAttribute('data-seq'))));
  const messageSeqs = await log
    .locator('[data-testid=log-entry][data-type=message]')
    .evaluateAll((entries) => entries.map((entry) => Number(entry.getAttribute('data-seq'))));
  expect(dimmed).toEqual(messageSeqs.filter((seq) => seq <= cutSeq));
  expect(dimmed.length).toBe(7);
  await hasText(log.getByTestId('log-cut-note'), `Dimmed: seq ≤ ${cutSeq}, replaced by the repair at seq ${repairSeq}; not in the effective history.`, true);
  expect((await log.textContent())!.split('not in the effective history').length - 1).toBe(1);
  const dimmedRow = log.locator(`[data-testid=log-entry][data-seq="${dimmed[0]}"] [data-testid=message]`);
  const opacity = (locator: Locator) => locator.evaluate((element) => Number(element.ownerDocument.defaultView!.getComputedStyle(element).opacity));
  expect(await opacity(dimmedRow)).toBeLessThan(1);
  expect(await dimmedRow.getAttribute('title')).toBe(`Not in the effective history: replaced by the repair at seq ${repairSeq}.`);
  expect(await opacity(log.locator(`[data-testid=log-entry][data-seq="${repairSeq}"] > *`))).toBe(1);

  // Each of the history's boundary messages says which boundary made it, or which seq of the log it was,
  // in its heading, where a seq would be (no stray dash).
  await hasText(page.getByTestId('history-start'), 'repair at seq');
  const historyPane = page.getByTestId('history-pane');
  await until(async () => (await historyPane.getByTestId('origin').count()) === 5, 'the five boundary messages are attributed');
  expect(await historyPane.getByTestId('origin').allTextContents()).toEqual([
    `summary by the compaction at seq ${compactionSeq}`,
    'kept from seq 5',
    'kept from seq 6',
    'seq 8',
    `added by the repair at seq ${repairSeq}`,
  ]);
  for (const heading of await historyPane.locator('[data-testid=message] > header').allTextContents()) expect(heading).not.toContain('—');
  expect(await historyPane.locator('[data-testid=message] > header').first().textContent()).toBe(`summary by the compaction at seq ${compactionSeq} system`);

  // Tool calls: flights-1 answered by the message after it; hotel-1 never answered in the transcript.
  const flights = log.locator('[data-testid=tool-call][data-tool-call-id=flights-1]');
  await hasText(flights.getByTestId('tool-paired'), 'result at seq 3');
  await hasText(log.locator('[data-testid=tool-result][data-tool-call-id=flights-1]').getByTestId('tool-paired'), 'call at seq 2');
  await log.locator('[data-testid=tool-call][data-tool-call-id=hotel-1]').getByTestId('orphaned').waitFor();
  // In the effective history, the repair's projection answers it.
  const history = page.getByTestId('history-pane');
  expect(await history.locator('[data-testid=tool-call][data-tool-call-id=hotel-1] [data-testid=orphaned]').count()).toBe(0);
  await hasText(history.locator('[data-testid=tool-result][data-tool-call-id=hotel-1]'), 'error-text');

  // A message's details, on demand.
  const first = log.getByTestId('message').first();
  await first.getByTestId('message-details').locator('summary').click();
  const size = Number((await first.getByTestId('message-size').textContent())!.split(' ')[0]);
  const {
    entries: [entry],
  } = (await (await api(`sessions/${encodeURIComponent(viewer.demoSessionId)}/log?limit=1`)).json()) as { entries: [{ message: unknown }] };
  expect(size).toBe(Buffer.byteLength(JSON.stringify(entry.message)));

  mkdirSync(join(process.cwd(), 'test-artifacts'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  process.stdout.write(`session viewer screenshot: ${SCREENSHOT}\n`);

  // An origin's seq opens the log there.
  await history.getByTestId('origin').filter({ hasText: 'kept from seq 5' }).getByRole('link', { name: 'seq 5' }).click();
  await logStartsAt(5);
  expect(new URL(page.url()).hash).toBe(`#/session/${encodeURIComponent(viewer.demoSessionId)}?seq=5`);
});

test('exports the session as JSONL, equal to the API export', async () => {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const saved = readFileSync((await download.path())!, 'utf8');
  const fromApi = await (await api(`sessions/${encodeURIComponent(viewer.demoSessionId)}/export`)).text();
  expect(saved).toBe(fromApi);
  expect(saved.split('\n')[0]).toContain(viewer.demoSessionId);
});

test('pages through a 100,000-message transcript, a page in the DOM at a time, and jumps to a seq', async () => {
  const logReads: URL[] = [];
  const onRequest = (request: { url(): string }) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith('/log')) logReads.push(url);
  };
  page.on('request', onRequest);
  await session(LONG_ID);
  await hasText(page.getByTestId('session-id'), LONG_ID, true);
  await page
    .getByTestId('log-status')
    .filter({ hasText: /^seq 1–/ })
    .waitFor();
  expect(await logEntries().count()).toBe(PAGE_SIZE);
  expect(await page.getByTestId('history-entry').count()).toBe(PAGE_SIZE);
  // The history starts with the compaction's summary, said to be the compaction's without reading the log behind it.
  await hasText(page.getByTestId('history-entry').first(), `Summary of the first ${LONG_HALF} messages.`);
  await hasText(page.getByTestId('history-entry').first().getByTestId('origin'), `summary by the compaction at seq ${LONG_HALF + 2}`, true);
  page.off('request', onRequest);
  expect(logReads.map((url) => Number(url.searchParams.get('limit'))).every((limit) => limit <= PAGE_SIZE)).toBe(true);

  await page.getByTestId('log-next').click();
  await logStartsAt(101);
  expect(await logEntries().count()).toBe(PAGE_SIZE);
  await page.getByTestId('log-next').click();
  await logStartsAt(201);
  await page.getByTestId('log-previous').click();
  await logStartsAt(101);
  await page.getByTestId('log-previous').click();
  await logStartsAt(1);
  expect(await page.getByTestId('log-previous').isDisabled()).toBe(true);

  // Around the middle: the event and the compaction, and the messages it cut dimmed.
  await page.getByTestId('jump-seq').fill(String(LONG_HALF - 10));
  await page.getByTestId('jump-go').click();
  await logStartsAt(LONG_HALF - 10);
  expect(await logEntries().count()).toBe(PAGE_SIZE);
  await hasText(page.getByTestId('log-pane').getByTestId('event'), 'checkpoint');
  await hasText(page.getByTestId('log-pane').locator('[data-testid=boundary][data-kind=compaction]'), `replaces seq ≤ ${LONG_HALF}`);
  expect(
    await logEntries()
      .filter({ has: page.locator('.message.dim') })
      .count(),
  ).toBe(11);
  await hasText(page.getByTestId('log-cut-note'), `Dimmed: seq ≤ ${LONG_HALF}, replaced by the compaction at seq ${LONG_HALF + 2};`);
  // Back from a jumped-to page: the entries just before it.
  await page.getByTestId('log-previous').click();
  await until(async () => Number(await logEntries().last().getAttribute('data-seq')) === LONG_HALF - 11, 'the page before ends just before the jump');
  expect(await logEntries().count()).toBeLessThanOrEqual(PAGE_SIZE);
  // …and Next from there comes back to the jumped-to page, not past it.
  await page.getByTestId('log-next').click();
  await logStartsAt(LONG_HALF - 10);

  // A seq in the route opens the log there; the history pages on its own.
  // Its end: the last page is short, and the last entry is the last message (two runs, the event and the compaction).
  await session(LONG_ID, `?seq=${2 * LONG_HALF - 50}`);
  await logStartsAt(2 * LONG_HALF - 50);
  expect(await firstLogSeq()).toBe(2 * LONG_HALF - 50);
  expect(Number(await logEntries().last().getAttribute('data-seq'))).toBe(2 * LONG_HALF + 2);
  expect(await page.getByTestId('log-next').isDisabled()).toBe(true);
  await page.getByTestId('history-next').click();
  await page.getByTestId('history-status').filter({ hasText: 'page 2' }).waitFor();
  expect(await page.getByTestId('history-entry').count()).toBe(PAGE_SIZE);
});

test('pairs a call that ends a page with its result at the head of the next, and follows the link there', async () => {
  await session(EDGE_ID);
  await logStartsAt(1);
  expect(await logEntries().count()).toBe(PAGE_SIZE);
  const call = page.getByTestId('log-pane').locator('[data-testid=tool-call][data-tool-call-id=edge-1]');
  await hasText(call.getByTestId('tool-paired'), 'result at seq 101', true);
  expect(await call.getByTestId('orphaned').count()).toBe(0);
  // The history (no boundary: the same messages) pairs it the same way.
  await hasText(
    page.getByTestId('history-pane').locator('[data-testid=tool-call][data-tool-call-id=edge-1]').getByTestId('tool-paired'),
    'result at seq 101',
    true,
  );
  await call.getByRole('link', { name: 'seq 101' }).click();
  await logStartsAt(101);
  await hasText(
    page.getByTestId('log-pane').locator('[data-testid=tool-result][data-tool-call-id=edge-1]').getByTestId('tool-paired'),
    'call at seq 100',
    true,
  );
});

test('attributes each boundary message to the boundary or log seq it came from, and only to the boundary that carried it when it lies further back than the viewer reads', async () => {
  await session(FAR_ID);
  const history = page.getByTestId('history-pane');
  await until(async () => (await history.getByTestId('origin').count()) === 4, 'the four boundary messages are attributed');
  expect(await history.getByTestId('origin').allTextContents()).toEqual([
    `summary by the compaction at seq ${FAR_GAP + 2}`,
    // It was seq 1: more than a few pages behind the boundaries.
    `kept by the compaction at seq ${FAR_GAP + 2}`,
    `seq ${FAR_GAP + 3}`,
    `added by the repair at seq ${FAR_GAP + 4}`,
  ]);
  expect(await history.getByTestId('origin').nth(1).locator('[title]').getAttribute('title')).toContain('further back');
});

test("attributes a repair's results merged into a tool message, and its added message, to the repair; a pruned compaction's kept messages to the compaction, and a pruned repair's carried messages to the repair", async () => {
  await session(REPAIRED_TWICE_ID);
  const history = page.getByTestId('history-pane');
  await until(async () => (await history.getByTestId('origin').count()) === 6, 'the six boundary messages are attributed');
  expect(await history.getByTestId('origin').allTextContents()).toEqual([
    'seq 1',
    'seq 2',
    'seq 3, completed by the repair at seq 6',
    'seq 4',
    'seq 5',
    'added by the repair at seq 6',
  ]);
  await session(PRUNED_ID);
  await until(async () => (await history.getByTestId('origin').count()) === 3, 'the three boundary messages are attributed');
  expect(await history.getByTestId('origin').allTextContents()).toEqual([
    'summary by the compaction at seq 5',
    'kept by the compaction at seq 5',
    'kept by the compaction at seq 5',
  ]);
  expect(await history.getByTestId('origin').nth(1).locator('[title]').getAttribute('title')).toContain('pruned');
  // A pruned repair: what it carried is gone from the log, what it added is its own.
  await session(PRUNED_REPAIR_ID);
  await until(async () => (await history.getByTestId('origin').count()) === 3, 'the three boundary messages are attributed');
  expect(await history.getByTestId('origin').allTextContents()).toEqual([
    'carried by the repair at seq 3',
    'carried by the repair at seq 3',
    'added by the repair at seq 3',
  ]);
});

test('renders hostile titles and messages as text, and loads no URL found in a message', async () => {
  await session(XSS_ID);
  await hasText(page.getByTestId('session-title'), XSS_TITLE, true);
  await hasText(page.getByTestId('log-pane').getByTestId('message').first(), XSS_TEXT);
  await hasText(page.getByTestId('log-pane').getByTestId('message').first(), REMOTE_URL);
  await page.getByTestId('log-pane').getByTestId('message-details').first().locator('summary').click();
  await page.getByTestId('session-metadata').locator('summary').click();
  // Tool names, ids, inputs and outputs, an unknown part, an event's type and data, a boundary's messages and a repair's evidence.
  await hasText(page.getByTestId('log-pane').getByTestId('tool-call').first(), XSS_TEXT);
  await hasText(page.getByTestId('log-pane').getByTestId('tool-result').first(), XSS_TEXT);
  await hasText(page.getByTestId('log-pane').getByTestId('event').first(), XSS_TEXT);
  const log = page.getByTestId('log-pane');
  for (const testId of ['boundary-messages', 'repair-evidence']) {
    for (const details of await log.getByTestId(testId).all()) await details.locator('> summary').click();
    await hasText(log.getByTestId(testId).last(), XSS_TEXT);
  }
  await page.goto(`${viewer.api}/viewer/#/?search=${encodeURIComponent('hostile')}`);
  await hasText(page.getByTestId('session-item').first(), XSS_TITLE);
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  expect(await page.locator('main img, main script').count()).toBe(0);
  expect(remoteRequests).toEqual([]);
  expect(keyedAssetRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

test("a second tenant's key sees none of the first tenant's sessions", async () => {
  await page.goto(`${viewer.api}/viewer/#/`);
  await useKey(OTHER_KEY);
  await hasText(page.getByTestId('session-status'), 'No sessions.', true);
  expect(await page.getByTestId('session-item').count()).toBe(0);
  await page.getByTestId('search-input').fill('trip');
  await page.getByTestId('search-button').click();
  await hasText(page.getByTestId('session-status'), 'No session matches "trip".', true);
  expect(await page.getByTestId('session-item').count()).toBe(0);
  await session(viewer.demoSessionId);
  await page.getByTestId('not-found').waitFor();
  expect(await page.getByTestId('session-header').count()).toBe(0);
});

test("behind a host's own guard (a cookie here) it works without a key, and asks for one when the guard refuses", async () => {
  const guarded = await startGuardedApp();
  const context = await browser.newContext();
  try {
    const hostPage = await context.newPage();
    hostPage.setDefaultTimeout(15_000);
    await hostPage.goto(`${guarded.api}/viewer/`);
    await hostPage.getByTestId('key-form').waitFor();
    // No key was sent: the prompt asks for one, without calling it refused and without an error.
    expect(await hostPage.getByTestId('key-refused').isVisible()).toBe(false);
    expect(await hostPage.getByTestId('error').isVisible()).toBe(false);
    await context.addCookies([{ name: 'host-session', value: 'cookie-tenant', url: guarded.api }]);
    await hostPage.reload();
    await hostPage.getByTestId('session-item').filter({ hasText: COOKIE_SESSION_ID }).waitFor();
    expect(await hostPage.getByTestId('key-form').isVisible()).toBe(false);
    expect(await hostPage.evaluate('sessionStorage.length')).toBe(0);
  } finally {
    await context.close();
    await guarded.app.close();
  }
});

test('lists a subsession under its parent when both are on the page, a grandchild deeper; a search hit without its parent keeps its place and badge', async () => {
  const guarded = await startGuardedApp();
  const context = await browser.newContext();
  try {
    const stores = guarded.app.get<TenantStores>(TenantStores).forTenant('cookie-tenant');
    // Newest first, the API lists each subsession before its parent.
    for (const [id, parentId] of [
      ['family', undefined],
      ['family/a', 'family'],
      ['family/b', 'family'],
      ['family/a/x', 'family/a'],
      ['loner', undefined],
    ]) {
      await stores.sessions.create({ id: id!, parentId });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await context.addCookies([{ name: 'host-session', value: 'cookie-tenant', url: guarded.api }]);
    const hostPage = await context.newPage();
    hostPage.setDefaultTimeout(15_000);
    const items = hostPage.getByTestId('session-item');
    const rows = () =>
      items.evaluateAll((elements) =>
        elements.map((element) => ({
          id: element.getAttribute('data-session-id'),
          depth: Number(element.getAttribute('data-depth')),
          left: Math.round(element.querySelector('.session-link')!.getBoundingClientRect().left),
          badge: element.querySelector('[data-testid=badge-subsession]')?.textContent ?? null,
        })),
      );
    await hostPage.goto(`${guarded.api}/viewer/#/`);
    await until(async () => (await items.count()) === 6, 'the six sessions are listed');
    const listed = await rows();
    expect(listed.map(({ id, depth, badge }) => ({ id, depth, badge }))).toEqual([
      { id: 'loner', depth: 0, badge: null },
      { id: 'family', depth: 0, badge: null },
      { id: 'family/b', depth: 1, badge: null },
      { id: 'family/a', depth: 1, badge: null },
      { id: 'family/a/x', depth: 2, badge: null },
      { id: COOKIE_SESSION_ID, depth: 0, badge: null },
    ]);
    // Indented by depth.
    const left = (id: string) => listed.find((row) => row.id === id)!.left;
    expect(left('family/b')).toBe(left('family/a'));
    expect(left('family')).toBeLessThan(left('family/a'));
    expect(left('family/a')).toBeLessThan(left('family/a/x'));
    expect(left('loner')).toBe(left('family'));

    // A search: family/a's parent does not match, family/a/x's does.
    await hostPage.getByTestId('search-input').fill('family/a');
    await hostPage.getByTestId('search-button').click();
    await until(async () => (await items.count()) === 2, 'two sessions match');
    expect((await rows()).map(({ id, depth, badge }) => ({ id, depth, badge }))).toEqual([
      { id: 'family/a', depth: 0, badge: 'subsession of family' },
      { id: 'family/a/x', depth: 1, badge: null },
    ]);
  } finally {
    await context.close();
    await guarded.app.close();
  }
});

test('links an SVG favicon that loads under the CSP, and asks for no file that is not there', async () => {
  const context = await browser.newContext();
  try {
    const fresh = await context.newPage();
    fresh.setDefaultTimeout(15_000);
    const missing: string[] = [];
    fresh.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    await fresh.goto(`${viewer.api}/viewer/`);
    await fresh.getByTestId('key-prompt').waitFor();
    const href = await fresh.locator('link[rel=icon]').evaluate((link) => new URL(link.getAttribute('href')!, link.baseURI).href);
    expect(href).toBe(`${viewer.api}/viewer/favicon.svg`);
    // Headless Chromium fetches no favicon of its own: the page loads it as an image, as a tab would.
    const width = await fresh.evaluate(
      `(async () => {
        const image = new Image();
        image.src = ${JSON.stringify(href)};
        await image.decode();
        return image.naturalWidth;
      })()`,
    );
    expect(width).toBeGreaterThan(0);
    const icon = await fetch(href);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(missing).toEqual([]);
  } finally {
    await context.close();
  }
});
