// The store with its internals in reach, for the tests of internals and
// operations: StoreModule booted on a url, with its StoreDatabase beside the
// stores. (The conformance suite opens stores through ./openers.ts instead,
// which hands out the public API only.)
import { Test, type TestingModule } from '@nestjs/testing';
import { HistoryProviders, MessageStore, SessionStore, StoreModule, TenantStores, TranscriptStore, type StoreModuleOptions } from '../../src/index.js';
import { StoreDatabase } from '../../src/engine/database.js';
import { IntegrationStore } from '../../src/contract/index.js';
import { tempSqliteUrl, type TestDatabase } from './databases.js';
import { appClient, migratedUrl } from './openers.js';

export interface InternalStoreApp {
  app: TestingModule;
  url: string;
  messages: MessageStore;
  transcripts: TranscriptStore;
  sessions: SessionStore;
  tenants: TenantStores;
  histories: HistoryProviders;
  db: StoreDatabase;
  /** What a framework binding is given (nestjs-agent-store/integration). */
  integration: IntegrationStore;
  close(): Promise<void>;
}

/** Boots the module on `options.url` (a fresh SQLite file when absent), migrated. */
export async function storeApp(options: StoreModuleOptions = {}): Promise<InternalStoreApp> {
  const url = options.url ?? tempSqliteUrl();
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ migrate: true, ...options, url })] }).compile();
  await app.init();
  return internalsOf(app, url, () => app.close());
}

/** The stores and the database of a booted module. */
function internalsOf(app: TestingModule, url: string, close: () => Promise<void>): InternalStoreApp {
  return {
    app,
    url,
    messages: app.get<MessageStore>(MessageStore),
    transcripts: app.get<TranscriptStore>(TranscriptStore),
    sessions: app.get<SessionStore>(SessionStore),
    tenants: app.get<TenantStores>(TenantStores),
    histories: app.get(HistoryProviders),
    db: app.get(StoreDatabase),
    integration: app.get(IntegrationStore),
    close,
  };
}

/**
 * The store on an application's own PrismaClient that connected before the store started, so that the store
 * cannot reach its driver: every call goes through Prisma, none on the fast paths.
 */
export async function storeThroughPrisma(database: TestDatabase, options: Omit<StoreModuleOptions, 'prisma'> = {}): Promise<InternalStoreApp> {
  const url = await migratedUrl(database);
  const prisma = await appClient(database, url);
  await prisma.$connect();
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ ...options, prisma })] }).compile();
  await app.init();
  const store = internalsOf(app, url, async () => {
    await app.close();
    await prisma.$disconnect();
  });
  if (await store.db.fastPaths()) {
    await store.close();
    throw new Error('the store reached the driver under a client connected before it');
  }
  return store;
}

/** The store app of a describe block: opened on a fresh database (`throughPrisma`: see storeThroughPrisma) before its tests, closed after them. */
export function storeFor(database: TestDatabase, throughPrisma = false): InternalStoreApp {
  let app: InternalStoreApp | undefined;
  beforeAll(async () => {
    app = throughPrisma ? await storeThroughPrisma(database) : await storeApp({ url: await database.freshUrl() });
  });
  afterAll(() => app?.close());
  return new Proxy({} as InternalStoreApp, {
    get(_target, key) {
      if (!app) throw new Error('the store app opens in beforeAll');
      return app[key as keyof InternalStoreApp];
    },
  });
}

/** `suite` on each path of the store's SQL, in a describe block named for it: on the driver, and through Prisma's raw queries (see storeThroughPrisma). */
export function eachStorePath(database: TestDatabase, suite: (store: InternalStoreApp) => void): void {
  describe.each([
    ['on the driver', false],
    ['through Prisma', true],
  ])('%s', (_path, throughPrisma) => suite(storeFor(database, throughPrisma)));
}
