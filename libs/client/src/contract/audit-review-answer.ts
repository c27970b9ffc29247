import type { Infer } from './schema';
import { s } from './schema';
import { auditStoreVerdictSchema } from './audit-store-verdict';
import { FAILURE_CLASSES, RUN_STATUSES, TERMINATION_REASONS, TOOL_EFFECTS } from './vocabulary';

/** Counts of the audit review. */
export const auditReviewTotalsSchema = s
  .object({
    writes: s.integer(),
    writesExecuted: s.integer(),
    writesAudited: s.integer(),
    auditedLate: s.integer(),
    writesWithoutAudit: s.integer(),
    gapsDetected: s.integer(),
    runsFailedClosed: s.integer(),
    runsFailedAuditMissing: s.integer(),
    runsWriteInterrupted: s.integer(),
    interruptedWrites: s.integer(),
    approvalsGranted: s.integer(),
    approvalsDenied: s.integer(),
    runsStarted: s.integer().describe('Runs whose start is known (their request, or its statement in the audit chain)'),
    runStartsStated: s.integer().describe('Of those, the runs whose audit chain states who started them'),
  })
  .named('AuditReviewTotals')
  .describe('Counts of the audit review (always complete, whatever the limit)');

/** {@link auditReviewTotalsSchema}'s type. */
export type AuditReviewTotals = Infer<typeof auditReviewTotalsSchema>;

/** One write step and its audit state. Times are ms since the epoch. */
export const auditWriteViewSchema = s
  .object({
    stepId: s.string(),
    runId: s.string(),
    toolName: s.nullable(s.string()),
    effect: s.nullable(s.enum(TOOL_EFFECTS)),
    idempotencyKey: s.nullable(s.string()),
    starts: s.integer(),
    firstStartedAt: s.nullable(s.integer()),
    executedAt: s.nullable(s.integer()),
    outcome: s.nullable(s.enum(['succeeded', 'failed'])),
    executedAttempt: s.nullable(s.integer()),
    audited: s.boolean(),
    auditAttempt: s.nullable(s.integer()),
    auditSequence: s.nullable(s.integer()),
    auditRecordedAt: s.nullable(s.integer()),
    gapDetectedAt: s.nullable(s.integer()),
    gapDetectedBy: s.nullable(s.string()),
    gapRunAlreadySettled: s.nullable(s.boolean()),
    failedRunReason: s.nullable(s.enum(TERMINATION_REASONS)).describe('Whether its run failed because of it, and how; null otherwise'),
    runStartedBy: s.nullable(s.string()).describe("Who started the write's run, as its principal's label; null while its start is not projected yet"),
  })
  .named('AuditWriteView')
  .describe('One write step (IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE) and its audit state');

/** {@link auditWriteViewSchema}'s type. */
export type AuditWriteView = Infer<typeof auditWriteViewSchema>;

/** How a run ended, for the audit review. */
export const auditRunRowSchema = s
  .object({
    runId: s.string(),
    status: s.enum(RUN_STATUSES),
    reason: s.enum(TERMINATION_REASONS),
    failureClass: s.nullable(s.enum(FAILURE_CLASSES)),
    failureMessage: s.nullable(s.string()),
    deadLettered: s.boolean(),
    settledAt: s.integer().describe('ms since the epoch'),
    inFlightStepId: s.nullable(s.string()),
  })
  .named('AuditRunRow')
  .describe('How a run ended, for the audit review');

/** {@link auditRunRowSchema}'s type. */
export type AuditRunRow = Infer<typeof auditRunRowSchema>;

/** A write in flight when its run was requeued, failed or cancelled. */
export const auditInterruptionRowSchema = s
  .object({
    interruptionId: s.string().describe('`<runId>@<revision of the run event>`'),
    runId: s.string(),
    stepId: s.string(),
    toolName: s.string(),
    effect: s.enum(TOOL_EFFECTS),
    idempotencyKey: s.string(),
    attempt: s.integer(),
    startedAt: s.integer(),
    eventType: s.enum(['RunRequeued', 'RunFailed', 'RunCancelled']),
    cause: s.nullable(s.enum(['failure', 'leaseExpired'])),
    reason: s.nullable(s.enum(TERMINATION_REASONS)),
    at: s.integer(),
  })
  .named('AuditInterruptionRow')
  .describe('A write that was in flight when its run was requeued, failed or cancelled; its outcome is unknown');

/** {@link auditInterruptionRowSchema}'s type. */
export type AuditInterruptionRow = Infer<typeof auditInterruptionRowSchema>;

/** `GET /audit/review`: the audit-review read model's report, with the integrity verdict read from the stores. */
export const auditReviewAnswerSchema = s
  .object({
    totals: auditReviewTotalsSchema,
    writes: s.array(auditWriteViewSchema).describe('Every write, by run then step'),
    writesWithoutAudit: s.array(auditWriteViewSchema),
    gaps: s.array(auditWriteViewSchema),
    auditedLate: s.array(auditWriteViewSchema),
    runsFailedClosed: s.array(auditRunRowSchema),
    runsFailedAuditMissing: s.array(auditRunRowSchema),
    interruptedWrites: s.array(auditInterruptionRowSchema),
    verdict: auditStoreVerdictSchema,
    findings: s.boolean().describe("The verdict's findings flag: whether the audit's integrity is in doubt"),
  })
  .named('AuditReviewAnswer')
  .describe("The audit-review read model's report, with the integrity verdict read from the stores (`verdict`, `findings`)");

/** {@link auditReviewAnswerSchema}'s type. */
export type AuditReviewAnswer = Infer<typeof auditReviewAnswerSchema>;
