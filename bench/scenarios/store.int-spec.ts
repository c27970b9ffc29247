import type { BenchContext, ScenarioResult } from '../support/bench-scenario';
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { createStoreScenario, PEER_NOT_INSTALLED, STORE_RATIO_NAMES, storeScenario } from './store';
import { loadPeer } from './store/peer-store';
import { scaled } from '../../test/support/time-scale';

/**
 * Smoke test of the store scenario at quick sizes, one round. The CI does not
 * install the peer (bench/peer/node_modules): there the scenario must still
 * measure the product and say 'peer not installed'; that path is also forced
 * here by pointing the scenario at an empty peer folder.
 */

const contexts: QuickBenchContext[] = [];

function quickContext(): BenchContext {
  const quick = quickBenchContext('store');
  contexts.push(quick);
  return quick.context;
}

afterAll(() => {
  for (const quick of contexts) quick.cleanUp();
});

function expectProductMeasured(result: ScenarioResult): void {
  const product = result.measurements.filter((m) => m.subject === 'product');
  const throughput = product.filter((m) => m.metric === 'appends/s' || m.metric === 'reads/s');
  expect(throughput).toHaveLength(6 + 2); // 2 durabilities × 3 appender counts, 2 reads
  for (const m of result.measurements) {
    expect(m.samples).toHaveLength(1);
    for (const value of m.samples) {
      expect(Number.isFinite(value)).toBe(true);
      if (m.better === 'higher' && m.metric !== 'acknowledged appends') expect(value).toBeGreaterThan(0);
      else expect(value).toBeGreaterThanOrEqual(0);
    }
  }
  // One appender: a stale append is refused, and the next appends at the version read are taken.
  expect(result.notes.some((n) => n.includes('product (SqliteEventStore): conflict, then appended, appended, appended'))).toBe(true);
  // The product is correct under 8 and 64 concurrent appenders on one stream.
  const correctness = result.targets.find((t) => t.target === 'correct under 8 and 64 concurrent appenders');
  expect(correctness?.met).toBe(true);
  for (const appenders of [8, 64]) {
    const value = (metric: string) =>
      product.find((m) => m.metric === metric && m.variant['appenders'] === appenders && m.variant['api'] === 'SqliteEventStore')?.samples[0];
    expect(value('acknowledged appends')).toBeGreaterThan(0);
    expect(value('lost or duplicated events')).toBe(0);
    expect(value('version gaps or repeats')).toBe(0);
    expect(value('errors other than conflicts')).toBe(0);
  }
}

describe('store scenario (quick, one round)', () => {
  it('measures the product, and the peer with its ratios when the peer is installed', async () => {
    const result = await storeScenario.run(quickContext());
    expectProductMeasured(result);
    if (loadPeer().loaded) {
      const names = new Set(result.ratios.map((r) => r.name));
      expect(names).toEqual(new Set([STORE_RATIO_NAMES.appends, STORE_RATIO_NAMES.reads]));
      expect(result.ratios).toHaveLength(6 + 2);
      for (const r of result.ratios) {
        expect(r.samples).toHaveLength(1);
        expect(Number.isFinite(r.samples[0])).toBe(true);
        expect(r.samples[0]).toBeGreaterThan(0);
      }
      expect(result.measurements.filter((m) => m.subject === 'peer' && m.metric === 'appends/s')).toHaveLength(6);
      expect(result.targets.filter((t) => t.target.startsWith('embedded store appends/s >= peer'))).toHaveLength(6);
      expect(result.notes.some((n) => n.startsWith('settings in force') && n.includes('peer (one connection)'))).toBe(true);
    } else {
      expect(result.notes.some((n) => n.startsWith(PEER_NOT_INSTALLED))).toBe(true);
    }
  }, scaled(30_000));

  it("still runs the product side without the peer, and says 'peer not installed'", async () => {
    const context = quickContext();
    const emptyPeer = context.tempDir('no-peer');
    const result = await createStoreScenario({ peerDirectory: emptyPeer }).run(context);
    expectProductMeasured(result);
    expect(result.notes.some((n) => n.startsWith(PEER_NOT_INSTALLED))).toBe(true);
    expect(result.measurements.filter((m) => m.subject === 'peer')).toHaveLength(0);
    expect(result.ratios).toHaveLength(0);
    expect(result.targets.map((t) => t.target)).toEqual(['correct under 8 and 64 concurrent appenders']);
  }, scaled(30_000));
});
