// StoreModule: opens the database named by the options and provides the stores.
import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { StoreDatabase } from './data/database.js';
import { openDatabase } from './data/open-database.js';
import { HistoryProviders } from './history-provider.js';
import { MessageStore } from './message-store.js';
import { PrismaMessageStore } from './message-store.service.js';
import { SessionStore } from './session-store.js';
import { PrismaSessionStore } from './session-store.service.js';
import { TranscriptStore } from './transcript-store.js';
import { PrismaTranscriptStore } from './transcript-store.service.js';
import { ConfigurableStoreModule, STORE_MODULE_OPTIONS, STORE_OPTIONS_TYPE } from './store.module-definition.js';
import { resolveOptions, type StoreModuleOptions } from './store.options.js';

/** Closes the client the module created; a caller's own client is left alone. */
@Injectable()
class StoreShutdown implements OnApplicationShutdown {
  private readonly logger = new Logger('AgentStore');
  constructor(@Inject(StoreDatabase) private readonly db: StoreDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    // Shutdown goes on for the rest of the app: log, do not throw.
    await this.db.close().catch((error: Error) => this.logger.error(`closing the database failed: ${error.message}`));
  }
}

@Module({
  providers: [
    {
      provide: StoreDatabase,
      inject: [STORE_MODULE_OPTIONS],
      useFactory: (options: StoreModuleOptions) => openDatabase(resolveOptions(options), new Logger('AgentStore')),
    },
    StoreShutdown,
    { provide: MessageStore, useClass: PrismaMessageStore },
    { provide: TranscriptStore, useClass: PrismaTranscriptStore },
    { provide: SessionStore, useClass: PrismaSessionStore },
    HistoryProviders,
  ],
  exports: [MessageStore, TranscriptStore, SessionStore, HistoryProviders],
})
export class StoreModule extends ConfigurableStoreModule {
  /** With no options: the embedded SQLite file ./data/agent-store.db, migrated at boot. */
  static override forRoot(options: typeof STORE_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }
}
