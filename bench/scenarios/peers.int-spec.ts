import type { BenchContext, Measurement, ScenarioResult } from '../support/bench-scenario';
import type { QuickBenchContext } from '../support/quick-context';
import { quickBenchContext } from '../support/quick-context';
import { createPeersScenario, PEER_NOT_INSTALLED, peersRatioName, peersScenario } from './peers';
import { findDbos } from './peers/dbos-round';
import { postgresMissing } from '../support/postgres-cluster';
import { findRestate } from './peers/restate-round';
import { DEFAULT_PEER_DIRECTORY } from './store/peer-store';
import { scaled } from '../../test/support/time-scale';

/**
 * Smoke test of the peers scenario at its quick size (C = 1 and 8, a few
 * runs), one round. The CI does not install the peers (bench/peer/node_modules):
 * there the scenario must still measure agent-ledger and say 'peer not
 * installed'; that path is also forced here by pointing the scenario at an
 * empty peer folder. No figure is compared with another: the machine may be
 * loaded.
 */

const contexts: QuickBenchContext[] = [];

function quickContext(): BenchContext {
  const quick = quickBenchContext('peers');
  contexts.push(quick);
  return quick.context;
}

afterAll(() => {
  for (const quick of contexts) quick.cleanUp();
});

const QUICK_CONCURRENCIES = [1, 8];
const METRICS = ['tool steps/s', 'p50 step latency', 'p99 step latency'];
const withPostgres = postgresMissing() === null;

/** The measurements of one system, as [runs, metric] pairs. */
function measured(result: ScenarioResult, system: string, store?: string, layout?: string): Array<[unknown, string]> {
  return result.measurements
    .filter((m) => m.variant['system'] === system && (store === undefined || m.variant['store'] === store) && m.variant['layout'] === layout)
    .map((m) => [m.variant['runs'], m.metric]);
}

const everyRunsAndMetricOf = (concurrencies: readonly number[]) => concurrencies.flatMap((runs) => METRICS.map((metric) => [runs, metric]));
const everyRunsAndMetric = everyRunsAndMetricOf(QUICK_CONCURRENCIES);

function expectWellFormed(m: Measurement): void {
  expect(m.samples).toHaveLength(1);
  for (const value of m.samples) {
    expect(Number.isFinite(value)).toBe(true);
    if (m.metric === 'tool steps/s') expect(value).toBeGreaterThan(0);
    else expect(value).toBeGreaterThanOrEqual(0);
  }
}

/** agent-ledger is measured whatever the peers: on its embedded store with fsync on, and on PostgreSQL when the machine has its binaries. */
function expectAgentLedgerMeasured(result: ScenarioResult, concurrencies: readonly number[] = QUICK_CONCURRENCIES): void {
  const everyRunsAndMetric = everyRunsAndMetricOf(concurrencies);
  for (const m of result.measurements) expectWellFormed(m);
  const product = result.measurements.filter((m) => m.subject === 'product');
  expect(measured(result, 'agent-ledger', 'embedded')).toEqual(everyRunsAndMetric);
  // And as the service runs on a machine of several cores: its workers in a worker process.
  expect(measured(result, 'agent-ledger', 'embedded', 'worker process')).toEqual(everyRunsAndMetric);
  expect(product.filter((m) => m.variant['store'] === 'embedded').every((m) => m.variant['durability'] === 'powerLoss')).toBe(true);
  expect(result.notes.some((n) => n.includes('synchronous=FULL'))).toBe(true);
  if (withPostgres) {
    expect(measured(result, 'agent-ledger', 'postgres')).toEqual(everyRunsAndMetric);
    expect(result.notes.some((n) => n.startsWith('PostgreSQL:') && n.includes('fsync=on') && n.includes('synchronous_commit=on'))).toBe(true);
  } else {
    expect(result.notes.some((n) => n.startsWith('agent-ledger on PostgreSQL: not measured'))).toBe(true);
  }
}

describe('peers scenario (quick, one round)', () => {
  it('measures agent-ledger, and DBOS and Restate with their ratios and targets when they are installed', async () => {
    const result = await peersScenario.run(quickContext());
    expectAgentLedgerMeasured(result);
    const dbos = withPostgres && findDbos(DEFAULT_PEER_DIRECTORY).installed;
    const restate = findRestate(DEFAULT_PEER_DIRECTORY).installed;
    const expectedRatios: string[] = [];
    for (const runs of QUICK_CONCURRENCIES) {
      if (dbos) expectedRatios.push(peersRatioName('agent-ledger', 'DBOS', runs));
      if (restate) expectedRatios.push(peersRatioName('agent-ledger', 'Restate', runs));
      if (dbos) expectedRatios.push(peersRatioName('agent-ledger, worker process', 'DBOS', runs));
      if (restate) expectedRatios.push(peersRatioName('agent-ledger, worker process', 'Restate', runs));
      if (dbos) expectedRatios.push(peersRatioName('agent-ledger on PostgreSQL', 'DBOS', runs));
    }
    expect(result.ratios.map((r) => r.name)).toEqual(expectedRatios);
    for (const r of result.ratios) {
      expect(r.samples).toHaveLength(1);
      expect(r.samples[0]).toBeGreaterThan(0);
    }
    if (dbos) {
      expect(measured(result, 'DBOS', 'postgres')).toEqual(everyRunsAndMetric);
      expect(result.measurements.filter((m) => m.variant['system'] === 'DBOS').every((m) => m.subject === 'peer')).toBe(true);
      expect(result.notes.some((n) => n.startsWith('DBOS: @dbos-inc/dbos-sdk'))).toBe(true);
      expect(result.notes.some((n) => n.startsWith('DBOS, as its process read them: synchronous_commit=on'))).toBe(true);
      // At the quick size, the targets of C = 1 and 8 (those of C = 64 need the full size).
      expect(result.targets.map((t) => t.target)).toEqual([
        "C=1, fsync on: agent-ledger (embedded store) tool steps/s >= 1.5x DBOS's",
        "C=1, fsync on: agent-ledger (embedded store, a worker process) tool steps/s >= 1.5x DBOS's",
        "C=1, fsync on: agent-ledger on PostgreSQL tool steps/s >= 1x DBOS's",
        "C=8, fsync on: agent-ledger (embedded store) tool steps/s >= 2x DBOS's",
        "C=8, fsync on: agent-ledger (embedded store, a worker process) tool steps/s >= 2x DBOS's",
        "C=8, fsync on: agent-ledger on PostgreSQL tool steps/s >= 1.5x DBOS's",
      ]);
    } else {
      expect(result.notes.some((n) => n.startsWith('DBOS: not measured'))).toBe(true);
      expect(result.targets).toEqual([]);
    }
    if (restate) {
      expect(measured(result, 'Restate')).toEqual(everyRunsAndMetric);
      expect(result.notes.some((n) => n.startsWith('Restate: @restatedev/restate-server') && n.includes('rocksdb-disable-wal-fsync=false'))).toBe(true);
    } else {
      expect(result.notes.some((n) => n.startsWith('Restate: not measured'))).toBe(true);
    }
    // Nothing failed on the way: a peer that failed a round would have a note saying so.
    expect(result.notes.filter((n) => n.includes('failed, left out'))).toEqual([]);
  }, scaled(120_000));

  it("still measures agent-ledger without the peers, and says 'peer not installed' for each", async () => {
    const context = quickContext();
    const emptyPeer = context.tempDir('no-peer');
    // One C is enough here (the product's figures at both are the first test's).
    const result = await createPeersScenario({ peerDirectory: emptyPeer, concurrencies: [1] }).run(context);
    expectAgentLedgerMeasured(result, [1]);
    expect(result.notes.some((n) => n.startsWith(`DBOS: not measured: ${PEER_NOT_INSTALLED}`))).toBe(true);
    expect(result.notes.some((n) => n.startsWith(`Restate: not measured: ${PEER_NOT_INSTALLED}`))).toBe(true);
    expect(result.measurements.filter((m) => m.subject === 'peer')).toEqual([]);
    expect(result.ratios).toEqual([]);
    expect(result.targets).toEqual([]);
  }, scaled(120_000));
});
