import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const BUILT = {
  service: 'apps/agent-ledger/dist/main.js',
  cli: 'apps/agent-ledger/dist/cli/main.js',
} as const;
const SOURCE = {
  service: 'apps/agent-ledger/src/main.ts',
  cli: 'apps/agent-ledger/src/cli/main.ts',
} as const;

/** The TypeScript project of the sources, for ts-node (`TS_NODE_PROJECT`), absolute. */
export const TS_PROJECT = join(root, 'tsconfig.json');

/**
 * The node arguments that start the service or the CLI. In CI (`CI=true`),
 * where `.ci/run` builds before testing, the **built** program in `dist/` is
 * started, as a user would; elsewhere the sources run through ts-node, so
 * `npm test` on a fresh clone needs no build and never runs a stale one.
 */
export function entryArgs(program: keyof typeof BUILT): string[] {
  const built = join(root, BUILT[program]);
  if (process.env.CI === 'true' && existsSync(built)) return [built];
  // Absolute, so that the program may run in any folder (a store verb in the service's folder).
  return ['-r', require.resolve('ts-node/register'), '-r', require.resolve('tsconfig-paths/register'), join(root, SOURCE[program])];
}

/**
 * The environment of a service process started by a test: this process's,
 * ts-node's settings (for the sources), the embedded store (no EventStoreDB
 * connection inherited from the shell), a free port and one process
 * (`WORKER_PROCESSES=0`: a worker process beside every service of the HTTP
 * tests would cost the suite about a minute for what they do not test; the
 * tests of worker processes, and `cli-runs`, run the default), then `env`.
 */
export function serviceProcessEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: TS_PROJECT, EVENTSTORE_CONNECTION_STRING: '', PORT: '0', WORKER_PROCESSES: '0', ...env };
}
