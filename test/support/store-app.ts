// Boots StoreModule on a fresh SQLite file in a temporary directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { HistoryProviders, MessageStore, SessionStore, StoreModule, TenantStores, TranscriptStore, type StoreModuleOptions } from '../../src/index.js';
import { StoreDatabase } from '../../src/data/database.js';

export const tempSqliteUrl = (name = 'store.db') => `file:${join(mkdtempSync(join(tmpdir(), 'agent-store-')), name)}`;

export interface StoreApp {
  app: TestingModule;
  url: string;
  messages: MessageStore;
  transcripts: TranscriptStore;
  sessions: SessionStore;
  tenants: TenantStores;
  histories: HistoryProviders;
  db: StoreDatabase;
  close(): Promise<void>;
}
/** Boots the module on `options.url` (a fresh SQLite file when absent), migrated. */
export async function storeApp(options: StoreModuleOptions = {}): Promise<StoreApp> {
  const url = options.url ?? tempSqliteUrl();
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ migrate: true, ...options, url })] }).compile();
  await app.init();
  return {
    app,
    url,
    messages: app.get<MessageStore>(MessageStore),
    transcripts: app.get<TranscriptStore>(TranscriptStore),
    sessions: app.get<SessionStore>(SessionStore),
    tenants: app.get<TenantStores>(TenantStores),
    histories: app.get(HistoryProviders),
    db: app.get(StoreDatabase),
    close: () => app.close(),
  };
}
