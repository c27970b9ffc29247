import type { Config } from 'jest';

/**
 * Four tiers, each runnable alone with `--selectProjects`:
 * `unit` (`*.spec.ts`, pure and fast), `integration` (`*.int-spec.ts`, real
 * stores on disk and the protocol-level EventStoreDB server), `e2e`
 * (`*.e2e-spec.ts`, the built service and real processes) and `simulation`
 * (`*.sim-spec.ts`, the runtime under generated schedules).
 */
const shared: Config = {
  rootDir: '.',
  testEnvironment: 'node',
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
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.int-spec.ts'],
    },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.e2e-spec.ts'] },
    { ...shared, displayName: 'simulation', testMatch: ['<rootDir>/{apps,libs,test,bench}/**/*.sim-spec.ts'] },
  ],
};

export default config;
