/**
 * Smoke test of the `esdb-workers` benchmark scenario at its quick size, one
 * round: 1, 2 and 4 worker processes on the test server as a process, the
 * runs settled, steps/s and claim conflicts per run measured. The figures
 * mean little at this size.
 */
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { ESDB_WORKER_COUNTS, esdbWorkersScenario } from './esdb-workers';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(600_000));

describe('bench scenario esdb-workers (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('esdb-workers');
  });
  afterEach(() => quick.cleanUp());

  it('measures steps/s and claim conflicts per run with 1, 2 and 4 worker processes', async () => {
    const result = await esdbWorkersScenario.run(quick.context);

    const steps = result.measurements.filter((m) => m.metric === 'tool steps/s');
    expect(steps.map((m) => m.variant['workers'])).toEqual([...ESDB_WORKER_COUNTS]);
    for (const m of steps) expect(m.samples[0]).toBeGreaterThan(0);
    const conflicts = result.measurements.filter((m) => m.metric === 'claim conflicts per run');
    expect(conflicts).toHaveLength(ESDB_WORKER_COUNTS.length);
    // One worker process races with no one: its claims are never refused.
    expect(conflicts[0]?.samples).toEqual([0]);
    for (const m of conflicts) expect(Number.isFinite(m.samples[0])).toBe(true);
    expect(result.ratios.map((r) => r.name)).toEqual(['2 workers / 1 worker steps/s', '4 workers / 1 worker steps/s']);
    expect(result.notes.join('\n')).toContain('runs that did not complete: 0');
  });
});
