import type { RunPolicy } from './run-policy';

/**
 * How long a queued run waits before its next attempt, after `requeues`
 * earlier requeues: base x 2^requeues, capped (30 s, 60 s, 120 s, ... up to 600 s
 * with the defaults).
 *
 * @returns the delay in milliseconds.
 */
export function retryBackoffMs(requeues: number, policy: Pick<RunPolicy, 'backoffBaseSeconds' | 'backoffCapSeconds'>): number {
  const seconds = Math.min(policy.backoffBaseSeconds * 2 ** Math.max(0, requeues), policy.backoffCapSeconds);
  return seconds * 1000;
}

/**
 * How long a failed run waits before its retry: its backoff
 * ({@link retryBackoffMs}), or the failed dependency's `Retry-After` when that
 * is longer, never more than the backoff's cap (a server's hour-long
 * `Retry-After` does not park a run for an hour).
 *
 * @returns the delay in milliseconds.
 */
export function retryDelayMs(requeues: number, policy: Pick<RunPolicy, 'backoffBaseSeconds' | 'backoffCapSeconds'>, retryAfterMs: number | undefined): number {
  const backoff = retryBackoffMs(requeues, policy);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(backoff, Math.min(Math.ceil(retryAfterMs), policy.backoffCapSeconds * 1000));
}
