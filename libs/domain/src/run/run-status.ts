/** Where a run is in its life. Only `COMPLETED`, `FAILED` and `CANCELLED` are terminal. */
export const RunStatus = {
  /** Recorded and waiting for a segment to claim it (possibly not due yet, after a backoff). */
  QUEUED: 'QUEUED',
  /** Claimed: a segment holds its lease and executes it. */
  RUNNING: 'RUNNING',
  /** Paused until a person approves or denies a write. */
  WAITING_FOR_APPROVAL: 'WAITING_FOR_APPROVAL',
  /** Paused until a person submits input a tool asked for. */
  WAITING_FOR_INPUT: 'WAITING_FOR_INPUT',
  /** Ended with a final answer. */
  COMPLETED: 'COMPLETED',
  /** Ended without one; the termination reason says why. */
  FAILED: 'FAILED',
  /** Ended because someone cancelled it. */
  CANCELLED: 'CANCELLED',
} as const;

/** One of the seven {@link RunStatus} values. */
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** The statuses a run never leaves. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>([
  RunStatus.COMPLETED,
  RunStatus.FAILED,
  RunStatus.CANCELLED,
]);

/** Whether a run in this status is settled for good. */
export function isTerminalStatus(status: RunStatus): boolean {
  return TERMINAL_RUN_STATUSES.has(status);
}
