import { availableParallelism } from 'node:os';
import type { Config } from 'jest';
import { scaled } from './test/support/time-scale';

/**
 * Five tiers, each runnable alone with `--selectProjects`:
 * `unit` (`*.spec.ts`, pure and fast), `integration` (`*.int-spec.ts`, real
 * stores on disk and the protocol-level EventStoreDB server), `e2e`
 * (`*.e2e-spec.ts`, the built service and real processes), `simulation`
 * (`*.sim-spec.ts`, the runtime under generated schedules) and `browser`
 * (`*.browser-spec.ts` under `test/browser/`: the console in a headless Chromium
 * against the BUILT service; its globalSetup runs `npm run build` once when
 * the build is missing or stale, except in CI, where `.ci/run` has built;
 * Chromium is required, never skipped: `apt-get install chromium`).
 */
const shared: Config = {
  rootDir: '.',
  testEnvironment: 'node',
  // A test without a timeout of its own: Jest's 5 s, scaled for load (TEST_TIME_SCALE, test/support/time-scale.ts).
  testTimeout: scaled(5_000),
  // An earlier file's AsyncLocalStorages disabled when a file starts (test/support/release-earlier-files.ts); the
  // service's settings from the shell that runs the suite never reach a test (test/support/clean-environment.ts).
  setupFiles: ['<rootDir>/test/support/release-earlier-files.ts', '<rootDir>/test/support/clean-environment.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
  },
  moduleNameMapper: {
    '^@agent-ledger/([^/]+)$': '<rootDir>/libs/$1/src',
    '^@agent-ledger/([^/]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/bench/peer/node_modules/'],
};

const config: Config = {
  // Workers run file after file (a fresh process a file cost 1.3 s of CPU each: Jest, ts-jest and TypeScript loaded
  // again); one that holds more than 1 GB after a file is replaced. The per-file AsyncLocalStorage that made later
  // files slower is disabled by test/support/release-earlier-files.ts. See docs/reliability.md ("The suite's cost").
  workerIdleMemoryLimit: '1GB',
  // At least two files at a time, also on two cores (Jest's default would be one): many files spend much of their
  // time waiting on real time (a write's lease, a child process, npm) while the other worker uses the core. Three
  // on two cores gave the same whole run (the cores are busy throughout; docs/reliability.md).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Tier by tier, the longest files first (test/support/tier-sequencer.js).
  testSequencer: '<rootDir>/test/support/tier-sequencer.js',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.int-spec.ts'],
    },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.e2e-spec.ts'] },
    { ...shared, displayName: 'simulation', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.sim-spec.ts'] },
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/browser/support/global-setup.ts',
    },
  ],
};

export default config;
