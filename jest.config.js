// ESM jest for NestJS 12 (ESM-only): run with NODE_OPTIONS=--experimental-vm-modules.
// The AI SDK the suite imports as `ai` is ai 6 on Node 20 and ai 7 (which needs Node 22) on Node 22 and later;
// `@openai/agents-core` is 0.14 on Node 20 and 0.20 (its `openai` 7 needs Node 22) on Node 22 and later,
// and `@openai/agents-openai` (which pins its core's version) with it.
// What runs (test/legs.js): TEST_LEG=oldest-node or quick, that leg's groups; TEST_PHASE=parallel, all but the
// files that run alone; TEST_PHASE=alone, only those, one at a time. `npm test` (scripts/test.js) runs both phases.
import { ALONE, OLDEST_NODE_LEG, QUICK_LEG } from './test/legs.js';

const newestMajors = Number(process.versions.node.split('.')[0]) >= 22;

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alone = `/(${ALONE.map(escape).join('|')})$`;
const phases = {
  parallel: { testPathIgnorePatterns: ['/node_modules/', alone] },
  alone: { testPathIgnorePatterns: ['/node_modules/', `^(?!.*${alone})`] },
};
const phase = process.env.TEST_PHASE;
if (phase !== undefined && !Object.hasOwn(phases, phase)) throw new Error(`TEST_PHASE is '${phase}': it is parallel or alone, or unset for every file at once`);

const project = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // The package's own name and subpaths (the demo and the fourth binding import them) are its sources, as tsconfig.json's paths say.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^nestjs-agent-store$': '<rootDir>/src/index.ts',
    '^nestjs-agent-store/integration$': '<rootDir>/src/contract/index.ts',
    '^nestjs-agent-store/http$': '<rootDir>/src/http/index.ts',
    '^nestjs-agent-store/testing$': '<rootDir>/src/testing/index.ts',
  },
  ...(newestMajors && { resolver: '<rootDir>/test/support/newest-majors-resolver.js' }),
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['reflect-metadata'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  ...(phase && phases[phase]),
  // Servers start when a test first asks for one (test/support/server-broker.ts); the teardown stops them.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

/** A leg's group as a jest project: its files, and the backends they run on (testBackends, see test/support/databases.ts). */
const groupProject = ({ name, paths, except = [], testBackends }) => ({
  ...project,
  displayName: name,
  testMatch: paths.map((path) => (path.endsWith('/') ? `<rootDir>/${path}**/*.test.ts` : `<rootDir>/${path}`)),
  testPathIgnorePatterns: [...(project.testPathIgnorePatterns ?? ['/node_modules/']), ...except.map((path) => `/${escape(path)}$`)],
  ...(testBackends && { globals: { testBackends } }),
});

const legs = { 'oldest-node': OLDEST_NODE_LEG, quick: QUICK_LEG };
const leg = process.env.TEST_LEG;
if (leg !== undefined && !Object.hasOwn(legs, leg))
  throw new Error(`TEST_LEG is '${leg}': it is one of ${Object.keys(legs).join(', ')}, or unset for the whole suite`);

export default {
  ...(leg ? { projects: legs[leg].map(groupProject) } : project),
  testTimeout: 60_000,
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // Most tests wait on a database, a child process or a browser as much as on the CPU: a worker more than
  // the cores keeps both busy. One that has grown past the limit is replaced after its file.
  maxWorkers: phase === 'alone' ? 1 : Number(process.env.TEST_WORKERS ?? 3),
  workerIdleMemoryLimit: '1GB',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js', '<rootDir>/test/support/test-names-reporter.js'],
};
