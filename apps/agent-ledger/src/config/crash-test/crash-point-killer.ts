import { randomInt } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { CrashPoint, CrashPointContext, CrashPointHandler } from '@agent-ledger/crash-points';
import { installCrashPointHandler } from '@agent-ledger/crash-points';
import type { CrashPointsSetting, CrashRule } from './crash-test-settings';
import { CRASH_POINTS_SETTING, CRASH_SEED_SETTING, crashRuleSpec } from './crash-test-settings';

/** What the killer does to die and to say so (tests replace both). */
export interface CrashKillerDeps {
  /** Ends the process. @default SIGKILL to this process */
  readonly kill?: () => void;
  /** Writes the line that says which point killed the process, synchronously. @default standard error */
  readonly report?: (line: string) => void;
  readonly pid?: number;
}

/** A crash point killer armed in this process. */
export interface ArmedCrashPoints {
  /** The seed of the probabilities (the setting's, or the one drawn). */
  readonly seed: number;
  /** The lines to log, loudly, at start-up. */
  readonly banner: readonly string[];
  /** Removes the handler (tests). */
  disarm(): void;
}

/** The prefix of the line a process prints right before it kills itself at a crash point (the crash tests parse it). */
export const CRASH_LINE_PREFIX = 'agent-ledger crash point:';

/**
 * The crash point handler of `AGENT_LEDGER_CRASH_POINTS`: it counts how many
 * times each armed point is reached in this process and, when the rule says
 * so, prints one line naming the point and where it was reached, then sends
 * SIGKILL to its own process. Points without a rule pass.
 */
export function crashPointKiller(rules: readonly CrashRule[], seed: number, deps: CrashKillerDeps = {}): CrashPointHandler {
  const kill = deps.kill ?? killThisProcess;
  const report = deps.report ?? ((line: string) => writeSync(2, `${line}\n`));
  const pid = deps.pid ?? process.pid;
  const armed = new Map(rules.map((rule, index) => [rule.point, { rule, reached: 0, random: mulberry32((seed + Math.imul(index + 1, 0x9e3779b9)) >>> 0) }]));
  return (point: CrashPoint, context: CrashPointContext): void => {
    const entry = armed.get(point);
    if (entry === undefined) return;
    entry.reached += 1;
    const { trigger } = entry.rule;
    const fire = trigger.kind === 'nth' ? entry.reached === trigger.n : entry.random() < trigger.p;
    if (!fire) return;
    const where = [`runId=${context.runId ?? '-'}`, `stepId=${context.stepId ?? '-'}`, `effect=${context.effect ?? '-'}`].join(' ');
    report(`${CRASH_LINE_PREFIX} point=${point} reached=${entry.reached} rule=${crashRuleSpec(entry.rule)} pid=${pid} ${where}: SIGKILL`);
    kill();
  };
}

/**
 * Arms `AGENT_LEDGER_CRASH_POINTS` in this process (the service's `serve`
 * and `worker`): installs {@link crashPointKiller} as the crash point
 * handler. Returns the lines to log loudly.
 */
export function armCrashPoints(setting: CrashPointsSetting, deps: CrashKillerDeps = {}): ArmedCrashPoints {
  const seed = setting.seed ?? randomInt(0, 2 ** 32 - 1);
  const disarm = installCrashPointHandler(crashPointKiller(setting.rules, seed, deps));
  const bang = '!'.repeat(78);
  return {
    seed,
    banner: [
      bang,
      `!!! CRASH TEST MODE (${CRASH_POINTS_SETTING}=${setting.spec}, ${CRASH_SEED_SETTING}=${seed}): this process kills itself with SIGKILL at these crash points. For crash tests only: never in production (refused when NODE_ENV=production).`,
      bang,
    ],
    disarm,
  };
}

/** SIGKILL to this process. Kept from going on until the signal lands, so that nothing after the point happens (inside a transaction too). */
function killThisProcess(): void {
  process.kill(process.pid, 'SIGKILL');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}

/** A small seeded generator of numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
