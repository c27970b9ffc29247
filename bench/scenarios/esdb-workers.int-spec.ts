/**
 * Smoke test of the `esdb-workers` benchmark scenario at its quick size, one
 * round: 1, 2 and 4 worker processes on the test server as a process, the
 * runs settled, steps/s and claim conflicts per run measured. The figures
 * mean little at this size.
 */
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { ESDB_DISTRIBUTIONS, ESDB_WORKER_COUNTS, esdbWorkersScenario } from './esdb-workers';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(600_000));

describe('bench scenario esdb-workers (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('esdb-workers');
  });
  afterEach(() => quick.cleanUp());

  it('measures steps/s and claim conflicts per run with 1, 2 and 4 worker processes, fed by the consumer group and racing', async () => {
    const result = await esdbWorkersScenario.run(quick.context);

    const steps = result.measurements.filter((m) => m.metric === 'tool steps/s');
    expect(steps.map((m) => [m.variant['distribution'], m.variant['workers']])).toEqual(
      Object.keys(ESDB_DISTRIBUTIONS).flatMap((distribution) => ESDB_WORKER_COUNTS.map((workers) => [distribution, workers])),
    );
    for (const m of steps) expect(m.samples[0]).toBeGreaterThan(0);
    const conflicts = result.measurements.filter((m) => m.metric === 'claim conflicts per run');
    expect(conflicts).toHaveLength(2 * ESDB_WORKER_COUNTS.length);
    // One worker process races with no one: its claims are never refused.
    expect(conflicts.filter((m) => m.variant['workers'] === 1).map((m) => m.samples)).toEqual([[0], [0]]);
    for (const m of conflicts) expect(Number.isFinite(m.samples[0])).toBe(true);
    expect(result.ratios.map((r) => r.name)).toEqual([
      'consumer group: 2 workers / 1 worker steps/s',
      'consumer group: 4 workers / 1 worker steps/s',
      'racing: 2 workers / 1 worker steps/s',
      'racing: 4 workers / 1 worker steps/s',
    ]);
    expect(result.notes.join('\n')).toContain('runs that did not complete: 0');
  });
});
