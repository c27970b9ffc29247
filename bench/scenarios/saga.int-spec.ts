/**
 * Smoke test of the `saga` benchmark scenario at its quick size (20 writes
 * without audit per setting, grace 300 ms), one round: the runtime fails
 * every run, never before its deadline, and every figure comes back finite
 * under its expected name. The figures mean little at this size.
 */
import type { Measurement } from '../support/bench-scenario';
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { DEFAULT_CHECK_INTERVAL_MS, FORMER_CHECK_INTERVAL_MS, sagaScenario } from './saga';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(120_000));

describe('bench scenario saga (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('saga');
  });
  afterEach(() => quick.cleanUp());

  it('measures the lateness of AUDIT_MISSING failures past the grace period, at the default and the former check interval', async () => {
    const result = await sagaScenario.run(quick.context);

    expect(sagaScenario.name).toBe('saga');
    for (const checkIntervalMs of [DEFAULT_CHECK_INTERVAL_MS, FORMER_CHECK_INTERVAL_MS]) {
      const expected: Array<[Measurement['subject'], string]> = [
        ['product', 'p50 lateness'],
        ['product', 'p99 lateness'],
        ['product', 'max lateness'],
        ['baseline', 'p50 lateness'],
        ['baseline', 'p99 lateness'],
      ];
      for (const [subject, metric] of expected) {
        const m = result.measurements.find((x) => x.subject === subject && x.variant.checkIntervalMs === checkIntervalMs && x.metric === metric);
        expect({ subject, checkIntervalMs, metric, samples: m?.samples.length }).toEqual({ subject, checkIntervalMs, metric, samples: 1 });
        // Never before the deadline: a negative lateness would be a run failed while its audit could still arrive.
        expect(Number.isFinite(m?.samples[0]) && (m?.samples[0] ?? -1) >= 0).toBe(true);
      }
      const p99 = result.measurements.find((x) => x.subject === 'product' && x.variant.checkIntervalMs === checkIntervalMs && x.metric === 'p99 lateness');
      expect(p99?.samples[0]).toBeGreaterThan(0);
    }
    expect(result.targets.map((t) => t.target)).toEqual([
      'saga detection within grace + 100 ms at p99 (checkIntervalMs 50, the default)',
      'saga detection within grace + 100 ms at p99 (checkIntervalMs 1000)',
    ]);
    for (const target of result.targets) expect(target.measured).toContain('QUICK');
  });
});
