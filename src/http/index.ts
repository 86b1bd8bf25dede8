/**
 * The HTTP API's OpenAPI document and Swagger UI. The API itself is mounted by StoreModule's `http` option; this
 * subpath, like the API, loads its optional peers (@nestjs/swagger, class-validator, class-transformer and
 * @nestjs/throttler), which an app without the HTTP API does not install (docs/guide/http-api.md).
 * @module nestjs-agent-store/http
 */
export { setupStoreDocs } from './store-docs.js';
