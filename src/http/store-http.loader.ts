// The HTTP API's packages (Swagger's decorators, request validation, the rate
// limiter) are optional peers: an app that never turns `http` on installs none
// of them, and nothing here loads them until it does.
import type { DynamicModule } from '@nestjs/common';
import { StoreConfigurationError } from '../store.errors.js';
import type { ResolvedHttpOptions } from './store-http.options.js';

/** The packages the HTTP API loads beside Nest's own, for these options: the throttler only when it throttles. */
export function httpPeers(http: Pick<ResolvedHttpOptions, 'throttle'>): string[] {
  return ['@nestjs/swagger', 'class-validator', 'class-transformer', ...(http.throttle ? ['@nestjs/throttler'] : [])];
}

/** Finds a package as this package's own imports would, without loading it; throws when there is none. */
export type PackageResolver = (name: string) => unknown;

const resolveFromHere: PackageResolver = (name) => import.meta.resolve(name);

/** Those of `names` that cannot be found; any failure but "not found" (a broken install) is thrown as it is. */
export function missingPackages(names: readonly string[], resolve: PackageResolver = resolveFromHere): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      // Node says ERR_MODULE_NOT_FOUND; Jest's module registry, MODULE_NOT_FOUND.
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
      throw error;
    }
  });
}

/** The error that names what to install, or null when every peer is there. */
export function missingPeersError(http: Pick<ResolvedHttpOptions, 'throttle'>, resolve?: PackageResolver): StoreConfigurationError | null {
  const missing = missingPackages(httpPeers(http), resolve);
  if (missing.length === 0) return null;
  const names = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}`;
  return new StoreConfigurationError(
    `StoreModule option "http" serves the HTTP API, which needs ${names} (optional peer dependencies of nestjs-agent-store): npm install ${missing.join(' ')}`,
  );
}

/**
 * The HTTP module over `store`, loaded once its peers are found. Nest awaits a module import that is a promise
 * when it scans the app's modules, so a missing peer fails the boot with a StoreConfigurationError.
 */
export function loadStoreHttpModule(store: DynamicModule, http: ResolvedHttpOptions): Promise<DynamicModule> {
  const loaded = (async () => {
    const missing = missingPeersError(http);
    if (missing) throw missing;
    const { StoreHttpModule } = await import('./store-http.module.js');
    return StoreHttpModule.register(store, http);
  })();
  // Nest awaits it later, when it scans: until then its failure is not an unhandled rejection.
  loaded.catch(() => undefined);
  return loaded;
}
