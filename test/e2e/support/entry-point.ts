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

/**
 * The node arguments that start the service or the CLI. In CI (`CI=true`),
 * where `.ci/run` builds before testing, the **built** program in `dist/` is
 * started, as a user would; elsewhere the sources run through ts-node, so
 * `npm test` on a fresh clone needs no build and never runs a stale one.
 */
export function entryArgs(program: keyof typeof BUILT): string[] {
  const built = join(root, BUILT[program]);
  if (process.env.CI === 'true' && existsSync(built)) return [built];
  return ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', SOURCE[program]];
}

/**
 * The environment of a service process started by a test: this process's,
 * ts-node's settings (for the sources), the embedded store (no EventStoreDB
 * connection inherited from the shell) and a free port, then `env`.
 */
export function serviceProcessEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: 'tsconfig.json', EVENTSTORE_CONNECTION_STRING: '', PORT: '0', ...env };
}
