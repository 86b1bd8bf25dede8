/**
 * The HTTP API's OpenAPI document and Swagger UI. The API itself is mounted by StoreModule's `http` option; this
 * subpath, like the API, loads its optional peers (@nestjs/swagger, class-validator and class-transformer), which an
 * app without the HTTP API does not install (docs/guide/http-api.md). Without them, importing it throws a
 * StoreConfigurationError that names them.
 * @module nestjs-agent-store/http
 */
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { httpPeers, missingPeersError } from './store-http.loader.js';

// Before anything loads them: one error that names every missing peer, not the first that fails to import.
const missing = missingPeersError('nestjs-agent-store/http', httpPeers({ throttle: false }));
if (missing) throw missing;

const docs = await import('./store-docs.js');

/**
 * Builds the OpenAPI document of the store's routes (and only those) and serves it with Swagger UI at `path` (the
 * JSON at `<path>-json`). Call it after creating the app and before `listen()`; returns the document.
 */
export function setupStoreDocs(app: INestApplication, path = 'docs'): OpenAPIObject {
  return docs.setupStoreDocs(app, path);
}
