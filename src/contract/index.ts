/**
 * The contract a framework binding (the store's own three, or yours) is written against (docs/frameworks/other-frameworks.md).
 * @module nestjs-agent-store/integration
 */
export * from './integration-store.js';
export type * from './session-log.js';
// A binding's name, kinds and session ids, its own for the whole process (docs/frameworks/other-frameworks.md).
export { defineBinding, PACKAGE_BINDINGS, type BindingKind, type IntegrationBinding } from '../values/bindings.js';
// The errors a binding throws and its callers catch, as the store's own calls throw them.
export {
  StoreError,
  StoreValidationError,
  StoreNotFoundError,
  StoreConflictError,
  StoreConfigurationError,
  StoreDatabaseError,
  StoreUnavailableError,
  StoreBusyError,
} from '../store.errors.js';
// The store's rules for what it is given, so that a binding refuses what the store would.
export { idOf, keyTextOf, dataCopyOf, countOf } from '../values/validation.js';
export { storedValueOf } from '../values/json-rows.js';
// JSON that a round trip gives back equal, as a value kept as its JSON text (a session log's `jsonText`) must be.
export { checkJsonText } from '../values/stored-values.js';
// Rows per INSERT within every database's limits on parameters and statement size.
export { insertRuns, textLength } from '../engine/insert-runs.js';
// Runs a read plan's statements one after another through a transaction's `query`.
export { runPlan } from '../engine/adapter-transactions.js';
