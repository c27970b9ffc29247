import fc from 'fast-check';
import { replayLine, SimTotals, simulationProperty } from './sim-runner';
import { scaled } from '../support/time-scale';

/*
 * The deterministic simulation: fast-check generates schedules (sim-model.ts),
 * each is played on a fresh world of two processes running the real
 * execution engine (sim-world.ts), settled, and checked (invariants.ts).
 * The budget is shared by SIMULATION_SHARDS files (simulation.<n>.sim-spec.ts),
 * each exploring its part from a seed of its own, so that Jest runs them side
 * by side on two cores.
 *
 *   npm run test:sim                                  the default budget
 *   SIM_SCHEDULES=50000 npm run test:sim (sim:long)   a long exploration
 *   SIM_SEED=<seed> SIM_PATH=<path> npm run test:sim  replays one failing schedule exactly (in shard 1; the others skip)
 *   SIM_MAX_ACTIONS=<n>                               longer or shorter schedules (default 30)
 *   SIM_LOGS=1                                        the runtime's logs
 *   SIM_STRICT=1                                      fail on the known findings too (invariants.ts KNOWN_FINDINGS)
 */

/** Schedules of the default budget, all shards together: about a minute on a 2-core machine (see README.md). */
export const DEFAULT_SCHEDULES = 2000;

/** The files the budget is shared by (`simulation.1.sim-spec.ts` ...). */
export const SIMULATION_SHARDS = 2;

/**
 * Declares shard `shard` (1-based) of the simulation: `1/SIMULATION_SHARDS` of
 * the budget from a random seed of its own; given `SIM_SEED`, shard 1 runs
 * that seed (a replay, with `SIM_PATH`) and the other shards are skipped, so
 * that a replay runs once.
 */
export function describeSimulationShard(shard: number): void {
  const env = process.env;
  const total = env.SIM_SCHEDULES === undefined ? DEFAULT_SCHEDULES : Number(env.SIM_SCHEDULES);
  const schedules = Math.ceil(total / SIMULATION_SHARDS);
  const maxActions = env.SIM_MAX_ACTIONS === undefined ? 30 : Number(env.SIM_MAX_ACTIONS);
  const given = env.SIM_SEED === undefined ? undefined : Number(env.SIM_SEED);
  const seed = given ?? (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0;
  const path = env.SIM_PATH;

  /*
   * Bounds, so that a hang fails in minutes: a schedule costs 30 to 40 ms alone
   * (240 ms at a load average of 40), so one that has not ended after 30 s
   * (scaled) hung, and fails as itself, with its replay line; the shard's
   * budget gets 120 ms a schedule (scaled: 6 min for 1000), after which
   * fast-check stops and fails, still before Jest's own timeout.
   */
  const scheduleTimeoutMs = scaled(30_000);
  const budgetMs = scaled(Math.max(120_000, schedules * 120));
  const what = path === undefined ? `${schedules} of ${total} schedules` : `replay of path ${path}`;
  const test = given !== undefined && shard !== 1 ? it.skip : it;

  describe(`deterministic simulation, shard ${shard} of ${SIMULATION_SHARDS}`, () => {
    test(
      `every invariant holds after every schedule (${what}, seed ${seed})`,
      async () => {
        const totals = new SimTotals();
        const started = Date.now();
        process.stdout.write(`simulation shard ${shard}/${SIMULATION_SHARDS}: seed ${seed}, ${path === undefined ? `${schedules} schedules` : `replaying path ${path}`} of at most ${maxActions} actions\n`);
        try {
          await fc.assert(simulationProperty(maxActions, totals, { verboseLogs: env.SIM_LOGS === '1', strict: env.SIM_STRICT === '1' }), {
            numRuns: schedules,
            timeout: scheduleTimeoutMs,
            interruptAfterTimeLimit: budgetMs,
            markInterruptAsFailure: true,
            seed,
            ...(path === undefined ? {} : { path }),
            verbose: 1,
            includeErrorInReport: true,
          });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          process.stdout.write(`${totals.summary(Date.now() - started)}\n`);
          throw new Error(`${replayLine(message) ?? ''}\n${message}`);
        }
        process.stdout.write(`${totals.summary(Date.now() - started)}\n`);
        expect(totals.failing).toBe(0); // fast-check fails first, with the shrunk schedule; this guards the totals
      },
      budgetMs + scaled(60_000),
    );
  });
}
