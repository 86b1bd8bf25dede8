// forRoot / forRootAsync and the isGlobal extra come from Nest's ConfigurableModuleBuilder.
import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { StoreModuleOptions } from './store.options.js';

export const {
  ConfigurableModuleClass: ConfigurableStoreModule,
  MODULE_OPTIONS_TOKEN: STORE_MODULE_OPTIONS,
  OPTIONS_TYPE: STORE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: STORE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<StoreModuleOptions>({ moduleName: 'AgentStore' })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
