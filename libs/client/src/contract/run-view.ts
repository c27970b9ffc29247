import type { Infer } from './schema';
import { s } from './schema';
import { pendingApprovalSchema } from './pending-approval';
import { pendingInputSchema } from './pending-input';
import { RUN_MODES, RUN_STATUSES, STEP_KINDS, TERMINATION_REASONS, TOOL_EFFECTS } from './vocabulary';

/** A step of a {@link runViewSchema}: as the run's own stream tells it. */
export const runStepViewSchema = s
  .object({
    stepId: s.string(),
    kind: s.enum(STEP_KINDS),
    round: s.integer(),
    callIndex: s.nullable(s.integer()).describe("The tool call's position in the round; null for a model call"),
    toolName: s.nullable(s.string()),
    effect: s.nullable(s.enum(TOOL_EFFECTS)),
    status: s.enum(['started', 'completed']),
    starts: s.integer(),
    outcome: s.nullable(s.enum(['succeeded', 'failed', 'denied'])).describe('For a tool call, once completed: `succeeded`, `failed`, or `denied` (it never executed, `starts` 0); null otherwise'),
  })
  .named('RunStepView')
  .describe("A step of a run, as the run's own stream tells it");

/** {@link runStepViewSchema}'s type. */
export type RunStepView = Infer<typeof runStepViewSchema>;

/**
 * A run as its own stream tells it (the runtime's state, not the read model):
 * the answer of an interactive start, a cancel, an approval decision and an input.
 */
export const runViewSchema = s
  .object({
    runId: s.string(),
    agent: s.nullable(s.string()),
    mode: s.nullable(s.enum(RUN_MODES)),
    startedBy: s.nullable(s.string()).describe("Who started the run, as its principal's label: `key:<id>`, `development`, `bus:<id>`; null only for a run that was never requested"),
    status: s.nullable(s.enum(RUN_STATUSES)).describe('Null only for a run that was never requested'),
    reason: s.nullable(s.enum(TERMINATION_REASONS)).describe('The termination reason once settled; null before'),
    deadLettered: s.nullable(s.boolean()).describe('For a settled run: whether it was dead-lettered; null before settlement'),
    attempts: s.integer().describe('Claims so far'),
    requeues: s.integer(),
    cancelRequested: s.boolean(),
    cancelRequestedBy: s.nullable(s.string()).describe("Who asked for the cancel, as its principal's label"),
    inFlightStepId: s.nullable(s.string()).describe('The write in flight (the write fence), if any'),
    answer: s.nullable(s.string()).describe("The model's final answer, once given"),
    pendingApproval: s.nullable(pendingApprovalSchema).describe('What the run waits to have approved, while WAITING_FOR_APPROVAL; null otherwise'),
    pendingInput: s.nullable(pendingInputSchema).describe('The input a tool asked for, while WAITING_FOR_INPUT; null otherwise'),
    input: s.json().describe('The task, as given to POST /runs: any JSON value'),
    steps: s.array(runStepViewSchema).describe('By round, then call'),
  })
  .named('RunView')
  .describe("A run as its own stream tells it (the runtime's state, not the read model)");

/** {@link runViewSchema}'s type. */
export type RunView = Infer<typeof runViewSchema>;
