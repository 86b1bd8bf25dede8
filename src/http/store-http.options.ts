// The options of the HTTP API (StoreModule's `http` extra), and their validation.
import type { CanActivate, Type } from '@nestjs/common';
import { StoreConfigurationError, StoreValidationError } from '../store.errors.js';
import { idOf } from '../values/validation.js';

/**
 * The HTTP API over the stores, mounted by `StoreModule.forRoot({ http })` or
 * `forRootAsync({ useFactory, http })`; off when absent. It is served by the
 * Express platform (@nestjs/platform-express), and needs the optional peers
 * @nestjs/swagger, class-validator, class-transformer and (unless `throttle`
 * is false) @nestjs/throttler: without them the boot fails with a
 * StoreConfigurationError naming them. Give exactly one of `apiKeys` and
 * `guard`. Every route acts for the caller's tenant only, through
 * `TenantStores.forTenant(tenant)`.
 */
export interface StoreHttpOptions {
  /** The path every route is served under. Default `'agent-store'`. One HTTP mount per application. */
  prefix?: string;
  /**
   * API keys (printable ASCII, at least 16 characters), each mapped to the
   * tenant it acts for. Callers send `Authorization: Bearer <key>`.
   */
  apiKeys?: Record<string, string>;
  /**
   * Your own guard class instead of API keys. It must call
   * `setRequestTenant(request, tenantId)` before it lets a request through: a
   * request without a tenant is refused with a 500 and a logged programming
   * error. It is instantiated inside the store's HTTP module, which imports
   * the store's providers (TenantStores, MessageStore, …): anything else it
   * injects must come from global modules.
   */
  guard?: Type<CanActivate>;
  /**
   * The largest request body, in bytes (413 past it). Default 1 MiB
   * (1,048,576). The store reads a body itself only when no parser read it
   * before, and Nest's default JSON parser runs first, with its own 100 kb
   * limit. Create the app with `NestFactory.create(AppModule, { bodyParser: false })`
   * to give the store's routes this limit, or raise Nest's with
   * `app.useBodyParser('json', { limit: '1mb' })`. Bodies are read before
   * authentication (Nest runs middleware before guards).
   */
  maxBodyBytes?: number;
  /** How deeply arrays and objects may nest in a JSON body, checked before the body is parsed or validated. Default 64, at most 1,000. */
  maxJsonDepth?: number;
  /**
   * At most `limit` requests per `ttlMs` milliseconds from one client IP
   * across all of the store's authenticated routes (429 past it), counted
   * before authentication so API keys cannot be guessed at speed. Default
   * `{ limit: 120, ttlMs: 60000 }`; `false` turns it off. It has its own
   * counters and never touches your app's ThrottlerModule. Behind a proxy, set
   * Express's `trust proxy` so the client's IP is the one counted.
   */
  throttle?:
    | {
        /** The most requests one client IP may make per window: a positive integer. */
        limit: number;
        /** The window's length, in milliseconds: a positive integer. */
        ttlMs: number;
      }
    | false;
  /**
   * Serves the session viewer, a browser page over this API, at
   * `/<prefix>/viewer/`. Default `false`. The page is static code shipped in
   * the package (no CDN), served without authentication or throttling (it
   * holds no data, like a Swagger UI) under a strict Content-Security-Policy;
   * every request it makes for data goes through this API with the caller's
   * key (entered on the page) or the host's own authentication.
   */
  viewer?: boolean;
}

export interface ResolvedHttpOptions {
  prefix: string;
  /** Tenant by API key; absent when a guard authenticates. */
  apiKeys?: ReadonlyMap<string, string>;
  guard?: Type<CanActivate>;
  maxBodyBytes: number;
  maxJsonDepth: number;
  throttle: { limit: number; ttlMs: number } | false;
  viewer: boolean;
}

export const STORE_HTTP_OPTIONS = Symbol('StoreHttpOptions');

const KNOWN = ['prefix', 'apiKeys', 'guard', 'maxBodyBytes', 'maxJsonDepth', 'throttle', 'viewer'];
const MIN_KEY_LENGTH = 16;
// Deeper than this, class-transformer's recursive walk of a validated body nears the stack's limit.
const MAX_DEPTH_LIMIT = 1000;
// An Authorization header carries printable ASCII without spaces reliably.
const KEY_CHARACTERS = /^[\x21-\x7e]+$/;
const PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/;

export function resolveHttpOptions(options: StoreHttpOptions): ResolvedHttpOptions {
  const http = objectOf(options, 'http', KNOWN);
  if ((http.apiKeys === undefined) === (http.guard === undefined)) {
    throw new StoreConfigurationError(
      'StoreModule option "http" needs exactly one of "apiKeys" (a map of API key to tenant id) and "guard" (a guard class that calls setRequestTenant)',
    );
  }
  return {
    prefix: prefixOf(http.prefix ?? 'agent-store'),
    ...(http.apiKeys !== undefined && { apiKeys: apiKeysOf(http.apiKeys) }),
    ...(http.guard !== undefined && { guard: guardOf(http.guard) }),
    maxBodyBytes: positiveInteger(http.maxBodyBytes ?? 1024 * 1024, 'http.maxBodyBytes'),
    maxJsonDepth: positiveInteger(http.maxJsonDepth ?? 64, 'http.maxJsonDepth', MAX_DEPTH_LIMIT),
    throttle: throttleOf(http.throttle ?? { limit: 120, ttlMs: 60_000 }),
    viewer: booleanOf(http.viewer ?? false, 'http.viewer'),
  };
}

/** The prefix without its outer slashes: segments a URL keeps as they are (no "." or "..", which browsers, curl and proxies resolve away). */
function prefixOf(value: unknown): string {
  const segments = typeof value === 'string' ? value.replace(/^\/+|\/+$/g, '').split('/') : [];
  const path = segments.join('/');
  if (segments.length === 0 || !segments.every((segment) => PATH_SEGMENT.test(segment)) || new URL(`/${path}/`, 'http://host').pathname !== `/${path}/`) {
    throw new StoreConfigurationError(
      `StoreModule option "http.prefix" must be a path such as "agent-store" or "api/agent-store": segments of letters, digits and . _ ~ -, none of them "." or ".." (a URL resolves those away), got ${JSON.stringify(value)}`,
    );
  }
  return path;
}

// Keys are secrets: errors name a key by its position, never by its value.
function apiKeysOf(value: unknown): ReadonlyMap<string, string> {
  const entries = Object.entries(objectOf(value, 'http.apiKeys'));
  if (entries.length === 0) throw new StoreConfigurationError('StoreModule option "http.apiKeys" must map at least one API key to its tenant id');
  return new Map(
    entries.map(([key, tenantId], i) => {
      if (key.length < MIN_KEY_LENGTH || !KEY_CHARACTERS.test(key)) {
        throw new StoreConfigurationError(
          `StoreModule option "http.apiKeys": API key #${i + 1} must be at least ${MIN_KEY_LENGTH} printable ASCII characters without spaces (e.g. 32 random bytes in base64url)`,
        );
      }
      try {
        return [key, idOf(tenantId, 'tenant id')];
      } catch (error) {
        if (!(error instanceof StoreValidationError)) throw error;
        throw new StoreConfigurationError(`StoreModule option "http.apiKeys": the ${error.message} (API key #${i + 1})`);
      }
    }),
  );
}

function guardOf(value: unknown): Type<CanActivate> {
  if (typeof value !== 'function' || typeof (value.prototype as Partial<CanActivate> | undefined)?.canActivate !== 'function') {
    throw new StoreConfigurationError(
      'StoreModule option "http.guard" must be a guard class (one with a canActivate method) that calls setRequestTenant(request, tenantId)',
    );
  }
  return value as Type<CanActivate>;
}

function throttleOf(value: unknown): ResolvedHttpOptions['throttle'] {
  if (value === false) return false;
  const throttle = objectOf(value, 'http.throttle', ['limit', 'ttlMs'], 'false, or { limit, ttlMs }');
  return { limit: positiveInteger(throttle.limit, 'http.throttle.limit'), ttlMs: positiveInteger(throttle.ttlMs, 'http.throttle.ttlMs') };
}

function booleanOf(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new StoreConfigurationError(`StoreModule option "${name}" must be true or false, got ${String(value)}`);
  return value;
}

function objectOf(value: unknown, name: string, known?: string[], expected = 'an object'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StoreConfigurationError(`StoreModule option "${name}" must be ${expected}`);
  }
  for (const key of known ? Object.keys(value) : []) {
    if (!known!.includes(key)) throw new StoreConfigurationError(`unknown StoreModule option "${name}.${key}"; known: ${known!.join(', ')}`);
  }
  return value as Record<string, unknown>;
}

function positiveInteger(value: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0 || (value as number) > max) {
    throw new StoreConfigurationError(
      `StoreModule option "${name}" must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}, got ${String(value)}`,
    );
  }
  return value as number;
}
