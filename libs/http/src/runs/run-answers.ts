import type { RunStatus } from '@agent-ledger/domain';
import type { SegmentOutcome } from '@agent-ledger/runtime';
import type { RunView } from './run-view';

/** The body of `POST /runs` for a queued run (202). */
export interface StartRunAccepted {
  readonly runId: string;
  readonly mode: 'queued';
  /** `QUEUED` for a new run; a replay gives the run's current status. */
  readonly status: RunStatus;
  /** The idempotency key named an existing run: nothing new was started. */
  readonly replayed: boolean;
}

/** The body of `POST /runs` for an interactive run (200): the run as its own stream tells it. */
export interface StartRunInteractive {
  readonly runId: string;
  readonly mode: 'interactive';
  readonly replayed: boolean;
  /** How the request's segment ended; null for a replay. */
  readonly segment: SegmentOutcome['kind'] | null;
  readonly run: RunView;
}

/** The body of `POST /runs/{runId}/cancel` (200 cancelled, 202 stopping at the next step boundary). */
export interface CancelRunAnswer {
  readonly runId: string;
  readonly cancelRequested: true;
  readonly run: RunView;
}

/**
 * The body of `POST /runs/{runId}/approval` and `POST /runs/{runId}/input`
 * (200): the run after the decision or the input, as its own stream tells it.
 * `status` repeats `run.status`: `QUEUED` once approved, denied with
 * `tellModel`, or given its input (a worker resumes it); `FAILED` (reason
 * `APPROVAL_DENIED`) when a denial ended it.
 */
export interface RunResumeAnswer {
  readonly runId: string;
  readonly status: RunStatus;
  readonly run: RunView;
  /**
   * `recorded`: the statement of the decision or answer is in the run's audit
   * chain. `pending`: it took effect on the run but its statement could not be
   * stored yet; it is stored before anything it allows happens (or the run
   * fails closed). Sending it again would be refused: it is decided.
   */
  readonly auditStatement: 'recorded' | 'pending';
}

/** The body of `POST /runs/{runId}/requeue` (202). */
export interface RequeueRunAccepted {
  readonly runId: string;
  readonly continuationRunId: string;
}
