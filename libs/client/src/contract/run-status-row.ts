import type { Infer } from './schema';
import { s } from './schema';
import { FAILURE_CLASSES, RUN_MODES, RUN_STATUSES, TERMINATION_REASONS } from './vocabulary';

const int = () => s.integer();
const nullableInt = () => s.nullable(s.integer());
const nullableString = () => s.nullable(s.string());

/** One run, as the run-status read model shows it (`GET /runs/{runId}`, a row of `GET /runs`). Times are ms since the epoch. */
export const runStatusRowSchema = s
  .object({
    runId: s.string(),
    agent: s.string(),
    mode: s.enum(RUN_MODES),
    status: s.enum(RUN_STATUSES),
    reason: s.nullable(s.enum(TERMINATION_REASONS)).describe('The termination reason once settled; null before'),
    failureClass: s.nullable(s.enum(FAILURE_CLASSES)).describe('The class of the last recorded failure (a requeue or the final failure); null if none'),
    failureCode: nullableString(),
    failureMessage: nullableString(),
    deadLettered: s.nullable(s.boolean()).describe('For a settled run: whether it was dead-lettered; null before settlement'),
    attempts: int().describe("Claims so far (the current or last segment's attempt)"),
    requeues: int().describe('Requeues so far (failure retries and stale reclaims)'),
    leaseOwner: nullableString().describe('The lease owner while RUNNING; null otherwise'),
    leaseExpiresAt: nullableInt(),
    currentStepId: nullableString().describe('The step started and not yet completed, if any'),
    inFlightStepId: nullableString().describe('A write step started and not completed (the write fence); after a requeue or a settlement, the write that was in flight then'),
    cancelRequested: s.boolean(),
    cancelRequestedBy: nullableString().describe("Who asked for the cancel, as its principal's label: `key:<id>`, `development`, `bus:<id>`, or `unverified:<name>`"),
    startedBy: nullableString().describe(
      "Who started the run, as its principal's label: `key:<id>`, `development`, `bus:<id>` (`unverified:(not recorded)` for a run requested before starts were recorded); null only in a row an older version wrote, until the read models are rebuilt",
    ),
    requestedAt: int(),
    lastClaimedAt: nullableInt(),
    settledAt: nullableInt(),
    updatedAt: int().describe('The time of the latest event applied (from its payload)'),
    stepsTotal: int().describe('Distinct steps, whatever their kind'),
    llmSteps: int(),
    readOnlySteps: int(),
    idempotentWriteSteps: int(),
    nonIdempotentWriteSteps: int(),
    auditGaps: int().describe('Steps whose missing audit event was detected (AuditGapDetected)'),
    streamRevision: int().describe('The last revision of run-<runId> applied (diagnostics)'),
    waitingSince: nullableInt().describe('While WAITING_FOR_APPROVAL or WAITING_FOR_INPUT: when the run started to wait; null otherwise'),
    approvalRound: nullableInt().describe('While WAITING_FOR_APPROVAL: the model round whose calls wait for a decision; null otherwise'),
    inputStepId: nullableString().describe('While WAITING_FOR_INPUT: the step of the tool that asked for input; null otherwise'),
    finalAnswer: nullableString().describe("The model's final answer once COMPLETED; null otherwise"),
    continuationOf: nullableString().describe('For a continuation run: the dead-lettered run it continues; null otherwise'),
    continuedAs: nullableString().describe('Once an operator requeued this dead-lettered run: the continuation run; null otherwise'),
  })
  .named('RunStatusRow')
  .describe('One run, as the run-status read model shows it. Times are ms since the epoch, from the events.');

/** {@link runStatusRowSchema}'s type. */
export type RunStatusRow = Infer<typeof runStatusRowSchema>;
