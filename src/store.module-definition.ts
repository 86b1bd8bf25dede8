// forRoot / forRootAsync and their extras (isGlobal, http) come from Nest's ConfigurableModuleBuilder.
import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { loadStoreHttpModule } from './http/store-http.loader.js';
import { resolveHttpOptions, type StoreHttpOptions } from './http/store-http.options.js';
import { STORE_MODULE_OPTIONS, StoreCoreModule } from './store-core.module.js';
import type { StoreModuleOptions } from './store.options.js';

/** StoreModule's options that shape the module itself: given to forRoot with the others, and to forRootAsync beside the factory. */
export interface StoreExtras {
  /** Registers the module globally: every module of the app can inject the stores without importing it. Default false. */
  isGlobal?: boolean;
  /** The HTTP API over the stores; off when absent. Static, beside useFactory in forRootAsync. */
  http?: StoreHttpOptions;
}

export const {
  ConfigurableModuleClass: ConfigurableStoreModule,
  OPTIONS_TYPE: STORE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: STORE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<StoreModuleOptions>({ moduleName: 'AgentStore', optionsInjectionToken: STORE_MODULE_OPTIONS })
  .setClassMethodName('forRoot')
  // forRoot strips the keys of this object from the options before they reach
  // resolveOptions, so `http` is listed even though it defaults to undefined.
  .setExtras<StoreExtras>({ isGlobal: false, http: undefined }, (definition, extras) => {
    // The builder's options provider (and forRootAsync's imports) go to the core
    // module, one registration that StoreModule and the HTTP module both import.
    const core: DynamicModule = { module: StoreCoreModule, imports: definition.imports, providers: definition.providers };
    // The HTTP options are checked here, when forRoot or forRootAsync is called, since the prefix and the guard
    // shape the module; its packages are looked for when Nest boots.
    const http = extras.http === undefined ? undefined : resolveHttpOptions(extras.http);
    return {
      module: definition.module,
      global: extras.isGlobal,
      imports: http === undefined ? [core] : [core, loadStoreHttpModule(core, http)],
      exports: [core],
    };
  })
  .build();
