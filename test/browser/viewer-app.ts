// The demo's pieces with the viewer on, for the browser tests: the scripted
// agent's session in the demo tenant (under the demo's key), a second tenant
// with a key and no sessions, a fork of the demo's session, a long compacted
// transcript, a hostile one, one whose first page ends on a tool call, one whose
// latest boundary carries a message from far back, and enough others for the sessions list to have a second page.
import type { AddressInfo } from 'node:net';
import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DemoAgentService } from '../../demo/demo-agent.service.js';
import { DEMO_TENANT, ScriptedAgent } from '../../demo/scripted-agent.js';
import { setRequestTenant, StoreModule, TenantStores, type MessageInput, type ScopedStores } from '../../src/index.js';
import { tempSqliteUrl } from '../support/databases.js';

export const DEMO_KEY = 'demo-key-for-local-use-only';
export const OTHER_KEY = 'viewer-test-other-tenant-key-0123';
export const LONG_ID = 'long-transcript';
export const XSS_ID = 'hostile-session';
export const FORK_ID = 'variant-1';
export const EDGE_ID = 'page-edge';
export const FAR_ID = 'far-origin';
/** The messages after FAR_ID's first, before its compaction. */
export const FAR_GAP = 1100;
export const REPAIRED_TWICE_ID = 'repaired-twice';
export const PRUNED_ID = 'pruned-compaction';
export const PRUNED_REPAIR_ID = 'pruned-repair';
/** Sessions of no interest but their number: with the demo's two, its fork and the seven seeded here, 30. */
export const FILLER_SESSIONS = 20;
/** Two runs of this many messages, a checkpoint event and a compaction of the first run between them. */
export const LONG_HALF = 50_000;

export interface ViewerApp {
  app: INestApplication;
  /** The API's base URL, e.g. http://127.0.0.1:port/agent-store */
  api: string;
  demoSessionId: string;
}

export async function startViewerApp(): Promise<ViewerApp> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      StoreModule.forRoot({
        url: tempSqliteUrl(),
        migrate: true,
        // Throttling off: Jest cannot load @nestjs/throttler before Node 24.9 (see http-smoke.test.ts).
        http: { apiKeys: { [DEMO_KEY]: DEMO_TENANT, [OTHER_KEY]: 'other-tenant' }, throttle: false, viewer: true },
      }),
    ],
    providers: [DemoAgentService, ScriptedAgent],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  try {
    // init runs the scripted agent (DemoAgentService), as `npm start` does.
    await app.listen(0, '127.0.0.1');
    const stores = app.get<TenantStores>(TenantStores).forTenant(DEMO_TENANT);
    await seedLong(stores);
    await seedHostile(stores);
    await seedPageEdge(stores);
    await seedFarOrigin(stores);
    await seedRepairedTwice(stores);
    await seedPrunedCompaction(stores);
    await seedPrunedRepair(stores);
    // Enough sessions for a second page of the list (20 a page).
    for (let i = 1; i <= FILLER_SESSIONS; i++) await stores.sessions.create({ id: `filler-${String(i).padStart(2, '0')}` });
    const { sessions } = await stores.sessions.list();
    const demo = sessions.find((session) => session.id.startsWith('trip-') && !session.parentId);
    if (!demo) throw new Error('the scripted agent stored no trip-… session');
    await stores.sessions.fork(demo.id, { id: FORK_ID, title: 'A variant' });
    const { port } = app.getHttpServer().address() as AddressInfo;
    return { app, api: `http://127.0.0.1:${port}/agent-store`, demoSessionId: demo.id };
  } catch (error) {
    await app.close();
    throw error;
  }
}

const turn = (n: number): MessageInput => (n % 2 === 0 ? { role: 'user', content: `question ${n}` } : { role: 'assistant', content: `answer ${n}` });

async function seedLong(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: LONG_ID, title: 'A long transcript' });
  const run = async (from: number) => {
    for (let start = from; start < from + LONG_HALF; start += 1000) {
      await stores.messages.appendMany(
        LONG_ID,
        Array.from({ length: Math.min(1000, from + LONG_HALF - start) }, (_, i) => turn(start + i)),
      );
    }
  };
  await run(0);
  await stores.sessions.append(LONG_ID, { type: 'checkpoint', data: { after: LONG_HALF } });
  await stores.messages.appendCompaction(LONG_ID, [{ role: 'system', content: `Summary of the first ${LONG_HALF} messages.` }], LONG_HALF, 0);
  await run(LONG_HALF);
}

export const XSS_TITLE = '<img src=x onerror="window.__pwned=1">';
export const XSS_TEXT = '<script>window.__pwned=2</script><img src=x onerror="window.__pwned=3">';
export const REMOTE_URL = 'https://evil.invalid/pixel.png';

async function seedHostile(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: XSS_ID, title: XSS_TITLE, metadata: { note: XSS_TEXT } });
  await stores.messages.appendMany(XSS_ID, [
    {
      role: 'user',
      content: [
        { type: 'text', text: XSS_TEXT },
        { type: 'image', image: new URL(REMOTE_URL) },
      ],
      metadata: { html: XSS_TEXT },
    },
    { role: 'assistant', content: XSS_TEXT },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: XSS_TEXT, toolName: XSS_TEXT, input: { html: XSS_TEXT } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: XSS_TEXT, toolName: XSS_TEXT, output: { type: 'text', value: XSS_TEXT } }] },
    { role: 'user', content: [{ type: XSS_TEXT, html: XSS_TEXT }], providerOptions: { x: { html: XSS_TEXT } } },
  ]);
  await stores.sessions.append(XSS_ID, { type: XSS_TEXT, data: { html: XSS_TEXT } });
  await stores.messages.appendCompaction(XSS_ID, [{ role: 'system', content: XSS_TEXT }], 1, 0);
  await stores.messages.appendRepair(XSS_ID, { role: 'tool', content: [{ type: 'text', text: XSS_TEXT }] }, [{ role: 'system', content: XSS_TEXT }], 1);
}

/** A tool call at seq 100, the last of the first 100-entry page, answered at seq 101, the first of the next. */
async function seedPageEdge(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: EDGE_ID });
  await stores.messages.appendMany(EDGE_ID, [
    ...Array.from({ length: 99 }, (_, i) => turn(i)),
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'edge-1', toolName: 'lookup', input: { q: 'edge' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'edge-1', toolName: 'lookup', output: { type: 'text', value: 'found' } }] },
    { role: 'assistant', content: 'done' },
  ]);
}

/**
 * A compaction at seq FAR_GAP + 2 keeps the first message (seq 1) verbatim after a summary of all FAR_GAP + 1;
 * a call at FAR_GAP + 3 is left unanswered, and the repair at FAR_GAP + 4 answers it.
 */
async function seedFarOrigin(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: FAR_ID, title: 'An origin far back' });
  await stores.messages.appendMany(FAR_ID, [{ role: 'user', content: 'the first message' }, ...Array.from({ length: FAR_GAP }, (_, i) => turn(i + 1))]);
  const seen = await stores.messages.getHistory(FAR_ID);
  await stores.messages.appendCompaction(FAR_ID, [{ role: 'system', content: 'Summary of everything.' }, seen[0]], seen.length, 1);
  await stores.messages.append(FAR_ID, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'far-1', toolName: 'lookup', input: {} }] });
  await stores.messages.repairToolCalls(FAR_ID);
}

/**
 * Two orphans at two places: call b of the assistant at seq 2 (whose call a seq 3 answers) and call c at seq 5.
 * The repair at seq 6 merges b's result into the tool message of seq 3 and adds a tool message for c.
 */
async function seedRepairedTwice(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: REPAIRED_TWICE_ID });
  const call = (toolCallId: string) => ({ type: 'tool-call' as const, toolCallId, toolName: 'lookup', input: {} });
  await stores.messages.appendMany(REPAIRED_TWICE_ID, [
    { role: 'user', content: 'look up a and b, then c' },
    { role: 'assistant', content: [call('a'), call('b')] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'lookup', output: { type: 'text', value: 'found a' } }] },
    { role: 'user', content: 'and c?' },
    { role: 'assistant', content: [call('c')] },
  ]);
  await stores.messages.repairToolCalls(REPAIRED_TWICE_ID);
}

/** A compaction at seq 5 keeps seq 3 and 4 verbatim; then the transcript is pruned, so the log no longer holds them. */
async function seedPrunedCompaction(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: PRUNED_ID });
  await stores.messages.appendMany(PRUNED_ID, [turn(1), turn(2), turn(3), turn(4)]);
  const seen = await stores.messages.getHistory(PRUNED_ID);
  await stores.messages.appendCompaction(PRUNED_ID, [{ role: 'system', content: 'Summary of four turns.' }, ...seen.slice(2)], seen.length, 2);
  await stores.messages.pruneTranscript(PRUNED_ID);
}

/** A call at seq 2 left unanswered, the repair at seq 3 answers it, then the transcript is pruned: the log holds the repair only. */
async function seedPrunedRepair(stores: ScopedStores): Promise<void> {
  await stores.sessions.create({ id: PRUNED_REPAIR_ID });
  await stores.messages.appendMany(PRUNED_REPAIR_ID, [
    { role: 'user', content: 'look it up' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'p-1', toolName: 'lookup', input: {} }] },
  ]);
  await stores.messages.repairToolCalls(PRUNED_REPAIR_ID);
  await stores.messages.pruneTranscript(PRUNED_REPAIR_ID);
}

/**
 * The host authenticates by a cookie of its own (a stand-in for its sessions):
 * its guard maps the cookie `host-session=<tenant>` to that tenant and refuses
 * anything else, so the viewer works there without an API key.
 */
@Injectable()
class CookieGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    const tenant = /(?:^|;\s*)host-session=([a-z-]+)/.exec(request.headers.cookie ?? '')?.[1];
    if (!tenant) throw new UnauthorizedException('no host session');
    setRequestTenant(request, tenant);
    return true;
  }
}

export const COOKIE_SESSION_ID = 'host-authenticated';

/** An app whose API (and viewer) sit behind CookieGuard, with one session in tenant "cookie-tenant". */
export async function startGuardedApp(): Promise<{ app: INestApplication; api: string }> {
  const moduleRef = await Test.createTestingModule({
    imports: [StoreModule.forRoot({ url: tempSqliteUrl(), migrate: true, http: { guard: CookieGuard, throttle: false, viewer: true } })],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
  try {
    await app.listen(0, '127.0.0.1');
    await app.get<TenantStores>(TenantStores).forTenant('cookie-tenant').sessions.create({ id: COOKIE_SESSION_ID, title: 'Seen through the host' });
    const { port } = app.getHttpServer().address() as AddressInfo;
    return { app, api: `http://127.0.0.1:${port}/agent-store` };
  } catch (error) {
    await app.close();
    throw error;
  }
}
