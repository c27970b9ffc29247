import { quickBenchContext } from '../support/quick-context';
import { stepsScenario } from './steps';
import { sustainedScenario } from './sustained';
import { scaled } from '../../test/support/time-scale';

describe('bench scenarios at their quick size (integration)', () => {
  it('steps: the product (one process; two sharing the workers; the read models apart from the workers; on PostgreSQL) and both raw baselines report positive figures and their ratios', async () => {
    const { context, cleanUp } = quickBenchContext('steps');
    try {
      const result = await stepsScenario.run(context);
      const product = result.measurements.filter((m) => m.subject === 'product' && m.metric === 'tool steps/s');
      expect(product.map((m) => [m.variant['effect'], m.variant['processes'], m.variant['readModels'], m.variant['store']])).toEqual([
        ['READ_ONLY', 1, undefined, undefined],
        ['IDEMPOTENT_WRITE', 1, undefined, undefined],
        ['NON_IDEMPOTENT_WRITE', 1, undefined, undefined],
        ['READ_ONLY', 2, undefined, undefined],
        ['READ_ONLY', 2, 'own process', undefined],
        ['READ_ONLY', 1, undefined, 'postgres'],
      ]);
      // On PostgreSQL too, the group commit works: one run at a time commits 3.4 times per tool step (one commit per append), 8 runs share commits.
      const postgresCommits = result.measurements.find((m) => m.variant['store'] === 'postgres' && m.metric === 'commits per tool step');
      expect(postgresCommits?.samples[0]).toBeGreaterThan(0);
      expect(postgresCommits?.samples[0]).toBeLessThan(3);
      expect(result.notes.some((n) => n.includes('fsync=on'))).toBe(true);
      for (const m of result.measurements) for (const sample of m.samples) expect(Number.isFinite(sample) && sample >= 0).toBe(true);
      expect(product.every((m) => (m.samples[0] ?? 0) > 0)).toBe(true);
      expect(result.ratios.map((r) => r.name)).toEqual(Array(5).fill('product/baseline steps/s (processCrash)'));
      expect(result.ratios.every((r) => (r.samples[0] ?? 0) > 0)).toBe(true);
    } finally {
      cleanUp();
    }
  }, scaled(120_000));

  it('sustained: samples memory after its warm-up and states the growth target', async () => {
    const { context, cleanUp } = quickBenchContext('steps');
    try {
      const result = await sustainedScenario.run(context);
      const metric = (name: string) => result.measurements.find((m) => m.metric === name)?.samples[0] ?? Number.NaN;
      expect(metric('RSS after warm-up')).toBeGreaterThan(0);
      expect(metric('RSS at the end')).toBeGreaterThan(0);
      expect(metric('runs settled')).toBeGreaterThan(0);
      expect(result.targets).toEqual([expect.objectContaining({ target: expect.stringContaining('no memory growth') })]);
    } finally {
      cleanUp();
    }
  }, scaled(120_000));
});
