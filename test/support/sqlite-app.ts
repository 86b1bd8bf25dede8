// Boots StoreModule on a fresh SQLite file in a temporary directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { MessageStore, StoreModule, type StoreModuleOptions } from '../../src/index.js';
import { StoreDatabase } from '../../src/data/database.js';

export const tempSqliteUrl = (name = 'store.db') => `file:${join(mkdtempSync(join(tmpdir(), 'agent-store-')), name)}`;

export interface SqliteApp {
  app: TestingModule;
  url: string;
  messages: MessageStore;
  db: StoreDatabase;
  close(): Promise<void>;
}

export async function sqliteApp(options: StoreModuleOptions = {}): Promise<SqliteApp> {
  const url = options.url ?? tempSqliteUrl();
  const app = await Test.createTestingModule({ imports: [StoreModule.forRoot({ migrate: true, ...options, url })] }).compile();
  await app.init();
  return {
    app,
    url,
    messages: app.get<MessageStore>(MessageStore),
    db: app.get(StoreDatabase),
    close: () => app.close(),
  };
}
