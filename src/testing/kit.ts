// The conformance kit (nestjs-agent-store/testing): the suites every way of
// opening the store must pass, handed an opener and a test runner. A new
// database, your own PrismaClient setup, or a binding built on the store runs
// them as the store's own CI does, on each of its openers.
import type { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { IntegrationStore } from '../contract/index.js';
import type { ChatStore, HistoryProviders, MessageStore, SessionStore, StoreMaintenance, TenantStores, TranscriptStore } from '../index.js';

/** A store as an application sees it: StoreModule's providers. */
export interface KitStore {
  /** The injected MessageStore. */
  messages: MessageStore;
  /** The injected TranscriptStore. */
  transcripts: TranscriptStore;
  /** The injected SessionStore. */
  sessions: SessionStore;
  /** The injected ChatStore. */
  chats: ChatStore;
  /** The injected TenantStores. */
  tenants: TenantStores;
  /** The injected HistoryProviders. */
  histories: HistoryProviders;
  /** The injected StoreMaintenance. */
  maintenance: StoreMaintenance;
  /** The injected IntegrationStore (nestjs-agent-store/integration). */
  integration: IntegrationStore;
  /** Another store on the same database, opened the same way through connections of its own, as a second process would. */
  another(): Promise<KitStore>;
  /** Closes the store, and what the opener made for it. */
  close(): Promise<void>;
}

/** A way of opening the store: on a database of yours, through your own PrismaClient, behind your proxy. */
export interface StoreOpener {
  /** Names the suites' describe block: `[label]`. */
  label: string;
  /** The database's dialect, as Prisma names it. */
  provider: 'sqlite' | 'postgresql' | 'mysql';
  /** A store on a fresh, empty, migrated database (one per suite). */
  open(): Promise<KitStore>;
}

/** The runner's functions the suites call, as jest types them: jest's globals by default (vitest's, with `globals: true`, are alike). */
export interface TestRunner {
  /** Groups tests in a block. */
  describe: typeof describe;
  /** Registers a test. */
  test: typeof test;
  /** Runs a function before the block's tests. */
  beforeAll: typeof beforeAll;
  /** Runs a function after the block's tests. */
  afterAll: typeof afterAll;
  /** Runs a function before each of the block's tests. */
  beforeEach: typeof beforeEach;
  /** Runs a function after each of the block's tests. */
  afterEach: typeof afterEach;
  /** Makes assertions, with jest's matchers. */
  expect: typeof expect;
}

/** What a suite is given: the runner, the opener, and the store it opened for the suite. */
export interface SuiteContext extends TestRunner {
  /** The opener the suite runs on: a suite may open more stores with it (a fresh database each). */
  opener: StoreOpener;
  /** The suite's store: opened before its tests and closed after them; using it while tests are registered is an error. */
  store: KitStore;
}

/** A conformance suite: it registers its tests when called. */
export type Suite = (context: SuiteContext) => void;

/** How long opening a store may take: a server or a cluster may be starting. */
const OPEN_MS = 120_000;

/** The test runner's globals; an Error naming them when there are none. */
export function globalRunner(): TestRunner {
  const globals = globalThis as unknown as Partial<TestRunner>;
  const { describe, test, beforeAll, afterAll, beforeEach, afterEach, expect } = globals;
  if (!describe || !test || !beforeAll || !afterAll || !beforeEach || !afterEach || !expect)
    throw new Error('no test runner globals (describe, test, beforeAll, afterAll, beforeEach, afterEach, expect): run under jest, or pass { runner }');
  return { describe, test, beforeAll, afterAll, beforeEach, afterEach, expect };
}

/**
 * Registers `suites` on stores `opener` opens: each suite in a describe block of its own name, with
 * a store opened before its tests and closed after them.
 */
export function runSuites(opener: StoreOpener, suites: Record<string, Suite>, runner: TestRunner = globalRunner()): void {
  for (const [name, suite] of Object.entries(suites)) runner.describe(name, () => suite({ ...runner, opener, store: storeFor(opener, runner) }));
}

/** The store of a suite: opened before its tests, closed after them; using it outside a test is an error. */
function storeFor(opener: StoreOpener, runner: TestRunner): KitStore {
  let store: KitStore | undefined;
  let failed: unknown;
  runner.beforeAll(async () => {
    try {
      store = await opener.open();
    } catch (error) {
      failed = error;
      throw error;
    }
  }, OPEN_MS);
  runner.afterAll(() => store?.close());
  return new Proxy({} as KitStore, {
    get(_target, key) {
      if (failed !== undefined) throw new Error(`the store of [${opener.label}] did not open: ${String(failed)}`);
      if (!store) throw new Error(`the store of [${opener.label}] opens before the suite's tests, not while they are registered`);
      return store[key as keyof KitStore];
    },
  });
}
