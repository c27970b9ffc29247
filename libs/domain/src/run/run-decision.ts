import type { Decision } from '../decision';
import type { RunEvent } from './run-events';
import type { RunStatus } from './run-status';

/**
 * The segment that sent the command no longer holds the run's lease (it was
 * reaped, settled, or claimed by someone else). Not an error to retry: the
 * segment must stop at once, settle nothing and record nothing further.
 */
export interface LeaseLost {
  readonly kind: 'leaseLost';
  readonly runId: string;
  readonly status: RunStatus;
  readonly currentOwner: string | null;
}

/** What the run decider answers to a command: the one decision type, with the run's own `leaseLost`. */
export type RunDecision = Decision<RunEvent, LeaseLost>;
