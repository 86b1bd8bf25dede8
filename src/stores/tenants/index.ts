// The tenants store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './tenant-stores.js';
