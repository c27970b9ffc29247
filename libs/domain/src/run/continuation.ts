import type { Principal } from '../principal/principal';
import type { CarriedStep, InFlightWriteResolution, RunContinuation } from './run-events';
import type { RequestRun } from './run-commands';
import type { RunState, StepRecord } from './run-state';

/**
 * The request of the run that continues a requeued, dead-lettered run: the
 * same agent, input and limits, queued, requested by the operator who
 * requeued it (`requestedBy`), carrying every completed step (never
 * executed again) and, when the operator stated that the write in flight was
 * executed, that write as done. Its idempotency keys are named after the first
 * run of the chain, so a write retried by the continuation gets the same key.
 */
export function continuationOf(state: RunState, continuationRunId: string, requestedBy: Principal, resolution?: InFlightWriteResolution): RequestRun['data'] {
  if (state.runId === null || state.agent === null) throw new Error('A run that was never requested cannot be continued');
  const carriedSteps: CarriedStep[] = [...state.steps.values()].filter((step) => step.status === 'completed').map(carried);
  const inFlight = state.inFlightWrite;
  if (inFlight !== null && resolution?.outcome === 'executed') {
    const step = state.steps.get(inFlight.stepId);
    if (step !== undefined) {
      carriedSteps.push({
        ...carried(step),
        outcome: 'succeeded',
        result: { resolvedByOperator: true, note: resolution.note },
        error: null,
        resolvedByOperator: true,
      });
    }
  }
  const continuation: RunContinuation = { of: state.runId, idempotencyRoot: state.idempotencyRoot ?? state.runId, carriedSteps };
  return { runId: continuationRunId, agent: state.agent, input: state.input, mode: 'queued', requestedBy, maxIterations: state.maxIterations, continuation };
}

function carried(step: StepRecord): CarriedStep {
  return {
    round: step.round,
    callIndex: step.callIndex,
    toolName: step.toolName,
    effect: step.effect,
    response: step.response ?? null,
    outcome: step.outcome ?? null,
    result: step.result ?? null,
    error: step.error ?? null,
    resolvedByOperator: false,
  };
}
