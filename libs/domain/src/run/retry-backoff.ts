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
