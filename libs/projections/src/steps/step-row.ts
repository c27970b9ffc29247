import type { FailureClass, StepKind, ToolEffect } from '@agent-ledger/domain';
import type { TableSpec } from '../core/table-spec';
import { ColumnType } from '../core/table-spec';

/** Where a step's audit event stands. */
export const StepAuditState = {
  /** Its `AuditRecorded` is stored. */
  RECORDED: 'recorded',
  /** No audit event, and the audit-gap saga recorded the gap (`AuditGapDetected`). */
  MISSING: 'missing',
  /** No audit event (yet): the step is running, its audit is on its way, or it was fail-soft and lost. */
  PENDING: 'pending',
} as const;

/** One of the {@link StepAuditState} values. */
export type StepAuditState = (typeof StepAuditState)[keyof typeof StepAuditState];

/** How a tool call was approved, or that it was denied (the `approval` of a step). */
export const StepApproval = {
  /** The agent's configuration pre-approved the write (`ToolCallPreApproved`). */
  PRE_APPROVED: 'preApproved',
  /** A person approved it (`ApprovalGranted`). */
  GRANTED: 'granted',
  /** A person denied it (`ApprovalDenied`): it never executed. */
  DENIED: 'denied',
} as const;

/** One of the {@link StepApproval} values. */
export type StepApproval = (typeof StepApproval)[keyof typeof StepApproval];

/** How a completed step ended: `succeeded` / `failed` (a tool), `responded` (a model call), `denied` (a call a person denied, never executed). */
export type StepOutcome = 'succeeded' | 'failed' | 'responded' | 'denied';

/**
 * One step of a run (table `steps`). A row may be created by its audit event
 * before its run events are projected (a separate audit store): the run-side
 * fields are then null until they arrive, and the run side's values win.
 */
export type StepRow = {
  readonly stepId: string;
  readonly runId: string;
  readonly round: number | null;
  /** The tool call's position in the round; null for a model call. */
  readonly callIndex: number | null;
  readonly kind: StepKind | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly idempotencyKey: string | null;
  /** `started` until `ModelResponded` / `ToolExecuted`; null if only its audit event is known. */
  readonly status: 'started' | 'completed' | null;
  /**
   * `succeeded` / `failed` for a tool, `responded` for a model call, `denied`
   * for a call a person denied (it never started: `starts` 0); null until completed.
   */
  readonly outcome: StepOutcome | null;
  /** How many times it was started (more than once after a retry of an in-flight write). */
  readonly starts: number;
  /** The attempt (claim) of its last start. */
  readonly attempt: number | null;
  readonly firstStartedAt: number | null;
  readonly lastStartedAt: number | null;
  readonly completedAt: number | null;
  readonly errorClass: FailureClass | null;
  readonly errorMessage: string | null;
  /** Derived from the three facts below, whatever the order they arrived in. */
  readonly auditState: StepAuditState;
  readonly auditSequence: number | null;
  /** The outcome its audit record states; `denied` when the record is the person's denial (`ApprovalDecisionRecorded`). */
  readonly auditOutcome: StepOutcome | null;
  readonly auditRecordedAt: number | null;
  readonly gapDetectedAt: number | null;
  /**
   * For a tool call that needed approval: `preApproved` (by the agent's
   * configuration), `granted` (by a person) or `denied`; null for a call that
   * needed none, a model call, or one still waiting for the decision.
   */
  readonly approval: StepApproval | null;
  /**
   * For a step of an MCP tool whose binding's declared effect and server's
   * hints conflict (`ToolEffectConflictRecorded`): the binding's server;
   * null for any other step. `effect` is the one the step ran with.
   */
  readonly conflictServer: string | null;
  /** The effect the binding declared, for a step with an effect conflict; null otherwise. */
  readonly conflictDeclared: ToolEffect | null;
  /** The effect the server's hints give, for a step with an effect conflict; null otherwise. */
  readonly conflictHinted: ToolEffect | null;
  /** Whether the binding trusts the server's hints, for a step with an effect conflict; null otherwise. */
  readonly conflictTrusted: boolean | null;
};

/** The steps table. */
export const STEPS_TABLE: TableSpec<StepRow> = {
  name: 'steps',
  key: 'stepId',
  columns: {
    stepId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    round: ColumnType.INTEGER,
    callIndex: ColumnType.INTEGER,
    kind: ColumnType.TEXT,
    toolName: ColumnType.TEXT,
    effect: ColumnType.TEXT,
    idempotencyKey: ColumnType.TEXT,
    status: ColumnType.TEXT,
    outcome: ColumnType.TEXT,
    starts: ColumnType.INTEGER,
    attempt: ColumnType.INTEGER,
    firstStartedAt: ColumnType.INTEGER,
    lastStartedAt: ColumnType.INTEGER,
    completedAt: ColumnType.INTEGER,
    errorClass: ColumnType.TEXT,
    errorMessage: ColumnType.TEXT,
    auditState: ColumnType.TEXT,
    auditSequence: ColumnType.INTEGER,
    auditOutcome: ColumnType.TEXT,
    auditRecordedAt: ColumnType.INTEGER,
    gapDetectedAt: ColumnType.INTEGER,
    approval: ColumnType.TEXT,
    conflictServer: ColumnType.TEXT,
    conflictDeclared: ColumnType.TEXT,
    conflictHinted: ColumnType.TEXT,
    conflictTrusted: ColumnType.BOOLEAN,
  },
  indexes: [['runId', 'round', 'callIndex']],
};

/**
 * A tool call the steps model knows from its approval events before (or
 * instead of) its `StepStarted` (table `step_approvals`): what the call is,
 * and where its approval stands. It lets a denied call, which never starts,
 * become a step row, and a started call carry how it was approved.
 */
export type StepApprovalFactsRow = {
  readonly stepId: string;
  readonly runId: string;
  readonly round: number;
  readonly callIndex: number;
  readonly toolName: string;
  readonly effect: ToolEffect;
  /** `pending` until a decision; then one of the {@link StepApproval} values. */
  readonly approval: StepApproval | 'pending';
};

/** The approval facts of tool calls, by step. */
export const STEP_APPROVALS_TABLE: TableSpec<StepApprovalFactsRow> = {
  name: 'step_approvals',
  key: 'stepId',
  columns: {
    stepId: ColumnType.TEXT,
    runId: ColumnType.TEXT,
    round: ColumnType.INTEGER,
    callIndex: ColumnType.INTEGER,
    toolName: ColumnType.TEXT,
    effect: ColumnType.TEXT,
    approval: ColumnType.TEXT,
  },
};
