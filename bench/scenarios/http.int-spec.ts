/**
 * Smoke test of the `http` benchmark scenario at its quick size, one round:
 * the real service (twice: workers off and on) and the baseline server are
 * started as child processes, loaded over loopback, and stopped. The figures
 * mean little at this size; the test checks that each is there, finite and
 * positive, that no request failed, and that no child is left running.
 */
import type { Measurement } from '../support/bench-scenario';
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { HTTP_CONNECTIONS, httpScenario } from './http';
import { childServersRunning } from './http/child-server';
import { scaled } from '../../test/support/time-scale';

describe('bench scenario http (quick, one round)', () => {
  let quick: QuickBenchContext;
  beforeEach(() => {
    quick = quickBenchContext('http');
  });
  afterEach(() => quick.cleanUp());

  it('measures the service (workers off and on) and the baseline at each C, with no failed request', async () => {
    const result = await httpScenario.run(quick.context);

    expect(childServersRunning()).toBe(0);
    expect(httpScenario.name).toBe('http');
    const find = (subject: Measurement['subject'], variant: Measurement['variant'], metric: string) =>
      result.measurements.find((m) => m.subject === subject && m.metric === metric && JSON.stringify(m.variant) === JSON.stringify(variant));
    for (const connections of HTTP_CONNECTIONS) {
      const subjects: Array<[Measurement['subject'], Measurement['variant']]> = [
        ['baseline', { connections }],
        ['product', { connections, workers: 'off' }],
        ['product', { connections, workers: 'on' }],
      ];
      for (const [subject, variant] of subjects) {
        for (const metric of ['runs started/s', 'p50 latency', 'p90 latency', 'p99 latency', 'max latency']) {
          const m = find(subject, variant, metric);
          expect({ subject, variant, metric, samples: m?.samples.length }).toEqual({ subject, variant, metric, samples: 1 });
          expect(Number.isFinite(m?.samples[0]) && (m?.samples[0] ?? 0) > 0).toBe(true);
        }
        expect({ subject, variant, failed: find(subject, variant, 'failed requests')?.samples }).toEqual({ subject, variant, failed: [0] });
      }
      expect(find('product', { connections, workers: 'on' }, 'runs executed/s')?.samples).toHaveLength(1);
      for (const name of ['product/baseline HTTP runs/s', 'product (workers on)/baseline HTTP runs/s']) {
        const ratio = result.ratios.find((r) => r.name === name && r.variant.connections === connections);
        expect(ratio?.samples).toHaveLength(1);
        expect(Number.isFinite(ratio?.samples[0]) && (ratio?.samples[0] ?? 0) > 0).toBe(true);
      }
    }
    expect(result.notes.some((note) => note.startsWith('service: '))).toBe(true);
    expect(result.notes.some((note) => note.startsWith('round 1, workers on: '))).toBe(true);
    expect(result.notes.filter((note) => /failed request\(s\), warm-up included/.test(note))).toEqual([]);
    expect(result.measurements.filter((m) => m.metric === 'failed requests').every((m) => m.samples.every((n) => n === 0))).toBe(true);
  }, scaled(150_000));
});
