// StoreCoreModule: the database and the stores of one StoreModule registration.
// StoreModule imports and re-exports it; the HTTP module, when mounted, imports the same registration.
import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ChatStore } from './stores/chats/chat-store.js';
import { PrismaChatStore } from './stores/chats/chat-store.service.js';
import { StoreDatabase } from './engine/database.js';
import { IntegrationStore } from './contract/integration-store.js';
import { DatabaseIntegrationStore } from './contract/database-integration-store.js';
import { openDatabase } from './engine/open-database.js';
import { HistoryProviders } from './stores/messages/history-provider.js';
import { MessageStore } from './stores/messages/message-store.js';
import { PrismaMessageStore } from './stores/messages/message-store.service.js';
import { redactText } from './values/redact.js';
import { SessionStore } from './stores/sessions/session-store.js';
import { PrismaSessionStore } from './stores/sessions/session-store.service.js';
import { StoreHealthIndicator } from './stores/health/store-health.indicator.js';
import { StoreMaintenance } from './stores/maintenance/store-maintenance.js';
import { PrismaStoreMaintenance } from './stores/maintenance/store-maintenance.service.js';
import { resolveOptions, type StoreModuleOptions } from './store.options.js';
import { TenantStores } from './stores/tenants/tenant-stores.js';
import { PrismaTenantStores } from './stores/tenants/tenant-stores.service.js';
import { TranscriptStore } from './stores/transcripts/transcript-store.js';
import { PrismaTranscriptStore } from './stores/transcripts/transcript-store.service.js';

/** The StoreModuleOptions of a registration, as forRoot or forRootAsync's factory gave them. */
export const STORE_MODULE_OPTIONS = Symbol('StoreModuleOptions');

/** Closes the client the module created; a caller's own client is left alone. */
@Injectable()
class StoreShutdown implements OnApplicationShutdown {
  private readonly logger = new Logger('AgentStore');
  constructor(@Inject(StoreDatabase) private readonly db: StoreDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    // Shutdown goes on for the rest of the app: log, do not throw.
    await this.db.close().catch((error: Error) => this.logger.error(`closing the database failed: ${redactText(error.message)}`));
  }
}

/** Registered with a STORE_MODULE_OPTIONS provider by StoreModule.forRoot / forRootAsync, never on its own. */
@Module({
  providers: [
    {
      provide: StoreDatabase,
      inject: [STORE_MODULE_OPTIONS],
      useFactory: (options: StoreModuleOptions) => openDatabase(resolveOptions(options), new Logger('AgentStore')),
    },
    StoreShutdown,
    { provide: MessageStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaMessageStore(db) },
    {
      provide: TranscriptStore,
      inject: [StoreDatabase, MessageStore],
      useFactory: (db: StoreDatabase, messages: PrismaMessageStore) => new PrismaTranscriptStore(db, messages),
    },
    { provide: SessionStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaSessionStore(db) },
    { provide: ChatStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaChatStore(db) },
    { provide: TenantStores, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaTenantStores(db) },
    { provide: StoreMaintenance, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaStoreMaintenance(db) },
    { provide: IntegrationStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new DatabaseIntegrationStore(db) },
    HistoryProviders,
    {
      provide: StoreHealthIndicator,
      inject: [StoreDatabase, STORE_MODULE_OPTIONS],
      useFactory: (db: StoreDatabase, options: StoreModuleOptions) => new StoreHealthIndicator(db, resolveOptions(options)),
    },
  ],
  // StoreDatabase for the integrations' providers (nestjs-agent-store/<framework>), which the app registers beside StoreModule.
  exports: [
    StoreDatabase,
    IntegrationStore,
    MessageStore,
    TranscriptStore,
    SessionStore,
    ChatStore,
    TenantStores,
    StoreMaintenance,
    HistoryProviders,
    StoreHealthIndicator,
  ],
})
export class StoreCoreModule {}
