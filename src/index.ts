/**
 * The public API: the module and its options, the stores with their contracts and tokens, the message and session types,
 * and the errors (docs/guide/getting-started.md).
 * @module nestjs-agent-store
 */
export { StoreModule } from './store.module.js';
export type { SqliteVacuum, StoreModuleOptions, TransactionHostLike } from './store.options.js';
export type { StoreExtras } from './store.module-definition.js';
export { MessageStore } from './stores/messages/message-store.js';
export { TranscriptStore } from './stores/transcripts/transcript-store.js';
export { SessionStore } from './stores/sessions/session-store.js';
export { ChatStore, CHAT_MESSAGE_EVENT, CHAT_ORDER_EVENT, type ChatMessage, type ChatPart, type ChatRole } from './stores/chats/chat-store.js';
export { TenantStores, type ScopedStores } from './stores/tenants/tenant-stores.js';
export { StoreMaintenance } from './stores/maintenance/store-maintenance.js';
export type { StoreHttpOptions } from './http/store-http.options.js';
export { setRequestTenant } from './http/request-tenant.js';
export { StoreHealthIndicator, type StoreHealth } from './stores/health/store-health.indicator.js';
export { HistoryProvider, HistoryProviders, type RunContext } from './stores/messages/history-provider.js';
export * from './message.types.js';
export * from './session.types.js';
export * from './lifecycle.types.js';
export * from './store.errors.js';
export { FailedMigrationError } from './engine/migrator.js';
export { SerializedSqliteAdapterFactory, type SqliteOptions } from './databases/sqlite/sqlite-adapter-factory.js';
export { MAX_ID_LENGTH, MAX_JSON_DEPTH } from './values/validation.js';
export {
  balanceToolCalls,
  toolCallRepairMessage,
  type ToolCallRepair,
  type ToolCallRepairOptions,
  type ToolCallOrphan,
  type InterruptedToolResult,
  type InterruptedToolMessage,
} from './stores/messages/tool-call-repair.js';
export { VALUE_TYPES, type ValueType, type ValueTypes, type ValuePath } from './values/stored-values.js';
