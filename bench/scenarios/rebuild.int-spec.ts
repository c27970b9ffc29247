/**
 * Smoke test of the `rebuild` benchmark scenario at its quick size (about
 * 20,000 events), one round: the history is generated, the product's rebuild
 * and both baselines run in child processes, and every figure comes back
 * finite and positive under its expected name. The figures mean little at
 * this size.
 */
import type { Measurement } from '../support/bench-scenario';
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { REBUILD_EVENTS, rebuildScenario } from './rebuild';
import { scaled } from '../../test/support/time-scale';

jest.setTimeout(scaled(120_000));

describe('bench scenario rebuild (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('rebuild');
  });
  afterEach(() => quick.cleanUp());

  it('measures the rebuild of all projections and the two read-and-parse baselines, in events/s and RSS', async () => {
    const result = await rebuildScenario.run(quick.context);

    expect(rebuildScenario.name).toBe('rebuild');
    const works: Array<[Measurement['subject'], string]> = [
      ['product', 'rebuild all projections'],
      ['baseline', 'SqliteEventStore.readAll (parsed)'],
      ['baseline', 'raw SELECT + JSON.parse'],
    ];
    for (const [subject, work] of works) {
      for (const metric of ['events/s', 'peak RSS', 'RSS at start', 'CPU per 1,000 events']) {
        const m = result.measurements.find((x) => x.subject === subject && x.variant.work === work && x.metric === metric);
        expect({ subject, work, metric, samples: m?.samples.length }).toEqual({ subject, work, metric, samples: 1 });
        expect(Number.isFinite(m?.samples[0]) && (m?.samples[0] ?? 0) > 0).toBe(true);
        expect(m?.variant.events).toBeGreaterThanOrEqual(REBUILD_EVENTS.quick);
      }
    }
    for (const baseline of ['readAll', 'raw SELECT']) {
      const ratio = result.ratios.find((r) => r.name === 'product/baseline rebuild events/s' && r.variant.baseline === baseline);
      expect(ratio?.samples).toHaveLength(1);
      expect(Number.isFinite(ratio?.samples[0]) && (ratio?.samples[0] ?? 0) > 0).toBe(true);
    }
    expect(result.targets.map((t) => t.target)).toEqual(['rebuild >= 100,000 events/s (1M events)', 'peak RSS < 300 MB (1M events)']);
    for (const target of result.targets) expect(target.measured).toContain('QUICK');
  });
});
