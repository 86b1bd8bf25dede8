// The messages store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './message-log.js';
export * from './message-pages.js';
export * from './message-store.service.js';
export * from './message-store.js';
export * from './tool-call-repair.js';
export * from './transcript-pruning.js';
