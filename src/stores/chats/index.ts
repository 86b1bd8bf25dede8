// The chats store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './chat-store.service.js';
export * from './chat-store.js';
