import { InvalidFieldError } from '../errors/invalid-field.error';

/** Whether a step is a model call or a tool call. */
export const StepKind = {
  LLM: 'llm',
  TOOL: 'tool',
} as const;

/** One of the {@link StepKind} values. */
export type StepKind = (typeof StepKind)[keyof typeof StepKind];

/** Where a step stands in its run: the round, and for a tool call its position in the round. */
export interface StepCoordinates {
  readonly runId: string;
  /** The model round, from 0. */
  readonly round: number;
  /** The tool call's position among the round's tool calls, from 0; absent for the model call. */
  readonly callIndex?: number;
}

/**
 * The rule of a run id: 1 to 128 letters, digits, `.`, `_`, `:` or `-`,
 * starting with a letter or digit (it is part of stream names and step ids).
 * The one definition: the deciders, the bus's messages, the HTTP API's
 * bodies, queries and paths and its OpenAPI document all check this pattern.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** What a value breaking {@link RUN_ID_PATTERN} must be, as the errors say it (after the field's name). */
export const RUN_ID_PROBLEM = 'must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

/**
 * Checks a run id against {@link RUN_ID_PATTERN}.
 *
 * @throws {@link InvalidFieldError} naming `field`.
 */
export function assertRunId(runId: unknown, field = 'runId'): asserts runId is string {
  if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) {
    throw new InvalidFieldError(field, RUN_ID_PROBLEM);
  }
}

/**
 * The deterministic id of a step: a retried run that reaches the same step
 * names it the same way. `<runId>/r<round>/llm` for the model call of a round,
 * `<runId>/r<round>/t<callIndex>` for a tool call.
 */
export function stepIdFor(step: StepCoordinates): string {
  const { runId, round, callIndex } = step;
  assertRunId(runId);
  assertStepIndex(round, 'round');
  if (callIndex === undefined) {
    return `${runId}/r${round}/llm`;
  }
  assertStepIndex(callIndex, 'callIndex');
  return `${runId}/r${round}/t${callIndex}`;
}

/**
 * The idempotency key a tool receives for a step. It is the same on every
 * retry of the step, so a write tool can deduplicate with its target.
 */
export function idempotencyKeyFor(stepId: string): string {
  return `agent-ledger:${stepId}`;
}

/**
 * Checks a round or call index.
 *
 * @throws {@link InvalidFieldError} naming `field` unless it is a non-negative integer.
 */
export function assertStepIndex(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidFieldError(field, 'must be a non-negative integer');
  }
}
