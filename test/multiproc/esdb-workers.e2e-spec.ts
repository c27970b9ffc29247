/**
 * Several processes on EventStoreDB (issue 19, section 3): the protocol-level
 * server as a process of its own, one API process and worker processes on
 * it, a mixed workload of queued runs over HTTP, workers killed with SIGKILL
 * at random (and replaced), or a worker added and one removed; every run
 * settles, every invariant of the crash suite holds, and the claim conflicts
 * per run (counted by the server) stay bounded. See test/multiproc/README.md.
 */
import type { EsdbScenarioSpec } from './support/esdb-scenario';
import { runEsdbScenario, summariseEsdbScenario } from './support/esdb-scenario';
import { scaled } from '../support/time-scale';

const seed = process.env.MULTIPROC_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.MULTIPROC_SEED);
const runs = Number(process.env.MULTIPROC_RUNS ?? 200);
const keepDir = process.env.MULTIPROC_KEEP === '1';
/**
 * The ceiling on claim conflicts per run, on average. With three or four
 * workers racing for each due run, a run costs at most two or three lost
 * claims per claim it needs (a requeue after a kill, a retry, an approval
 * each add one); we measured 0.23 (kills) and 0.74 (scaling) (README). Well
 * above that, so that only a regression in kind fails it: a worker retrying
 * a lost claim, or every worker losing every race.
 */
const MAX_CONFLICTS_PER_RUN = 2;

jest.setTimeout(scaled(900_000));

describe(`several worker processes on EventStoreDB (e2e; seed ${seed})`, () => {
  it(`${runs} mixed runs, three workers, workers killed with SIGKILL at random and replaced: every run settles, every invariant holds, claim conflicts stay bounded`, async () => {
    const spec: EsdbScenarioSpec = {
      name: 'esdb-kills',
      seed,
      runs,
      workers: 3,
      randomKills: 6,
      addWorkerAt: null,
      removeWorkerAt: null,
      auditGapGraceMs: 5_000,
      settleTimeoutMs: 300_000,
    };
    const { report, failure } = await runEsdbScenario(spec, { keepDir });
    console.log(summariseEsdbScenario(report));
    if (failure !== '') throw new Error(failure);

    expect(report.unsettled).toEqual([]);
    expect(report.exits.filter((e) => e.cause === 'external')).toHaveLength(6);
    // The workload did what it says: writes of both kinds, retries of the flaky model, denials.
    expect(report.figures?.executions['ledger.append']).toBeGreaterThan(0);
    expect(report.figures?.executions['ledger.put']).toBeGreaterThan(0);
    expect(report.flakyRefusals).toBeGreaterThan(0);
    expect(report.operator.denied).toBeGreaterThan(0);
    expect(Object.keys(report.figures?.byOutcome ?? {})).toEqual(expect.arrayContaining(['queued COMPLETED', 'queued FAILED APPROVAL_DENIED']));
    const conflicts = report.claimConflicts;
    expect(conflicts?.runs).toBe(runs);
    expect(conflicts?.meanPerRun).toBeLessThan(MAX_CONFLICTS_PER_RUN);
  });

  it('a worker added and one removed (SIGTERM) while runs are in flight: every run settles, every invariant holds', async () => {
    const spec: EsdbScenarioSpec = {
      name: 'esdb-scale',
      seed: seed + 1,
      runs: Math.ceil(runs / 2),
      workers: 3,
      randomKills: 0,
      addWorkerAt: 0.3,
      removeWorkerAt: 0.6,
      auditGapGraceMs: 120_000,
      settleTimeoutMs: 300_000,
    };
    const { report, failure } = await runEsdbScenario(spec, { keepDir });
    console.log(summariseEsdbScenario(report));
    if (failure !== '') throw new Error(failure);

    expect(report.unsettled).toEqual([]);
    expect(report.scaling).toEqual({ added: ['worker-4'], removed: ['worker-1'] });
    // Both took part: the removed worker before it left, the added one after it came.
    expect(report.claimsByProcess['worker-1']).toBeGreaterThan(0);
    expect(report.claimsByProcess['worker-4']).toBeGreaterThan(0);
    expect(report.claimConflicts?.meanPerRun).toBeLessThan(MAX_CONFLICTS_PER_RUN);
  });
});
