// The health store's surface: what the other rooms (other stores, the HTTP API) may use of it.
export * from './store-health.indicator.js';
