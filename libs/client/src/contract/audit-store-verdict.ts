import type { Infer } from './schema';
import { s } from './schema';
import { TERMINATION_REASONS, TOOL_EFFECTS } from './vocabulary';

/** A break in one run's audit chain. */
export const runChainBreakSchema = s
  .object({
    runId: s.string(),
    index: s.integer().describe("The record's position in the run's audit stream (0-based)"),
    stepId: s.nullable(s.string()),
    problem: s
      .enum(['hashMismatch', 'brokenLink', 'sequenceGap', 'duplicateStep'])
      .describe('`hashMismatch`: the record was edited; `brokenLink`: one was removed, inserted or reordered; `sequenceGap`; `duplicateStep`'),
  })
  .named('RunChainBreak')
  .describe("A break in one run's audit chain");

/** {@link runChainBreakSchema}'s type. */
export type RunChainBreak = Infer<typeof runChainBreakSchema>;

const storeWriteShape = {
  runId: s.string(),
  stepId: s.string(),
  toolName: s.string(),
  effect: s.enum(TOOL_EFFECTS),
  executedAttempt: s.integer().describe('The attempt (segment) that executed it (ToolExecuted.attempt)'),
  executedAt: s.integer().describe('When its ToolExecuted was recorded (ms since the epoch)'),
  auditAttempt: s.nullable(s.integer()).describe('The attempt that recorded its AuditRecorded; null when the audit store holds none'),
};

/** A write read from the run store, with its audit as the audit store holds it. */
export const storeWriteSchema = s
  .object(storeWriteShape)
  .named('StoreWrite')
  .describe('A write (ToolExecuted of either write effect) read from the run store, with its audit as the audit store holds it');

/** {@link storeWriteSchema}'s type. */
export type StoreWrite = Infer<typeof storeWriteSchema>;

/** An executed write of a settled run whose AuditRecorded is not in the audit store. */
export const storeWriteWithoutAuditSchema = s
  .object({
    ...storeWriteShape,
    runEnd: s.enum(TERMINATION_REASONS).describe('How its run ended'),
    allowedBy: s
      .nullable(s.enum(['failedClosed', 'cancelledInFlight']))
      .describe('What allows it under the contract: failedClosed, cancelledInFlight; null: nothing does, its audit is missing'),
  })
  .named('StoreWriteWithoutAudit')
  .describe('An executed write of a settled run whose AuditRecorded is not in the audit store');

/** {@link storeWriteWithoutAuditSchema}'s type. */
export type StoreWriteWithoutAudit = Infer<typeof storeWriteWithoutAuditSchema>;

/** Counts of the store verdict. */
export const auditVerdictTotalsSchema = s
  .object({
    writesExecuted: s.integer(),
    writesAudited: s.integer(),
    auditedLate: s.integer(),
    writesWithoutAudit: s.integer(),
    writesWithoutAuditNotAllowed: s.integer().describe('Writes without audit that nothing in the contract allows: a finding'),
    writesAwaitingAudit: s.integer(),
    runsWithoutAuditStream: s.integer(),
    auditedRunsUnknownToRunStore: s.integer(),
  })
  .named('AuditVerdictTotals')
  .describe('Counts of the store verdict (always complete, whatever the limit)');

/** {@link auditVerdictTotalsSchema}'s type. */
export type AuditVerdictTotals = Infer<typeof auditVerdictTotalsSchema>;

/** How a store verdict was reached. */
export const auditVerificationInfoSchema = s
  .object({
    mode: s.enum(['full', 'incremental']),
    fullBecause: s.nullable(s.string()).describe('Why a full pass ran (null for an incremental one)'),
    eventsRead: s.integer(),
    headsChecked: s.integer().describe('Audit heads re-read to check the checkpoint: a bounded number rotating over every head, and those of the runs the new events touch (0 for a full pass)'),
    headRounds: s.integer().describe('Rounds of the rotating head check completed since the last full pass (each re-read every audit head once)'),
    checkpoint: s.nullable(s.enum(['memory', 'file'])).describe("Where an incremental review's checkpoint was kept: memory, or the checkpoint file (the first review of a process); null for a full pass"),
    durationMs: s.integer(),
  })
  .named('AuditVerificationInfo')
  .describe('How a store verdict was reached');

/** {@link auditVerificationInfoSchema}'s type. */
export type AuditVerificationInfo = Infer<typeof auditVerificationInfoSchema>;

/** `GET /audit/chains`, and `verdict` of `GET /audit/review`: the audit's integrity verdict, read from the stores. */
export const auditStoreVerdictSchema = s
  .object({
    runs: s.integer().describe('Runs with at least one audit record'),
    records: s.integer().describe('Audit records checked'),
    brokenRuns: s.array(s.string()).describe('Runs whose chain has at least one break'),
    breaks: s.array(runChainBreakSchema),
    findings: s.boolean().describe("Whether the audit's integrity is in doubt"),
    problems: s.array(s.string()).describe('One sentence per kind of finding (empty when there is none)'),
    totals: auditVerdictTotalsSchema,
    writesWithoutAudit: s.array(storeWriteWithoutAuditSchema),
    auditedLate: s.array(storeWriteSchema),
    writesAwaitingAudit: s.array(storeWriteSchema),
    auditedRunsUnknownToRunStore: s.array(s.string()),
    verification: auditVerificationInfoSchema,
  })
  .named('AuditStoreVerdict')
  .describe("The audit's integrity verdict, read from the stores: every audit chain verified, every executed write matched to its AuditRecorded");

/** {@link auditStoreVerdictSchema}'s type. */
export type AuditStoreVerdict = Infer<typeof auditStoreVerdictSchema>;
