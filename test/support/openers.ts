// The backends the conformance suite runs on. An opener opens a store on a
// fresh, empty, migrated database and hands out the public API only: every
// backend passes the same tests, or it is not a backend. Another backend (a
// Galera cluster, a replica pair) is one more entry in OPENERS.
import { IntegrationStore } from '../../src/contract/index.js';
import type { KitStore, StoreOpener } from '../../src/testing/index.js';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import {
  ChatStore,
  HistoryProviders,
  MessageStore,
  SerializedSqliteAdapterFactory,
  SessionStore,
  StoreMaintenance,
  StoreModule,
  TenantStores,
  TranscriptStore,
  type StoreModuleOptions,
} from '../../src/index.js';
import { migrateUrl } from '../../src/engine/open-database.js';
import type { StoreClient } from '../../src/engine/store-client.js';
import { resolveOptions, type ResolvedStoreOptions } from '../../src/store.options.js';
import {
  describeBackend,
  freshGaleraUrls,
  SERVER_START_MS,
  freshReplicatedUrls,
  GALERA,
  MARIADB,
  PGBOUNCER,
  POSTGRESQL,
  REPLICATED,
  SQLITE,
  type TestDatabase,
} from './databases.js';

/** A store as an application sees it (the conformance kit's KitStore), with what the store's own tests look under it by. */
export interface StoreApp extends KitStore {
  /** The opener's label, e.g. "PostgreSQL, own PrismaClient". */
  label: string;
  /** The database's url. */
  url: string;
  another(): Promise<StoreApp>;
}

/** An opener of the conformance kit's, with the test servers under it. */
export interface Opener extends StoreOpener {
  /** False when the database's server is missing: its blocks are skipped, loudly (and CI fails in the global setup). */
  available: boolean;
  /** Starts the run's shared server under it, if no test has yet. */
  server(): Promise<unknown>;
  open(): Promise<StoreApp>;
}

/** The store opens the database from its url, and migrates it at boot when asked. */
function openUrl(label: string, url: string, migrate: boolean): Promise<StoreApp> {
  return boot(
    label,
    url,
    { url, migrate },
    async () => undefined,
    () => openUrl(label, url, false),
  );
}

function urlOpener(database: TestDatabase): Opener {
  return {
    label: database.label,
    provider: database.provider,
    available: database.available,
    server: database.server,
    open: async () => openUrl(database.label, await database.freshUrl(), true),
  };
}

/** The driver adapter an application builds its own PrismaClient with, per database, as docs/databases/own-prisma-client.md shows. */
export const OWN_ADAPTERS: Record<TestDatabase['provider'], (url: string) => SqlDriverAdapterFactory> = {
  sqlite: (url) => new SerializedSqliteAdapterFactory(url),
  postgresql: (url) => new PrismaPg({ connectionString: url }),
  mysql: (url) => new PrismaMariaDb(url),
};

/** The application's own PrismaClient (the provider's generated client, typed loosely: its models are the store's). */
export type AppClient = StoreClient;

/** An application's own PrismaClient on `url`, built with its driver adapter (or the factory given), with Prisma's other options. */
export async function appClient(database: TestDatabase, url: string, options: { adapter?: SqlDriverAdapterFactory; log?: object[] } = {}): Promise<AppClient> {
  const { PrismaClient } = await generatedClient(database.provider);
  return new PrismaClient({ adapter: OWN_ADAPTERS[database.provider](url), ...options }) as unknown as AppClient;
}

/** A fresh database migrated with the store's migrations, as `npm run db:migrate` applies them. */
export async function migratedUrl(database: TestDatabase): Promise<string> {
  const url = await database.freshUrl();
  await dbMigrate(url);
  return url;
}

/** The stores an application gets on its own PrismaClient, on a fresh migrated database (for the tests in its transactions). */
export interface OwnClientStores {
  prisma: AppClient;
  messages: MessageStore;
  sessions: SessionStore;
  close(): Promise<void>;
}

export async function ownClientStores(database: TestDatabase): Promise<OwnClientStores> {
  const prisma = await appClient(database, await migratedUrl(database));
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ prisma })] }).compile();
  await app.init();
  return {
    prisma,
    messages: app.get(MessageStore),
    sessions: app.get(SessionStore),
    async close() {
      await app.close();
      await prisma.$disconnect();
    },
  };
}

/** The application's own PrismaClient: the store is given it, on a database migrated beforehand. */
function ownClientOpener(database: TestDatabase): Opener {
  const label = `${database.label}, own PrismaClient`;
  const openClient = async (url: string): Promise<StoreApp> => {
    const prisma = await appClient(database, url);
    return boot(
      label,
      url,
      { prisma },
      () => prisma.$disconnect(),
      () => openClient(url),
    );
  };
  return {
    label,
    provider: database.provider,
    available: database.available,
    server: database.server,
    open: async () => openClient(await migratedUrl(database)),
  };
}

/**
 * A MariaDB Galera cluster: the store on one node's url, and `another()` (a second app) on the next node's, so
 * that the concurrency tests write through two nodes at once and read what the other node committed.
 */
function galeraOpener(): Opener {
  const label = 'MariaDB Galera, an app per node';
  const openOn = (urls: string[], node: number, migrate: boolean): Promise<StoreApp> =>
    boot(
      label,
      urls[node],
      { url: urls[node], migrate },
      async () => undefined,
      () => openOn(urls, (node + 1) % urls.length, false),
    );
  return { label, provider: GALERA.provider, available: GALERA.available, server: GALERA.server, open: async () => openOn(await freshGaleraUrls(), 0, true) };
}

/**
 * PostgreSQL behind PgBouncer in transaction mode, as most hosted PostgreSQL offers it: the store on the
 * pooler's url only, migrating at boot through it too (the migration is one transaction, see docs/databases/scaling.md).
 */
function pgbouncerOpener(): Opener {
  const label = `${PGBOUNCER.label} (transaction mode)`;
  return {
    label,
    provider: PGBOUNCER.provider,
    available: PGBOUNCER.available,
    server: PGBOUNCER.server,
    open: async () => openUrl(label, await PGBOUNCER.freshUrl(), true),
  };
}

/**
 * PostgreSQL with a hot standby: the store writes to the primary and reads session lists, exports and
 * transcript pages from the standby once it has replayed the store's writes (`replicas`).
 */
function replicaOpener(): Opener {
  const label = 'PostgreSQL with a replica';
  const openOn = ({ primary, replica }: { primary: string; replica: string }, migrate: boolean): Promise<StoreApp> =>
    boot(
      label,
      primary,
      { url: primary, replicas: [replica], migrate },
      async () => undefined,
      () => openOn({ primary, replica }, false),
    );
  return {
    label,
    provider: REPLICATED.provider,
    available: REPLICATED.available,
    server: REPLICATED.server,
    open: async () => openOn(await freshReplicatedUrls(), true),
  };
}

export const OPENERS: Opener[] = [
  urlOpener(SQLITE),
  urlOpener(POSTGRESQL),
  urlOpener(MARIADB),
  ownClientOpener(SQLITE),
  ownClientOpener(POSTGRESQL),
  ownClientOpener(MARIADB),
  galeraOpener(),
  pgbouncerOpener(),
  replicaOpener(),
];

/** Runs `suite` once per opener, in a describe block named by its label. */
export function eachBackend(suite: (backend: Opener) => void): void {
  for (const backend of OPENERS) describeBackend(backend.label, backend.available, () => suite(backend), backend.server);
}

/** Runs `suite` on the store's three databases, each opened from its url: the first three openers. */
export function eachDatabaseBackend(suite: (backend: Opener) => void): void {
  for (const backend of OPENERS.slice(0, 3)) describeBackend(backend.label, backend.available, () => suite(backend), backend.server);
}

/** The store of a describe block: opened on a fresh database before its tests, closed after them. */
export function storeOn(backend: Opener): StoreApp {
  let app: StoreApp | undefined;
  beforeAll(async () => {
    app = await backend.open();
  }, SERVER_START_MS);
  afterAll(() => app?.close());
  return new Proxy({} as StoreApp, {
    get(_target, key) {
      if (!app) throw new Error('the store opens in beforeAll');
      return app[key as keyof StoreApp];
    },
  });
}

async function boot(
  label: string,
  url: string,
  options: StoreModuleOptions,
  release: () => Promise<void>,
  another: () => Promise<StoreApp>,
): Promise<StoreApp> {
  try {
    const app = await Test.createTestingModule({ imports: [StoreModule.forRoot(options)] }).compile();
    await app.init();
    return {
      label,
      url,
      messages: app.get<MessageStore>(MessageStore),
      transcripts: app.get<TranscriptStore>(TranscriptStore),
      sessions: app.get<SessionStore>(SessionStore),
      chats: app.get<ChatStore>(ChatStore),
      tenants: app.get<TenantStores>(TenantStores),
      histories: app.get(HistoryProviders),
      maintenance: app.get<StoreMaintenance>(StoreMaintenance),
      integration: app.get(IntegrationStore),
      another,
      async close() {
        try {
          await app.close();
        } finally {
          await release();
        }
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

/** What `npm run db:migrate` (scripts/db-migrate.ts) does with DATABASE_URL. */
export async function dbMigrate(url: string): Promise<void> {
  const options = resolveOptions({ url }) as Extract<ResolvedStoreOptions, { source: 'url' }>;
  await migrateUrl(options, new Logger('test'));
}

type GeneratedClient = { PrismaClient: new (options: { adapter: SqlDriverAdapterFactory }) => { $disconnect(): Promise<void> } };

function generatedClient(provider: TestDatabase['provider']): Promise<GeneratedClient> {
  switch (provider) {
    case 'sqlite':
      return import('../../src/generated/sqlite/client.js') as Promise<unknown> as Promise<GeneratedClient>;
    case 'postgresql':
      return import('../../src/generated/postgresql/client.js') as Promise<unknown> as Promise<GeneratedClient>;
    case 'mysql':
      return import('../../src/generated/mysql/client.js') as Promise<unknown> as Promise<GeneratedClient>;
  }
}
