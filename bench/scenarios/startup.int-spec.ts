/**
 * Smoke test of the `startup` benchmark scenario at its quick size, one
 * round: both stores are built, the product starts on each twice (first start
 * and restart) and claims a queued run each time. The figures mean little at
 * this size.
 */
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { STARTUP_EVENTS, startupScenario } from './startup';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(180_000));

describe('bench scenario startup (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('startup');
  });
  afterEach(() => quick.cleanUp());

  it('measures the time to the first claim at two history sizes, on a first start and a restart', async () => {
    const result = await startupScenario.run(quick.context);

    const claims = result.measurements.filter((m) => m.metric === 'time to first claim');
    expect(claims.map((m) => [m.variant['start'], (m.variant['events'] as number) >= STARTUP_EVENTS.quick[0]])).toEqual([
      ['first', true],
      ['restart', true],
      ['first', true],
      ['restart', true],
    ]);
    expect(claims[2]?.variant['events']).toBeGreaterThanOrEqual(STARTUP_EVENTS.quick[1]);
    for (const m of claims) {
      expect(m.samples).toHaveLength(1);
      expect(Number.isFinite(m.samples[0]) && (m.samples[0] ?? -1) >= 0).toBe(true);
    }
    expect(result.ratios.map((r) => r.variant['start'])).toEqual(['first', 'restart']);
    expect(result.targets).toHaveLength(2);
    expect(result.targets[0]?.measured).toContain('QUICK');
    expect(result.notes.join('\n')).toContain('100 queued runs');
  });
});
