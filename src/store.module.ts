// StoreModule: what an app imports. It registers the store's core module (the
// database and the stores) with the options given, re-exports it, and mounts
// the HTTP API over it when the `http` extra asks for it.
import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigurableStoreModule, STORE_ASYNC_OPTIONS_TYPE, STORE_OPTIONS_TYPE } from './store.module-definition.js';

/**
 * The store's module: import `StoreModule.forRoot(options)` or `StoreModule.forRootAsync(…)`, then
 * inject the stores by their tokens (`@Inject(MessageStore)`, …). Options are checked when the module
 * starts: a bad one fails the boot with a StoreConfigurationError.
 */
@Module({})
export class StoreModule extends ConfigurableStoreModule {
  /**
   * The module with options a factory makes (`useFactory` with `inject` and `imports`, or `useClass`,
   * `useExisting`), as Nest's ConfigurableModuleBuilder gives it. `isGlobal` and `http` are given
   * beside the factory, not returned by it (from the factory they are a StoreConfigurationError).
   */
  declare static forRootAsync: (options: typeof STORE_ASYNC_OPTIONS_TYPE) => DynamicModule;

  /** With no options: the embedded SQLite file ./data/agent-store.db, migrated at boot. */
  static override forRoot(options: typeof STORE_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }
}
