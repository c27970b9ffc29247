/**
 * Smoke test of the `audit-verdict` benchmark scenario at its quick size
 * (about 20,000 events), one round: the history is generated, the full
 * verdict, the reviews from the checkpoint (nothing new, a new process,
 * 1,000 new events) and the baseline run, and every figure comes back finite
 * and positive. The figures mean little at this size.
 */
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { AUDIT_VERDICT_EVENTS, auditVerdictScenario } from './audit-verdict';

jest.setTimeout(120_000);

describe('bench scenario audit-verdict (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('audit-verdict');
  });
  afterEach(() => quick.cleanUp());

  it('measures the full verdict, the reviews from the checkpoint and the read-and-parse baseline, and states the targets', async () => {
    const result = await auditVerdictScenario.run(quick.context);
    const works = [
      'full verdict (audit verify)',
      'review, nothing new (GET /audit/review)',
      'first review of a new process (checkpoint file loaded)',
      'review after 1000 new events',
      'SqliteEventStore.readAll (parsed)',
    ];
    for (const work of works) {
      const found = result.measurements.filter((m) => m.variant.work === work);
      expect(found.length).toBeGreaterThan(0);
      for (const m of found) {
        expect(m.samples).toHaveLength(1);
        expect(Number.isFinite(m.samples[0])).toBe(true);
        expect(m.variant.events).toBeGreaterThanOrEqual(AUDIT_VERDICT_EVENTS.quick);
      }
    }
    expect(result.ratios.map((r) => r.samples.length)).toEqual([1, 1]);
    expect(result.targets.map((t) => t.target)).toEqual([expect.stringMatching(/^review with nothing new, .*: < 100 ms$/), expect.stringMatching(/^review after 1,000 new events, .*: < 1,000 ms$/)]);
    expect(result.notes[0]).toContain('QUICK');
    expect(result.notes.join('\n')).toMatch(/verdict: \d+ chains, \d+ records, \d+ writes executed/);
  });
});
