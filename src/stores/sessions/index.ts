// The sessions store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './session-jsonl.js';
export * from './session-store.service.js';
export * from './session-store.js';
