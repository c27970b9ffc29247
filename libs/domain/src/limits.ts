/**
 * The runtime's limits, in one place. Operators may override some of them
 * through {@link RunPolicyOptions}; the effect of a tool is never among them.
 */

/** How long a claim or a renewal holds a run, in seconds. @default 900 */
export const LEASE_SECONDS = 900;

/**
 * How many times a queued run may be put back in the queue, shared by failure
 * retries and stale reclaims: a run executes at most 1 + MAX_REQUEUES times.
 */
export const MAX_REQUEUES = 3;

/** The first retry waits this long; each further retry doubles it. @default 30 */
export const BACKOFF_BASE_SECONDS = 30;

/** No retry waits longer than this. @default 600 */
export const BACKOFF_CAP_SECONDS = 600;

/** Model rounds a run may take before it ends with `MAX_ITERATIONS`. @default 20 */
export const MAX_ITERATIONS = 20;

/** The operation deadline of a write tool that declares none, in seconds. @default 300 */
export const DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS = 300;

/**
 * Added to a write's operation deadline when its fence extends the lease, so
 * that the segment can still record the result after a call that used its whole
 * deadline. @default 60
 */
export const WRITE_LEASE_MARGIN_SECONDS = 60;
