// StoreModule: opens the database named by the options and provides the stores.
import {
  Inject,
  Injectable,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { StoreDatabase } from './data/database.js';
import { openDatabase } from './data/open-database.js';
import { HistoryProviders } from './history-provider.js';
import { StoreBodyMiddleware } from './http/store-body.middleware.js';
import { StoreHealthIndicator } from './store-health.indicator.js';
import { BODY_CONTROLLERS } from './http/store-http.mount.js';
import { STORE_HTTP_OPTIONS, type ResolvedHttpOptions } from './http/store-http.options.js';
import { MessageStore } from './message-store.js';
import { PrismaMessageStore } from './message-store.service.js';
import { SessionStore } from './session-store.js';
import { PrismaSessionStore } from './session-store.service.js';
import { TenantStores } from './tenant-stores.js';
import { PrismaTenantStores } from './tenant-stores.service.js';
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
    { provide: MessageStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaMessageStore(db) },
    {
      provide: TranscriptStore,
      inject: [StoreDatabase, MessageStore],
      useFactory: (db: StoreDatabase, messages: PrismaMessageStore) => new PrismaTranscriptStore(db, messages),
    },
    { provide: SessionStore, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaSessionStore(db) },
    { provide: TenantStores, inject: [StoreDatabase], useFactory: (db: StoreDatabase) => new PrismaTenantStores(db) },
    HistoryProviders,
    {
      provide: StoreHealthIndicator,
      inject: [StoreDatabase, STORE_MODULE_OPTIONS],
      useFactory: (db: StoreDatabase, options: StoreModuleOptions) => new StoreHealthIndicator(db, resolveOptions(options)),
    },
  ],
  exports: [MessageStore, TranscriptStore, SessionStore, TenantStores, HistoryProviders, StoreHealthIndicator],
})
export class StoreModule extends ConfigurableStoreModule implements NestModule {
  /** Present when the `http` extra mounted the HTTP API. */
  constructor(@Optional() @Inject(STORE_HTTP_OPTIONS) private readonly http?: ResolvedHttpOptions) {
    super();
  }

  /** With no options: the embedded SQLite file ./data/agent-store.db, migrated at boot. */
  static override forRoot(options: typeof STORE_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }

  configure(consumer: MiddlewareConsumer): void {
    if (this.http) consumer.apply(StoreBodyMiddleware).forRoutes(...BODY_CONTROLLERS);
  }
}
