import { InvalidFieldError } from '../errors/invalid-field.error';
import {
  BACKOFF_BASE_SECONDS,
  BACKOFF_CAP_SECONDS,
  DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS,
  LEASE_SECONDS,
  MAX_REQUEUES,
  WRITE_LEASE_MARGIN_SECONDS,
} from '../limits';

/**
 * The limits an operator may legitimately change. Everything else, and above
 * all the effect of a tool, is fixed in code.
 */
export interface RunPolicyOptions {
  /** Seconds a claim or renewal holds a run. @default 900 */
  readonly leaseSeconds?: number;
  /** Seconds before the first retry (doubled for each further one); small values are for tests. @default 30 */
  readonly backoffBaseSeconds?: number;
  /** The longest wait before a retry. @default 600 */
  readonly backoffCapSeconds?: number;
}

/** The resolved policy the run decider applies. */
export interface RunPolicy {
  readonly leaseSeconds: number;
  readonly backoffBaseSeconds: number;
  readonly backoffCapSeconds: number;
  /** Fixed: the retry budget is part of the contract. */
  readonly maxRequeues: number;
  /** Fixed: the deadline of a write tool that declares none. */
  readonly defaultWriteOperationDeadlineSeconds: number;
  /** Fixed: added to a write's deadline when its fence extends the lease. */
  readonly writeLeaseMarginSeconds: number;
}

/** The policy with every default. */
export const DEFAULT_RUN_POLICY: RunPolicy = Object.freeze({
  leaseSeconds: LEASE_SECONDS,
  backoffBaseSeconds: BACKOFF_BASE_SECONDS,
  backoffCapSeconds: BACKOFF_CAP_SECONDS,
  maxRequeues: MAX_REQUEUES,
  defaultWriteOperationDeadlineSeconds: DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS,
  writeLeaseMarginSeconds: WRITE_LEASE_MARGIN_SECONDS,
});

const KNOWN_OPTIONS: ReadonlySet<string> = new Set(['leaseSeconds', 'backoffBaseSeconds', 'backoffCapSeconds']);

/**
 * Validates operator options and fills in the defaults.
 *
 * @throws {@link InvalidFieldError} naming the option, for an unknown option
 *   (so that a misspelt or forbidden setting is not silently ignored) or a
 *   value out of range.
 */
export function resolveRunPolicy(options: RunPolicyOptions = {}): RunPolicy {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw new InvalidFieldError(key, `is not a run policy option (known: ${[...KNOWN_OPTIONS].join(', ')})`);
    }
  }
  const leaseSeconds = positiveNumber(options.leaseSeconds, 'leaseSeconds', LEASE_SECONDS);
  const backoffBaseSeconds = positiveNumber(options.backoffBaseSeconds, 'backoffBaseSeconds', BACKOFF_BASE_SECONDS);
  const backoffCapSeconds = positiveNumber(options.backoffCapSeconds, 'backoffCapSeconds', BACKOFF_CAP_SECONDS);
  if (backoffCapSeconds < backoffBaseSeconds) {
    throw new InvalidFieldError('backoffCapSeconds', `must be at least backoffBaseSeconds (${backoffBaseSeconds})`);
  }
  return Object.freeze({ ...DEFAULT_RUN_POLICY, leaseSeconds, backoffBaseSeconds, backoffCapSeconds });
}

function positiveNumber(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidFieldError(field, 'must be a positive number of seconds');
  }
  return value;
}
