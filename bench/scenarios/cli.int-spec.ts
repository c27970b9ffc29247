/**
 * Smoke test of the `cli` benchmark scenario at its quick size, one round:
 * `agent-ledger serve` started and a few runs completed, then `--help`,
 * `--version`, `runs list` and `audit verify` called twice each (and a bare
 * node), each with its wall time and peak RSS. The built CLI when the build
 * is up to date, else its sources through ts-node: the figures mean nothing
 * here, only the report's shape is checked.
 */
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { CLI_CALLS, CLI_COMMANDS, CLI_TARGET_MS, cliScenario } from './cli';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(600_000));

describe('bench scenario cli (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('cli');
  });
  afterEach(() => quick.cleanUp());

  it('measures the wall time and peak RSS of --help, --version, an HTTP verb and a store verb, against bare node', async () => {
    const result = await cliScenario.run(quick.context);

    const commands = CLI_COMMANDS.map((c) => c.name);
    expect(commands).toEqual(['--help', '--version', 'runs list', 'audit verify', 'node -e 0']);
    for (const metric of ['median wall time', 'p90 wall time', 'peak RSS']) {
      const rows = result.measurements.filter((m) => m.metric === metric);
      expect(rows.map((m) => m.variant['command'])).toEqual(commands);
      expect(rows.map((m) => m.subject)).toEqual(['product', 'product', 'product', 'product', 'baseline']);
      for (const m of rows) {
        expect(m.variant['calls']).toBe(CLI_CALLS.quick);
        expect(m.samples).toHaveLength(1);
        expect(Number.isFinite(m.samples[0]) && (m.samples[0] ?? 0) > 0).toBe(true);
      }
    }
    expect(result.ratios.map((r) => r.variant['command'])).toEqual(['--help', '--version', 'runs list', 'audit verify']);
    expect(result.targets.map((t) => t.target)).toEqual([
      `agent-ledger --help: median wall time < ${CLI_TARGET_MS} ms`,
      `agent-ledger --version: median wall time < ${CLI_TARGET_MS} ms`,
      `agent-ledger runs list (an HTTP verb): median wall time < ${CLI_TARGET_MS} ms`,
    ]);
    for (const t of result.targets) expect(t.measured).toContain('QUICK');
    expect(result.notes.join('\n')).toMatch(/agent-ledger serve/);
    expect(result.notes.join('\n')).toMatch(/peak RSS: the child's (VmHWM|maxRSS)/);
  });
});
