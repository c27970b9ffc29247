import type { PendingApproval, PendingInput, RunMode, RunState, RunStatus, TerminationReason } from '@agent-ledger/domain';
import { principalLabel } from '@agent-ledger/domain';

/**
 * A run at a glance, from its state as its own stream tells it: what the
 * bus's results carry besides the full {@link RunState}.
 */
export interface RunSummary {
  readonly runId: string;
  readonly agent: string | null;
  readonly mode: RunMode | null;
  /** Who started it, as its principal's label (`bus:<id>`, `key:<id>`, `development`); null only for a run that was never requested. */
  readonly startedBy: string | null;
  /** Null only for a run that was never requested. */
  readonly status: RunStatus | null;
  /** The termination reason once settled; null before. */
  readonly reason: TerminationReason | null;
  readonly deadLettered: boolean | null;
  /** Claims so far. */
  readonly attempts: number;
  readonly requeues: number;
  readonly cancelRequested: boolean;
  /** Who asked for the cancel, as its principal's label (`bus:<id>`, `key:<id>`, `development`); the state holds the principal. */
  readonly cancelRequestedBy: string | null;
  /** The write in flight (the write fence), if any. */
  readonly inFlightStepId: string | null;
  /** The model's final answer, once given. */
  readonly answer: string | null;
  /** What the run waits to have approved, while `WAITING_FOR_APPROVAL`. */
  readonly pendingApproval: PendingApproval | null;
  /** The input a tool asked for, while `WAITING_FOR_INPUT`. */
  readonly pendingInput: PendingInput | null;
}

/** Summarises a run's state. */
export function runSummaryOf(runId: string, state: RunState): RunSummary {
  let answer: string | null = null;
  let round = -1;
  for (const step of state.steps.values()) {
    if (step.response?.type === 'final' && step.round >= round) {
      answer = step.response.content;
      round = step.round;
    }
  }
  return {
    runId: state.runId ?? runId,
    agent: state.agent,
    mode: state.mode,
    startedBy: state.requestedBy === null ? null : principalLabel(state.requestedBy),
    status: state.status,
    reason: state.settlement?.reason ?? null,
    deadLettered: state.settlement?.deadLettered ?? null,
    attempts: state.attempt,
    requeues: state.requeues,
    cancelRequested: state.cancelRequested,
    cancelRequestedBy: state.cancelRequestedBy === null ? null : principalLabel(state.cancelRequestedBy),
    inFlightStepId: state.inFlightWrite?.stepId ?? null,
    answer,
    pendingApproval: state.pendingApproval,
    pendingInput: state.pendingInput,
  };
}
