import { isAbsolute, resolve } from 'node:path';
import type { CrashPoint } from '@agent-ledger/crash-points';
import { CRASH_POINTS } from '@agent-ledger/crash-points';
import { InvalidFieldError } from '@agent-ledger/domain';

/**
 * TEST ONLY. The crash points at which this process kills itself with
 * SIGKILL: a comma-separated list of `<point>`, `<point>@<n>` (the n-th time
 * the point is reached in this process; `<point>` alone is `@1`) or
 * `<point>:<p>` (each time, with probability p in (0, 1], drawn from
 * `AGENT_LEDGER_CRASH_SEED`). Refused when `NODE_ENV` is `production`.
 */
export const CRASH_POINTS_SETTING = 'AGENT_LEDGER_CRASH_POINTS';
/** TEST ONLY. The seed of the probabilities of `AGENT_LEDGER_CRASH_POINTS` (an integer from 0 to 4294967295). @default a random seed, logged */
export const CRASH_SEED_SETTING = 'AGENT_LEDGER_CRASH_SEED';
/**
 * TEST ONLY. A file outside the product where the `ledger.*` test tools
 * append one line per real execution. Setting it registers those tools.
 * Refused when `NODE_ENV` is `production`.
 */
export const TEST_LEDGER_SETTING = 'AGENT_LEDGER_TEST_LEDGER';

/** The test settings, by name (the variables this module reads). */
export const CRASH_TEST_SETTINGS = [CRASH_POINTS_SETTING, CRASH_SEED_SETTING, TEST_LEDGER_SETTING] as const;

/** When a crash point kills the process. */
export type CrashTrigger =
  /** The n-th time the point is reached in this process (from 1). */
  | { readonly kind: 'nth'; readonly n: number }
  /** Each time the point is reached, with probability `p`. */
  | { readonly kind: 'probability'; readonly p: number };

/** One armed crash point. */
export interface CrashRule {
  readonly point: CrashPoint;
  readonly trigger: CrashTrigger;
}

/** `AGENT_LEDGER_CRASH_POINTS` and `AGENT_LEDGER_CRASH_SEED`, checked. */
export interface CrashPointsSetting {
  /** The setting as given (trimmed), for the logs. */
  readonly spec: string;
  readonly rules: readonly CrashRule[];
  /** `AGENT_LEDGER_CRASH_SEED`; null when not set (a random seed is drawn and logged when the points are armed). */
  readonly seed: number | null;
}

/** The test settings of a configuration: both null (off) by default. */
export interface CrashTestConfig {
  /** `AGENT_LEDGER_CRASH_POINTS` (+ `AGENT_LEDGER_CRASH_SEED`). @default null (off) */
  readonly crashPoints: CrashPointsSetting | null;
  /** `AGENT_LEDGER_TEST_LEDGER`, absolute. @default null (the ledger tools are not registered) */
  readonly testLedgerPath: string | null;
}

type Env = Readonly<Record<string, string | undefined>>;

const MAX_NTH = 1_000_000_000;
const MAX_SEED = 4_294_967_295;

/**
 * Reads the test settings from the environment (never from the
 * configuration file: a test setting has no place in a deployed
 * configuration).
 *
 * @throws {@link InvalidFieldError} naming the setting: a bad spec or seed, a
 *   seed without points, or any of them when `NODE_ENV` is `production`.
 */
export function readCrashTestConfig(env: Env, cwd: string): CrashTestConfig {
  const set = CRASH_TEST_SETTINGS.filter((name) => text(env[name]) !== undefined);
  const nodeEnv = text(env.NODE_ENV)?.toLowerCase();
  if (nodeEnv === 'production' && set.length > 0) {
    throw new InvalidFieldError(
      set[0] as string,
      `is a test setting and is refused when NODE_ENV is production (it makes the process kill itself or registers test tools); unset ${set.join(', ')}`,
    );
  }
  const spec = text(env[CRASH_POINTS_SETTING]);
  const seedText = text(env[CRASH_SEED_SETTING]);
  if (spec === undefined && seedText !== undefined) {
    throw new InvalidFieldError(CRASH_SEED_SETTING, `is set without ${CRASH_POINTS_SETTING}: it seeds the probabilities of the crash points only`);
  }
  const ledger = text(env[TEST_LEDGER_SETTING]);
  return {
    crashPoints: spec === undefined ? null : { spec, rules: parseCrashPoints(spec), seed: seedText === undefined ? null : parseSeed(seedText) },
    testLedgerPath: ledger === undefined ? null : isAbsolute(ledger) ? ledger : resolve(cwd, ledger),
  };
}

/**
 * Parses `AGENT_LEDGER_CRASH_POINTS`: `afterWriteFence@3,beforeAudit:0.05,beforeSettle`.
 * @throws {@link InvalidFieldError} naming `AGENT_LEDGER_CRASH_POINTS`
 */
export function parseCrashPoints(spec: string): CrashRule[] {
  const bad = (problem: string) => new InvalidFieldError(CRASH_POINTS_SETTING, `${problem} (syntax: <point>[@<n>|:<probability>],...; points: ${CRASH_POINTS.join(', ')})`);
  const rules: CrashRule[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') throw bad(`has an empty item in "${spec}"`);
    const match = /^([A-Za-z]+)(?:@(\d+)|:(\d*\.?\d+))?$/.exec(item);
    if (match === null) throw bad(`has an item that is not <point>, <point>@<n> or <point>:<probability>: "${item}"`);
    const [, name, nth, probability] = match as unknown as [string, string, string | undefined, string | undefined];
    if (!(CRASH_POINTS as readonly string[]).includes(name)) throw bad(`names an unknown crash point "${name}"`);
    const point = name as CrashPoint;
    if (rules.some((r) => r.point === point)) throw bad(`names ${point} twice`);
    if (probability !== undefined) {
      const p = Number(probability);
      if (!(p > 0 && p <= 1)) throw bad(`gives ${point} a probability out of (0, 1]: ${probability}`);
      rules.push({ point, trigger: { kind: 'probability', p } });
    } else {
      const n = nth === undefined ? 1 : Number(nth);
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_NTH) throw bad(`gives ${point} a count out of 1..${MAX_NTH}: ${nth}`);
      rules.push({ point, trigger: { kind: 'nth', n } });
    }
  }
  return rules;
}

/** The spec of one rule, as `parseCrashPoints` reads it. */
export function crashRuleSpec(rule: CrashRule): string {
  return rule.trigger.kind === 'nth' ? `${rule.point}@${rule.trigger.n}` : `${rule.point}:${rule.trigger.p}`;
}

function parseSeed(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > MAX_SEED) {
    throw new InvalidFieldError(CRASH_SEED_SETTING, `must be an integer from 0 to ${MAX_SEED} (got "${value}")`);
  }
  return Number(value);
}

function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
