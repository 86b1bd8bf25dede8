// The transcripts store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './transcript-store.service.js';
export * from './transcript-store.js';
