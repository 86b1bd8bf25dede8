// The HTTP API's packages (Swagger's decorators, request validation, the rate
// limiter) are optional peers: an app that never turns `http` on installs none
// of them, and nothing here loads them until it does.
import { createRequire } from 'node:module';
import type { DynamicModule } from '@nestjs/common';
import { StoreConfigurationError } from '../store.errors.js';
import type { ResolvedHttpOptions } from './store-http.options.js';

/** The packages the HTTP API loads beside Nest's own, for these options: the throttler only when it throttles. */
export function httpPeers(http: Pick<ResolvedHttpOptions, 'throttle'>): string[] {
  return ['@nestjs/swagger', 'class-validator', 'class-transformer', ...(http.throttle ? ['@nestjs/throttler'] : [])];
}

/** Finds a package as this package's own imports would, without loading it; throws when there is none. */
export type PackageResolver = (name: string) => unknown;

/**
 * require.resolve from here, for runtimes without import.meta.resolve (Jest before 30): a package whose
 * exports give CommonJS no entry is there all the same.
 */
export const resolveWithRequire: PackageResolver = (name) => {
  try {
    return createRequire(import.meta.url).resolve(name);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return name;
    throw error;
  }
};

const resolveFromHere: PackageResolver = (name) => (typeof import.meta.resolve === 'function' ? import.meta.resolve(name) : resolveWithRequire(name));

/** Those of `names` that cannot be found; any failure but "not found" (a broken install) is thrown as it is. */
export function missingPackages(names: readonly string[], resolve: PackageResolver = resolveFromHere): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      // ERR_MODULE_NOT_FOUND from import.meta.resolve; MODULE_NOT_FOUND from require.resolve and from Jest's registry.
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
      throw error;
    }
  });
}

/** The error that names which of `peers` `user` needs and how to install them, or null when every one is there. */
export function missingPeersError(user: string, peers: readonly string[], resolve?: PackageResolver): StoreConfigurationError | null {
  const missing = missingPackages(peers, resolve);
  if (missing.length === 0) return null;
  const names = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  const what = missing.length === 1 ? 'an optional peer dependency' : 'optional peer dependencies';
  return new StoreConfigurationError(`${user} needs ${names}, ${what} of nestjs-agent-store: npm install ${missing.join(' ')}`);
}

/** Who needs the peers, in the boot's error. */
export const HTTP_OPTION = 'StoreModule option "http" (the HTTP API)';

/**
 * The HTTP module over `store`, loaded once its peers are found. Nest awaits a module import that is a promise
 * when it scans the app's modules, so a missing peer fails the boot with a StoreConfigurationError.
 */
export function loadStoreHttpModule(store: DynamicModule, http: ResolvedHttpOptions): Promise<DynamicModule> {
  const loaded = (async () => {
    const missing = missingPeersError(HTTP_OPTION, httpPeers(http));
    if (missing) throw missing;
    const { StoreHttpModule } = await import('./store-http.module.js');
    return StoreHttpModule.register(store, http);
  })();
  // Nest awaits it later, when it scans: until then its failure is not an unhandled rejection.
  loaded.catch(() => undefined);
  return loaded;
}
