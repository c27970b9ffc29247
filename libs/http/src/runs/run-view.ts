import type { JsonValue, RunState, StepKind, ToolEffect } from '@agent-ledger/domain';
import type { RunSummary } from '@agent-ledger/runtime';
import { runSummaryOf } from '@agent-ledger/runtime';

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
  /**
   * For a tool call, once completed: `succeeded`, `failed`, or `denied` (a
   * person denied it: it never executed, `starts` 0), as the steps read
   * model's `outcome` says. Null otherwise.
   */
  readonly outcome: 'succeeded' | 'failed' | 'denied' | null;
}

/**
 * A run as its own stream tells it (the runtime's state, not the read model):
 * what `POST /runs` answers for an interactive run and `POST /runs/{id}/cancel`
 * answers, so that a client need not wait for the read model. The runtime's
 * {@link RunSummary}, with the input and the steps.
 */
export interface RunView extends RunSummary {
  readonly input: JsonValue;
  readonly steps: readonly RunStepView[];
}

/** Maps the runtime's state of a run to its JSON view. */
export function runViewOf(runId: string, state: RunState): RunView {
  const steps = [...state.steps.values()].sort((a, b) => a.round - b.round || (a.callIndex ?? -1) - (b.callIndex ?? -1));
  return {
    ...runSummaryOf(runId, state),
    input: state.input,
    steps: steps.map((s) => ({
      stepId: s.stepId,
      kind: s.kind,
      round: s.round,
      callIndex: s.callIndex,
      toolName: s.toolName,
      effect: s.effect,
      status: s.status,
      starts: s.starts,
      outcome: s.denied === true ? 'denied' : (s.outcome ?? null),
    })),
  };
}
