// The HTTP API's packages are optional peers: which it needs, and the error that
// names what to install when one is missing. (The release check boots a fresh
// app without them: test/operations/release-check.test.ts.)
import { HTTP_OPTION, httpPeers, missingPackages, missingPeersError, resolveWithRequire } from '../../src/http/store-http.loader.js';
import { StoreConfigurationError } from '../../src/index.js';

const ALL = httpPeers({ throttle: { limit: 120, ttlMs: 60_000 } });

/** Resolves every package but `absent`, which are not found as Node says it. */
const without =
  (...absent: string[]) =>
  (name: string) => {
    if (absent.includes(name)) throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return `file:///app/node_modules/${name}/index.js`;
  };

test('the HTTP API needs Swagger, class-validator and class-transformer, and the throttler only when it throttles', () => {
  expect(ALL).toEqual(['@nestjs/swagger', 'class-validator', 'class-transformer', '@nestjs/throttler']);
  expect(httpPeers({ throttle: false })).toEqual(['@nestjs/swagger', 'class-validator', 'class-transformer']);
});

test('in this repository every peer is found where the package would import it from, by import.meta.resolve and by require.resolve', () => {
  expect(missingPackages(ALL)).toEqual([]);
  expect(missingPeersError(HTTP_OPTION, ALL)).toBeNull();
  expect(missingPackages(['@nestjs/not-a-package-of-this-repository'])).toEqual(['@nestjs/not-a-package-of-this-repository']);
  // The fallback for runtimes without import.meta.resolve (Jest before 30).
  expect(missingPackages(ALL, resolveWithRequire)).toEqual([]);
  expect(missingPackages(['@nestjs/not-a-package-of-this-repository', ...ALL], resolveWithRequire)).toEqual(['@nestjs/not-a-package-of-this-repository']);
});

test('a missing peer fails with a StoreConfigurationError that names each missing one and the command that installs them', () => {
  const all = missingPeersError(HTTP_OPTION, ALL, without(...ALL));
  expect(all).toBeInstanceOf(StoreConfigurationError);
  expect(all?.message).toBe(
    'StoreModule option "http" (the HTTP API) needs @nestjs/swagger, class-validator, class-transformer and @nestjs/throttler, optional peer dependencies of nestjs-agent-store: npm install @nestjs/swagger class-validator class-transformer @nestjs/throttler',
  );
  expect(missingPeersError(HTTP_OPTION, ALL, without('@nestjs/throttler'))?.message).toBe(
    'StoreModule option "http" (the HTTP API) needs @nestjs/throttler, an optional peer dependency of nestjs-agent-store: npm install @nestjs/throttler',
  );
  // Without throttling, the throttler is not needed.
  expect(missingPeersError(HTTP_OPTION, httpPeers({ throttle: false }), without('@nestjs/throttler'))).toBeNull();
});

test('a failure to resolve other than "not found" is thrown as it is, not reported as a missing package', () => {
  const broken = Object.assign(new Error('Invalid package config'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
  expect(() =>
    missingPeersError(HTTP_OPTION, ALL, () => {
      throw broken;
    }),
  ).toThrow(broken);
});
