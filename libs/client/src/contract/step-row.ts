import type { Infer } from './schema';
import { s } from './schema';
import { FAILURE_CLASSES, STEP_APPROVALS, STEP_AUDIT_STATES, STEP_KINDS, TOOL_EFFECTS } from './vocabulary';

/** How a step ended: `succeeded` / `failed` for a tool, `responded` for a model call, `denied` for a call a person denied. */
export const STEP_OUTCOMES = ['succeeded', 'failed', 'responded', 'denied'] as const;

/** One step of a run, as the steps read model shows it. Times are ms since the epoch. */
export const stepRowSchema = s
  .object({
    stepId: s.string(),
    runId: s.string(),
    round: s.nullable(s.integer()),
    callIndex: s.nullable(s.integer()).describe("The tool call's position in the round; null for a model call"),
    kind: s.nullable(s.enum(STEP_KINDS)),
    toolName: s.nullable(s.string()),
    effect: s.nullable(s.enum(TOOL_EFFECTS)),
    idempotencyKey: s.nullable(s.string()),
    status: s.nullable(s.enum(['started', 'completed'])).describe('`started` until ModelResponded / ToolExecuted; null if only its audit event is known'),
    outcome: s.nullable(s.enum(STEP_OUTCOMES)).describe('null until completed'),
    starts: s.integer().describe('How many times it was started (more than once after a retry of an in-flight write)'),
    attempt: s.nullable(s.integer()).describe('The attempt (claim) of its last start'),
    firstStartedAt: s.nullable(s.integer()),
    lastStartedAt: s.nullable(s.integer()),
    completedAt: s.nullable(s.integer()),
    errorClass: s.nullable(s.enum(FAILURE_CLASSES)),
    errorMessage: s.nullable(s.string()),
    auditState: s.enum(STEP_AUDIT_STATES).describe('Where its audit event stands'),
    auditSequence: s.nullable(s.integer()),
    auditOutcome: s.nullable(s.enum(STEP_OUTCOMES)).describe("The outcome its audit record states; `denied` when the record is the person's denial"),
    auditRecordedAt: s.nullable(s.integer()),
    gapDetectedAt: s.nullable(s.integer()),
    approval: s.nullable(s.enum(STEP_APPROVALS)).describe('For a tool call that needed approval: `preApproved`, `granted` or `denied`; null otherwise'),
    conflictServer: s
      .nullable(s.string())
      .describe("For a step of an MCP tool whose binding's declared effect and server's hints conflict (ToolEffectConflictRecorded): the binding's server; null for any other step. `effect` is the one it ran with"),
    conflictDeclared: s.nullable(s.enum(TOOL_EFFECTS)).describe('The effect the binding declared, for a step with an effect conflict; null otherwise'),
    conflictHinted: s.nullable(s.enum(TOOL_EFFECTS)).describe("The effect the server's hints give, for a step with an effect conflict; null otherwise"),
    conflictTrusted: s.nullable(s.boolean()).describe("Whether the binding trusts the server's hints, for a step with an effect conflict; null otherwise"),
  })
  .named('StepRow')
  .describe('One step of a run, as the steps read model shows it. A row created by its audit event before its run events were projected has null run-side fields until they arrive.');

/** {@link stepRowSchema}'s type. */
export type StepRow = Infer<typeof stepRowSchema>;
