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
  // Each file in a process of its own, checked (test/support/one-file-per-process.ts); the service's settings from
  // the shell that runs the suite never reach a test (test/support/clean-environment.ts).
  setupFiles: ['<rootDir>/test/support/one-file-per-process.ts', '<rootDir>/test/support/clean-environment.ts'],
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
  // A fresh worker process for every test file (Jest: "0 always restarts the worker"), also with one worker, which
  // would otherwise run every file in Jest's own process. In a shared process each file leaves an AsyncLocalStorage
  // alive that every later promise pays for, so a file's cost grew with the number of files before it; a fresh
  // process costs about 0.3 s a file instead. See docs/reliability.md ("One process a test file").
  workerIdleMemoryLimit: 0,
  // One file more than the cores (Jest's default is one less, which is one at a time on two cores): many files spend
  // most of their time waiting on real time (a write's lease, a reaper, npm) while the others use the cores. On two
  // cores the e2e tier alone took 529 s with two workers (the cores 23% idle) and 443 s with three (0% idle).
  maxWorkers: availableParallelism() + 1,
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
