/**
 * The API's closed sets of values (statuses, reasons, effects...), as the
 * service defines them. A test of the repository keeps each equal to the
 * service's own list.
 */

/** A run's status. Terminal: `COMPLETED`, `FAILED`, `CANCELLED`. */
export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
/** One of {@link RUN_STATUSES}. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The statuses a run never leaves. */
export const TERMINAL_RUN_STATUSES = ['COMPLETED', 'FAILED', 'CANCELLED'] as const satisfies readonly RunStatus[];
/** The statuses in which a run waits for a person (a decision, or an input). */
export const WAITING_RUN_STATUSES = ['WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT'] as const satisfies readonly RunStatus[];

/**
 * The types of the events that settle a run (`RunCompleted`, `RunFailed`,
 * `RunCancelled`): a run has at most one of them, and its status never changes
 * after it. Only `AuditGapDetected` and `RunRequeuedByOperator` may still be
 * appended to the run's stream after it.
 */
export const TERMINAL_RUN_EVENT_TYPES = ['RunCompleted', 'RunFailed', 'RunCancelled'] as const;
/** One of {@link TERMINAL_RUN_EVENT_TYPES}. */
export type TerminalRunEventType = (typeof TERMINAL_RUN_EVENT_TYPES)[number];

/** Whether `event` (a `StreamedEvent`, or anything with a `type`) settles its run: one of {@link TERMINAL_RUN_EVENT_TYPES}. */
export function isTerminalRunEvent<E extends { readonly type: string }>(event: E): event is E & { readonly type: TerminalRunEventType } {
  return (TERMINAL_RUN_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** Why a settled run ended. */
export const TERMINATION_REASONS = [
  'COMPLETED',
  'MAX_ITERATIONS',
  'BUDGET_EXHAUSTED',
  'POLICY_DENIED',
  'APPROVAL_DENIED',
  'PROVIDER_FAILED',
  'CANCELLED',
  'RETRIES_EXHAUSTED',
  'NOT_RETRYABLE',
  'CONTEXT_TRUNCATED',
  'AUDIT_PERSISTENCE_FAILED',
  'WRITE_INTERRUPTED',
  'AUDIT_MISSING',
] as const;
/** One of {@link TERMINATION_REASONS}. */
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

/** The class of a failure (a model or tool call's). */
export const FAILURE_CLASSES = ['connection', 'rateLimit', 'auth', 'configuration', 'clientError', 'serverError', 'circuitOpen', 'unknown'] as const;
/** One of {@link FAILURE_CLASSES}. */
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** How a run is executed: during the request (`interactive`), or by a worker (`queued`). */
export const RUN_MODES = ['interactive', 'queued'] as const;
/** One of {@link RUN_MODES}. */
export type RunMode = (typeof RUN_MODES)[number];

/** A step's kind: a model call or a tool call. */
export const STEP_KINDS = ['llm', 'tool'] as const;
/** One of {@link STEP_KINDS}. */
export type StepKind = (typeof STEP_KINDS)[number];

/** The side effect a tool declares in its code. */
export const TOOL_EFFECTS = ['READ_ONLY', 'IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE'] as const;
/** One of {@link TOOL_EFFECTS}. */
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** Where an MCP tool's effect came from: its binding's declaration, its server's hints, or the safe default (`NON_IDEMPOTENT_WRITE`). */
export const EXTERNAL_TOOL_EFFECT_SOURCES = ['declared', 'hint', 'default'] as const;
/** One of {@link EXTERNAL_TOOL_EFFECT_SOURCES}. */
export type ExternalToolEffectSource = (typeof EXTERNAL_TOOL_EFFECT_SOURCES)[number];

/** What a denial does: the model is told (`tellModel`), or the run ends `APPROVAL_DENIED` (`endRun`). */
export const ON_DENIAL_VALUES = ['tellModel', 'endRun'] as const;
/** One of {@link ON_DENIAL_VALUES}. */
export type OnDenial = (typeof ON_DENIAL_VALUES)[number];

/** A person's decision on the calls a run waits to have approved. */
export const APPROVAL_DECISIONS = ['approve', 'deny'] as const;
/** One of {@link APPROVAL_DECISIONS}. */
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** The state of a request for approval. */
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'cancelled'] as const;
/** One of {@link APPROVAL_STATES}. */
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** Where a step's audit event stands (steps read model). */
export const STEP_AUDIT_STATES = ['recorded', 'missing', 'pending'] as const;
/** One of {@link STEP_AUDIT_STATES}. */
export type StepAuditState = (typeof STEP_AUDIT_STATES)[number];

/** How a tool call that needed approval was approved (or not). */
export const STEP_APPROVALS = ['preApproved', 'granted', 'denied'] as const;
/** One of {@link STEP_APPROVALS}. */
export type StepApproval = (typeof STEP_APPROVALS)[number];

/** The read models. */
export const PROJECTION_NAMES = ['runStatus', 'steps', 'auditReview', 'approvals'] as const;
/** One of {@link PROJECTION_NAMES}. */
export type ProjectionName = (typeof PROJECTION_NAMES)[number];

/** The phase of a rebuild's progress record. */
export const REBUILD_PHASES = ['started', 'replaying', 'catchingUp', 'swapped'] as const;
/** One of {@link REBUILD_PHASES}. */
export type RebuildPhase = (typeof REBUILD_PHASES)[number];

/** The state of the rebuild of a service process. */
export const REBUILD_STATES = ['idle', 'running', 'succeeded', 'failed'] as const;
/** One of {@link REBUILD_STATES}. */
export type RebuildStateName = (typeof REBUILD_STATES)[number];

/** The scopes an API key may hold. */
export const API_SCOPES = ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read'] as const;
/** One of {@link API_SCOPES}. */
export type ApiScope = (typeof API_SCOPES)[number];

/** How the service authenticates requests. */
export const AUTH_MODES = ['api-keys', 'disabled-on-loopback'] as const;
/** One of {@link AUTH_MODES}. */
export type AuthMode = (typeof AUTH_MODES)[number];
