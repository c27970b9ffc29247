import type { JsonValue, RunMode, RunState, RunStatus, StepKind, TerminationReason, ToolEffect } from '@agent-ledger/domain';

/** A step of a {@link RunView}. */
export interface RunStepView {
  readonly stepId: string;
  readonly kind: StepKind;
  readonly round: number;
  readonly callIndex: number | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly status: 'started' | 'completed';
  readonly starts: number;
  /** For a tool call: `succeeded` or `failed` once completed. */
  readonly outcome: 'succeeded' | 'failed' | null;
}

/**
 * A run as its own stream tells it (the runtime's state, not the read model):
 * what `POST /runs` answers for an interactive run and `POST /runs/{id}/cancel`
 * answers, so that a client need not wait for the read model.
 */
export interface RunView {
  readonly runId: string;
  readonly agent: string | null;
  readonly mode: RunMode | null;
  readonly status: RunStatus | null;
  /** The termination reason once settled; null before. */
  readonly reason: TerminationReason | null;
  readonly deadLettered: boolean | null;
  readonly attempts: number;
  readonly requeues: number;
  readonly cancelRequested: boolean;
  readonly cancelRequestedBy: string | null;
  /** The write in flight (the write fence), if any. */
  readonly inFlightStepId: string | null;
  readonly input: JsonValue;
  /** The model's final answer, once given. */
  readonly answer: string | null;
  readonly steps: readonly RunStepView[];
}

/** Maps the runtime's state of a run to its JSON view. */
export function runViewOf(runId: string, state: RunState): RunView {
  const steps = [...state.steps.values()].sort((a, b) => a.round - b.round || (a.callIndex ?? -1) - (b.callIndex ?? -1));
  let answer: string | null = null;
  for (const step of steps) if (step.response?.type === 'final') answer = step.response.content;
  return {
    runId: state.runId ?? runId,
    agent: state.agent,
    mode: state.mode,
    status: state.status,
    reason: state.settlement?.reason ?? null,
    deadLettered: state.settlement?.deadLettered ?? null,
    attempts: state.attempt,
    requeues: state.requeues,
    cancelRequested: state.cancelRequested,
    cancelRequestedBy: state.cancelRequestedBy,
    inFlightStepId: state.inFlightWrite?.stepId ?? null,
    input: state.input,
    answer,
    steps: steps.map((s) => ({
      stepId: s.stepId,
      kind: s.kind,
      round: s.round,
      callIndex: s.callIndex,
      toolName: s.toolName,
      effect: s.effect,
      status: s.status,
      starts: s.starts,
      outcome: s.outcome ?? null,
    })),
  };
}
