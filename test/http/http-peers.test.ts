// The HTTP API's packages are optional peers: which it needs, and the error that
// names what to install when one is missing. (The release check boots a fresh
// app without them: test/operations/release-check.test.ts.)
import { httpPeers, missingPackages, missingPeersError } from '../../src/http/store-http.loader.js';
import { StoreConfigurationError } from '../../src/index.js';

const THROTTLED = { throttle: { limit: 120, ttlMs: 60_000 } } as const;

/** Resolves every package but `absent`, which are not found as Node says it. */
const without =
  (...absent: string[]) =>
  (name: string) => {
    if (absent.includes(name)) throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return `file:///app/node_modules/${name}/index.js`;
  };

test('the HTTP API needs Swagger, class-validator and class-transformer, and the throttler only when it throttles', () => {
  expect(httpPeers(THROTTLED)).toEqual(['@nestjs/swagger', 'class-validator', 'class-transformer', '@nestjs/throttler']);
  expect(httpPeers({ throttle: false })).toEqual(['@nestjs/swagger', 'class-validator', 'class-transformer']);
});

test('in this repository every peer is found where the package would import it from', () => {
  expect(missingPackages(httpPeers(THROTTLED))).toEqual([]);
  expect(missingPeersError(THROTTLED)).toBeNull();
  expect(missingPackages(['@nestjs/not-a-package-of-this-repository'])).toEqual(['@nestjs/not-a-package-of-this-repository']);
});

test('a missing peer fails with a StoreConfigurationError that names each missing one and the command that installs them', () => {
  const all = missingPeersError(THROTTLED, without('@nestjs/swagger', 'class-validator', 'class-transformer', '@nestjs/throttler'));
  expect(all).toBeInstanceOf(StoreConfigurationError);
  expect(all?.message).toBe(
    'StoreModule option "http" serves the HTTP API, which needs @nestjs/swagger, class-validator, class-transformer and @nestjs/throttler (optional peer dependencies of nestjs-agent-store): npm install @nestjs/swagger class-validator class-transformer @nestjs/throttler',
  );
  expect(missingPeersError(THROTTLED, without('@nestjs/throttler'))?.message).toMatch(/needs @nestjs\/throttler \(.*\): npm install @nestjs\/throttler$/);
  // Without throttling, the throttler is not needed.
  expect(missingPeersError({ throttle: false }, without('@nestjs/throttler'))).toBeNull();
});

test('a failure to resolve other than "not found" is thrown as it is, not reported as a missing package', () => {
  const broken = Object.assign(new Error('Invalid package config'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
  expect(() =>
    missingPeersError(THROTTLED, () => {
      throw broken;
    }),
  ).toThrow(broken);
});
