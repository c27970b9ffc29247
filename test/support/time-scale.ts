/**
 * How much longer the suite waits on a loaded machine. Every deadline of a
 * wait (a poll, an event, a child process's line, a Jest test timeout) is
 * `scaled(ms)`: `ms` times `TEST_TIME_SCALE`, 3 when unset. A passing wait
 * returns as soon as its condition holds, so a generous scale costs nothing
 * on an idle machine; it only lets a test finish when other work (a second
 * copy of the suite, builds, a browser, writers that fsync) slows this one
 * down. `TEST_TIME_SCALE=1` restores the plain figures written in the tests.
 *
 * Not for a bound that IS the property under test (an append gives up after
 * the configured 100 ms, not the 5 s default): such a bound is chosen from
 * what it tells apart, never scaled.
 */

/** `TEST_TIME_SCALE` when unset. */
export const DEFAULT_TIME_SCALE = 3;

/** The factor read from `env.TEST_TIME_SCALE`: a number of at least 1, else an error naming the variable. */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TEST_TIME_SCALE;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TIME_SCALE;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 1) throw new Error(`TEST_TIME_SCALE must be a number of at least 1, got "${raw}"`);
  return value;
}

/** `ms` scaled for load: the deadline of a wait, or a Jest test timeout. */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale());
}
