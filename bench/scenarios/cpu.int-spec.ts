/**
 * Smoke test of the `cpu` benchmark scenario at its quick size, one round:
 * profiled step rounds of each effect, their CPU per tool step by stage. The
 * figures mean little at this size; what is checked is that the profile is
 * taken and attributed (the product's own stages get time) and that the
 * stages add up to the profiled total.
 */
import { quickBenchContext } from '../support/quick-context';
import { CPU_STAGES } from '../support/cpu-stages';
import { cpuScenario } from './cpu';
import { scaled } from '../../test/support/time-scale';

describe('bench scenario cpu (quick, one round)', () => {
  it('reports the CPU per tool step of every stage and their total, for each effect', async () => {
    const { context, cleanUp } = quickBenchContext('cpu');
    try {
      const result = await cpuScenario.run(context);
      for (const effect of ['READ_ONLY', 'IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE']) {
        const of = (stage: string) => result.measurements.find((m) => m.variant['effect'] === effect && m.variant['stage'] === stage)?.samples[0] ?? Number.NaN;
        const stages = CPU_STAGES.map(of);
        for (const ms of stages) expect(Number.isFinite(ms) && ms >= 0).toBe(true);
        const total = of('total (process.cpuUsage)');
        expect(total).toBeGreaterThan(0);
        expect(stages.reduce((a, b) => a + b, 0)).toBeCloseTo(total, 6);
        expect(of('main thread busy in the samples (not CPU under load)')).toBeGreaterThan(0);
        // The product's own work is seen and attributed, not left in `other`.
        for (const stage of ['event store (append, read, subscriptions)', 'read models (projections)', 'SQLite native calls'] as const) {
          expect({ effect, stage, seen: of(stage) > 0 }).toEqual({ effect, stage, seen: true });
        }
      }
      expect(result.notes).toHaveLength(4);
    } finally {
      cleanUp();
    }
  }, scaled(180_000));
});
