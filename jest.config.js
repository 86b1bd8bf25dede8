// ESM jest for NestJS 12 (ESM-only): run with NODE_OPTIONS=--experimental-vm-modules.
// The AI SDK the suite imports as `ai` is ai 6 on Node 20 and ai 7 (which needs Node 22) on Node 22 and later;
// `@openai/agents-core` is 0.14 on Node 20 and 0.20 (its `openai` 7 needs Node 22) on Node 22 and later,
// and `@openai/agents-openai` (which pins its core's version) with it.
const newestMajors = Number(process.versions.node.split('.')[0]) >= 22;

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // The package's own name (the demo imports it) is its sources, as tsconfig.json's paths say.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^nestjs-agent-store$': '<rootDir>/src/index.ts' },
  ...(newestMajors && { resolver: '<rootDir>/test/support/newest-majors-resolver.js' }),
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['reflect-metadata'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/test/support/database-reporter.js'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
