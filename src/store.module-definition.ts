// forRoot / forRootAsync and their extras (isGlobal, http) come from Nest's ConfigurableModuleBuilder.
import { ConfigurableModuleBuilder } from '@nestjs/common';
import { mountHttp } from './http/store-http.mount.js';
import type { StoreHttpOptions } from './http/store-http.options.js';
import type { StoreModuleOptions } from './store.options.js';

interface StoreExtras {
  isGlobal?: boolean;
  /** The HTTP API over the stores; off when absent. Static, beside useFactory in forRootAsync. */
  http?: StoreHttpOptions;
}

export const {
  ConfigurableModuleClass: ConfigurableStoreModule,
  MODULE_OPTIONS_TOKEN: STORE_MODULE_OPTIONS,
  OPTIONS_TYPE: STORE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: STORE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<StoreModuleOptions>({ moduleName: 'AgentStore' })
  .setClassMethodName('forRoot')
  // forRoot strips the keys of this object from the options before they reach
  // resolveOptions, so `http` is listed even though it defaults to undefined.
  .setExtras<StoreExtras>({ isGlobal: false, http: undefined }, (definition, extras) => {
    const global = { ...definition, global: extras.isGlobal };
    return extras.http === undefined ? global : mountHttp(global, extras.http);
  })
  .build();
