/**
 * What a CLI command loads (issue 26): `--help` and `--version` load no
 * package of the product, no Nest and no YAML parser; an HTTP verb loads the
 * client of the service, never the stores, the runtime or Nest. Each case
 * loads the CLI afresh (`jest.isolateModules`) and records which of those
 * modules were asked for. The bench measures the time it saves
 * (`npm run bench -- --only cli`, docs/benchmarks.md).
 */
import type * as Main from './main';
import { forgetWatched, modulesLoadedBy } from './testing/modules-loaded';

/** What `--help` and `--version` do without; an HTTP verb does without all but the first two. */
const HEAVY = [
  '@agent-ledger/client',
  '@agent-ledger/domain',
  '@agent-ledger/event-store',
  '@agent-ledger/runtime',
  '@agent-ledger/projections',
  '@agent-ledger/module',
  '@agent-ledger/http',
  '@nestjs/common',
  '@nestjs/core',
  'reflect-metadata',
  'yaml',
] as const;

const loadedBy = (argv: readonly string[], env: NodeJS.ProcessEnv = {}, deps: Main.CliDeps = {}) => modulesLoadedBy(HEAVY, argv, env, deps);

afterEach(() => forgetWatched(HEAVY));

describe('what a CLI command loads', () => {
  it.each([[['--help']], [['--version']], [['help']], [[]], [['runs', '--help']], [['audit', 'verify', '--help']], [['serve', '--help']], [['nonsense']]])('%j loads none of the packages', async (argv) => {
    const { loaded, output } = await loadedBy(argv);
    expect(output.lines.length + output.errors.length).toBeGreaterThan(0);
    expect(loaded).toEqual([]);
  });

  it('an HTTP verb loads the client of the service, not the stores, the runtime, Nest or the YAML parser', async () => {
    const fetchFn = (() => Promise.resolve(new Response(JSON.stringify({ runs: [], nextCursor: null }), { status: 200, headers: { 'content-type': 'application/json' } }))) as typeof fetch;
    const { code, loaded, output } = await loadedBy(['runs', 'list'], { AGENT_LEDGER_URL: 'http://svc.test:8080' }, { fetch: fetchFn });
    expect(output.lines).toEqual(['No runs.']);
    expect(code).toBe(0);
    expect(loaded).toContain('@agent-ledger/client');
    expect(loaded.filter((name) => name !== '@agent-ledger/client' && name !== '@agent-ledger/domain')).toEqual([]);
  });

  it("runs list --help loads the client for the run statuses it names, nothing else of the stores'", async () => {
    const { loaded, output } = await loadedBy(['runs', 'list', '--help']);
    expect(output.lines.join('\n')).toContain('--status: QUEUED, RUNNING');
    expect(loaded.filter((name) => name !== '@agent-ledger/client' && name !== '@agent-ledger/domain')).toEqual([]);
  });
});
