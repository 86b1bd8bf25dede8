// StoreModule: what an app imports. It registers the store's core module (the
// database and the stores) with the options given, re-exports it, and mounts
// the HTTP API over it when the `http` extra asks for it.
import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigurableStoreModule, STORE_OPTIONS_TYPE } from './store.module-definition.js';

@Module({})
export class StoreModule extends ConfigurableStoreModule {
  /** With no options: the embedded SQLite file ./data/agent-store.db, migrated at boot. */
  static override forRoot(options: typeof STORE_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }
}
