import fc from 'fast-check';
import { replayLine, SimTotals, simulationProperty } from './sim-runner';
import { scaled } from '../support/time-scale';

/*
 * The deterministic simulation: fast-check generates schedules (sim-model.ts),
 * each is played on a fresh world of two processes running the real
 * execution engine (sim-world.ts), settled, and checked (invariants.ts).
 *
 *   npm run test:sim                                  the default budget
 *   SIM_SCHEDULES=50000 npm run test:sim (sim:long)   a long exploration
 *   SIM_SEED=<seed> SIM_PATH=<path> npm run test:sim  replays one failing schedule exactly
 *   SIM_MAX_ACTIONS=<n>                               longer or shorter schedules (default 30)
 *   SIM_LOGS=1                                        the runtime's logs
 *   SIM_STRICT=1                                      fail on the known findings too (invariants.ts KNOWN_FINDINGS)
 */

/** Schedules of the default budget: about a minute on a 2-core machine (see README.md). */
const DEFAULT_SCHEDULES = 2000;

const env = process.env;
const schedules = env.SIM_SCHEDULES === undefined ? DEFAULT_SCHEDULES : Number(env.SIM_SCHEDULES);
const maxActions = env.SIM_MAX_ACTIONS === undefined ? 30 : Number(env.SIM_MAX_ACTIONS);
const seed = env.SIM_SEED === undefined ? (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0 : Number(env.SIM_SEED);
const path = env.SIM_PATH;

/*
 * Bounds, so that a hang fails in minutes: a schedule costs 30 to 40 ms alone
 * (240 ms at a load average of 40), so one that has not ended after 30 s
 * (scaled) hung, and fails as itself, with its replay line; the whole budget
 * gets 120 ms a schedule (scaled: 12 min for 2000), after which fast-check
 * stops and fails, still before Jest's own timeout.
 */
const scheduleTimeoutMs = scaled(30_000);
const budgetMs = scaled(Math.max(120_000, schedules * 120));

describe('deterministic simulation', () => {
  it(
    `every invariant holds after every schedule (${path === undefined ? `${schedules} schedules` : `replay of path ${path}`}, seed ${seed})`,
    async () => {
      const totals = new SimTotals();
      const started = Date.now();
      process.stdout.write(`simulation: seed ${seed}, ${path === undefined ? `${schedules} schedules` : `replaying path ${path}`} of at most ${maxActions} actions\n`);
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
