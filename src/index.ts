// The public API of nestjs-agent-store.
export { StoreModule } from './store.module.js';
export type { StoreModuleOptions } from './store.options.js';
export { MessageStore } from './message-store.js';
export { TranscriptStore } from './transcript-store.js';
export { SessionStore } from './session-store.js';
export { TenantStores, type ScopedStores } from './tenant-stores.js';
export type { StoreHttpOptions } from './http/store-http.options.js';
export { setRequestTenant } from './http/request-tenant.js';
export { setupStoreDocs } from './http/store-docs.js';
export { StoreHealthIndicator, type StoreHealth } from './store-health.indicator.js';
export { HistoryProvider, HistoryProviders, type RunContext } from './history-provider.js';
export * from './message.types.js';
export * from './session.types.js';
export * from './store.errors.js';
export { FailedMigrationError } from './data/migrator.js';
export { SerializedSqliteAdapterFactory, type SqliteOptions } from './databases/sqlite/sqlite-adapter.js';
export { MAX_ID_LENGTH, MAX_JSON_DEPTH } from './validation.js';
