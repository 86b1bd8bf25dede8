// The public API of nestjs-agent-store.
export { StoreModule } from './store.module.js';
export type { StoreModuleOptions } from './store.options.js';
export { MessageStore } from './message-store.js';
export * from './message.types.js';
export * from './store.errors.js';
export { SerializedSqliteAdapterFactory, type SqliteOptions } from './data/sqlite-adapter.js';
export { MAX_ID_LENGTH, MAX_JSON_DEPTH } from './validation.js';
