import type { DomainEvent } from '../decider';
import type { FailureClass } from '../failure/failure-class';
import type { JsonObject, JsonValue } from '../json';
import type { Principal } from '../principal/principal';
import type { ToolEffect } from '../tool-effect/tool-effect';
import type { RunMode } from './run-mode';
import type { StepKind } from './step-id';
import type { TerminationReason } from './termination-reason';

/*
 * The events of a run's stream (`run-<runId>`). Their `type` strings and
 * payloads are a public contract: people subscribe to them. A change of a
 * payload's shape raises its schema version (RUN_EVENT_SCHEMA_VERSIONS) and is
 * documented in docs/events.md. Every time is in milliseconds since the Unix
 * epoch (UTC).
 */

/** A failure as recorded: its class (from the one classifier), a message and an optional code. */
export interface FailureInfo {
  readonly failureClass: FailureClass;
  readonly message: string;
  readonly code?: string;
}

/** A write whose execution started and whose `ToolExecuted` was not recorded yet. */
export interface InFlightWrite {
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly idempotencyKey: string;
  readonly startedAt: number;
  readonly attempt: number;
}

/** One tool call a model asked for. */
export interface ToolCallRequest {
  readonly toolName: string;
  readonly arguments: JsonObject;
}

/** What a model round returned: a final answer, or tool calls to execute. */
export type ModelResponse =
  | { readonly type: 'final'; readonly content: string }
  | { readonly type: 'toolCalls'; readonly calls: readonly ToolCallRequest[] };

/** A step completed by an earlier run, carried into its continuation so that it is never executed again. */
export interface CarriedStep {
  readonly round: number;
  /** Null for a model call. */
  readonly callIndex: number | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  /** The model's answer, for a model call. */
  readonly response: ModelResponse | null;
  readonly outcome: 'succeeded' | 'failed' | null;
  readonly result: JsonValue;
  readonly error: FailureInfo | null;
  /** True for an in-flight write that an operator declared executed when requeueing. */
  readonly resolvedByOperator: boolean;
}

/** What a continuation run takes over from the dead-lettered run it continues. */
export interface RunContinuation {
  /** The run it continues. */
  readonly of: string;
  /** The run whose step ids name the idempotency keys (the first of the chain), so a write retried here gets the same key. */
  readonly idempotencyRoot: string;
  readonly carriedSteps: readonly CarriedStep[];
}

/** A run was requested and stored; it waits in status `QUEUED` for a segment to claim it. */
export type RunRequested = DomainEvent<
  'RunRequested',
  {
    readonly runId: string;
    readonly agent: string;
    readonly input: JsonValue;
    readonly mode: RunMode;
    readonly maxIterations: number;
    readonly requestedAt: number;
    /**
     * Who started it: the authenticated caller (schema version 2; a version 1
     * event, which recorded nobody, reads as `unverified`). For a continuation,
     * the operator who requeued the run it continues.
     */
    readonly requestedBy: Principal;
    /** Set when an operator requeued a dead-lettered run: this run continues it. Absent otherwise. */
    readonly continuation?: RunContinuation;
  }
>;

/**
 * An operator requeued this dead-lettered run: it stays `FAILED` (a run is
 * settled once) and `continuationRunId` continues it, reusing its completed
 * steps and its idempotency keys. `resolution` is the operator's statement
 * about a write that was in flight (also recorded in the audit trail).
 */
export type RunRequeuedByOperator = DomainEvent<
  'RunRequeuedByOperator',
  {
    readonly runId: string;
    readonly continuationRunId: string;
    /** Who requeued it: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly requestedBy: Principal;
    readonly reason: string | null;
    readonly inFlightWrite: InFlightWrite | null;
    readonly resolution: InFlightWriteResolution | null;
    readonly requeuedAt: number;
  }
>;

/** An operator's statement of what became of a write that was in flight. */
export interface InFlightWriteResolution {
  /** `executed`: the write happened (its step is carried as done); `notExecuted`: it did not (the continuation executes it). */
  readonly outcome: 'executed' | 'notExecuted';
  /** How the operator knows. */
  readonly note: string;
}

/** A segment claimed the run and holds its lease until `leaseExpiresAt`; `attempt` counts claims from 1. */
export type RunClaimed = DomainEvent<
  'RunClaimed',
  {
    readonly runId: string;
    readonly owner: string;
    readonly attempt: number;
    readonly leaseExpiresAt: number;
    readonly claimedAt: number;
  }
>;

/** The lease owner extended its lease at a step boundary. */
export type LeaseRenewed = DomainEvent<
  'LeaseRenewed',
  {
    readonly runId: string;
    readonly owner: string;
    readonly attempt: number;
    readonly leaseExpiresAt: number;
    readonly renewedAt: number;
  }
>;

/**
 * A step began. It renews the lease in the same guarded write; for a write
 * tool it is also the write fence: the in-flight record, with a lease long
 * enough to cover the tool's operation deadline.
 */
export type StepStarted = DomainEvent<
  'StepStarted',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly kind: StepKind;
    readonly round: number;
    /** The tool call's position in the round; null for a model call. */
    readonly callIndex: number | null;
    readonly toolName: string | null;
    readonly effect: ToolEffect | null;
    /** The key the tool receives; the same on every retry of the step. Null for a model call. */
    readonly idempotencyKey: string | null;
    /** The tool's operation deadline, for a write; null otherwise. */
    readonly operationDeadlineSeconds: number | null;
    readonly owner: string;
    readonly attempt: number;
    readonly leaseExpiresAt: number;
    readonly startedAt: number;
  }
>;

/** The model answered a round's call: a final answer or tool calls. Completes the `llm` step. */
export type ModelResponded = DomainEvent<
  'ModelResponded',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly round: number;
    readonly response: ModelResponse;
    readonly respondedAt: number;
  }
>;

/** A tool call returned (or threw). Completes the `tool` step and clears its in-flight write. */
export type ToolExecuted = DomainEvent<
  'ToolExecuted',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly toolName: string;
    readonly effect: ToolEffect;
    readonly idempotencyKey: string;
    readonly outcome: 'succeeded' | 'failed';
    /** The tool's result (what the model is shown); null when it failed. */
    readonly result: JsonValue;
    readonly error: FailureInfo | null;
    readonly attempt: number;
    readonly executedAt: number;
  }
>;

/** The run went back to the queue, due at `notBefore`; `requeues` counts requeues so far, from 1. */
export type RunRequeued = DomainEvent<
  'RunRequeued',
  {
    readonly runId: string;
    readonly cause: 'failure' | 'leaseExpired';
    readonly requeues: number;
    readonly notBefore: number;
    readonly failure: FailureInfo;
    readonly previousOwner: string;
    /** An idempotent write that was in flight; its retry gets the same idempotency key. */
    readonly inFlightWrite: InFlightWrite | null;
    readonly requeuedAt: number;
  }
>;

/** Terminal: the run ended with a final answer. */
export type RunCompleted = DomainEvent<
  'RunCompleted',
  {
    readonly runId: string;
    readonly reason: 'COMPLETED';
    readonly finalAnswer: string;
    readonly attempt: number;
    readonly completedAt: number;
  }
>;

/** Terminal: the run ended without a final answer. `deadLettered` marks a queued run that must not be retried. */
export type RunFailed = DomainEvent<
  'RunFailed',
  {
    readonly runId: string;
    readonly reason: TerminationReason;
    readonly failure: FailureInfo;
    readonly deadLettered: boolean;
    readonly attempt: number;
    readonly inFlightWrite: InFlightWrite | null;
    readonly failedAt: number;
  }
>;

/** Someone asked to cancel the run. A running segment stops at its next step boundary. */
export type CancelRequested = DomainEvent<
  'CancelRequested',
  {
    readonly runId: string;
    /** Who asked: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly requestedBy: Principal;
    /** The caller's own words, if any: never who acted. */
    readonly reason: string | null;
    readonly requestedAt: number;
  }
>;

/** Terminal: the run was cancelled. `inFlightWrite` names a write whose outcome is unknown. */
export type RunCancelled = DomainEvent<
  'RunCancelled',
  {
    readonly runId: string;
    readonly reason: 'CANCELLED';
    /** Who asked for the cancel (the `CancelRequested`'s principal). */
    readonly requestedBy: Principal;
    readonly inFlightWrite: InFlightWrite | null;
    readonly cancelledAt: number;
  }
>;

/**
 * A write step was found without its audit event. Recorded once per step; if
 * the run was not settled yet, a `RunFailed` (`AUDIT_MISSING`) follows it.
 */
export type AuditGapDetected = DomainEvent<
  'AuditGapDetected',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly toolName: string;
    readonly effect: ToolEffect;
    readonly detectedBy: string;
    /** Whether the run was already settled, so that the gap could only be recorded. */
    readonly runAlreadySettled: boolean;
    readonly detectedAt: number;
  }
>;

/** Why a tool call needs a person's approval. */
export type ApprovalRequirement =
  /** Its declared effect is a write and the agent does not pre-approve it. */
  | 'write'
  /** The tool's code asks for approval whatever its effect. */
  | 'tool';

/** What happens to a denied call: the model is told, or the run ends `APPROVAL_DENIED`. */
export type OnDenial = 'tellModel' | 'endRun';

/** One tool call that waits for approval: what it would do, exactly as the model asked for it. */
export interface ApprovalCall {
  readonly stepId: string;
  readonly callIndex: number;
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly arguments: JsonObject;
  readonly requirement: ApprovalRequirement;
}

/**
 * A model round asked for tool calls that need approval: the run waits
 * (`WAITING_FOR_APPROVAL`), holding no lease, before any call of the round
 * executes. One decision covers every call listed. `onDenial` is the agent's
 * configuration at the time of the request.
 */
export type ApprovalRequested = DomainEvent<
  'ApprovalRequested',
  {
    readonly runId: string;
    readonly round: number;
    readonly calls: readonly ApprovalCall[];
    readonly onDenial: OnDenial;
    readonly owner: string;
    readonly attempt: number;
    readonly requestedAt: number;
  }
>;

/** A write the agent's configuration pre-approves (an operator's decision) is about to execute without asking. */
export type ToolCallPreApproved = DomainEvent<
  'ToolCallPreApproved',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly toolName: string;
    readonly effect: ToolEffect;
    readonly agent: string;
    readonly approvedAt: number;
  }
>;

/**
 * The step about to start calls a tool whose effect the binding of its
 * server declared and the server's own hints contradict (an MCP tool,
 * `resolveExternalToolEffect`'s conflict). Recorded with each start of such a
 * step, right before its `StepStarted`, in the same append. `effect` is the
 * effect the step runs with (its `StepStarted`'s), from `effectSource`: the
 * declaration, or the hints (stricter and untrusted, or trusted).
 */
export type ToolEffectConflictRecorded = DomainEvent<
  'ToolEffectConflictRecorded',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly toolName: string;
    /** The binding's server name. */
    readonly server: string;
    /** The tool's name on that server. */
    readonly tool: string;
    /** The effect the binding declared. */
    readonly declared: ToolEffect;
    /** The effect the server's hints give. */
    readonly hinted: ToolEffect;
    /** Whether the binding trusts the server's hints. */
    readonly trusted: boolean;
    readonly effect: ToolEffect;
    readonly effectSource: 'declared' | 'hint';
    readonly recordedAt: number;
  }
>;

/** A person approved the calls waiting for approval; the run is queued again, due at once, to execute them. */
export type ApprovalGranted = DomainEvent<
  'ApprovalGranted',
  {
    readonly runId: string;
    readonly round: number;
    readonly stepIds: readonly string[];
    /** Who decided: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly decidedBy: Principal;
    readonly reason: string | null;
    readonly decidedAt: number;
  }
>;

/**
 * A person denied the calls waiting for approval; none of them executes.
 * With `onDenial: 'tellModel'` each call's result tells the model it was
 * denied and the run is queued again; with `'endRun'` a `RunFailed`
 * (`APPROVAL_DENIED`) follows.
 */
export type ApprovalDenied = DomainEvent<
  'ApprovalDenied',
  {
    readonly runId: string;
    readonly round: number;
    readonly stepIds: readonly string[];
    /** Who decided: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly decidedBy: Principal;
    readonly reason: string | null;
    readonly onDenial: OnDenial;
    readonly decidedAt: number;
  }
>;

/** A tool asked the user for input: the run waits (`WAITING_FOR_INPUT`), holding no lease; the tool runs again with the input. */
export type InputRequested = DomainEvent<
  'InputRequested',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly toolName: string;
    readonly prompt: string;
    readonly owner: string;
    readonly attempt: number;
    readonly requestedAt: number;
  }
>;

/** Someone submitted the input a tool asked for; the run is queued again, due at once. */
export type InputSubmitted = DomainEvent<
  'InputSubmitted',
  {
    readonly runId: string;
    readonly stepId: string;
    readonly input: JsonValue;
    /** Who answered: the authenticated caller (schema version 2; a version 1 name reads as `unverified`). */
    readonly submittedBy: Principal;
    readonly submittedAt: number;
  }
>;

/** Every event of a run's stream. */
export type RunEvent =
  | RunRequested
  | RunClaimed
  | LeaseRenewed
  | StepStarted
  | ModelResponded
  | ToolExecuted
  | RunRequeued
  | RunCompleted
  | RunFailed
  | CancelRequested
  | RunCancelled
  | AuditGapDetected
  | RunRequeuedByOperator
  | ApprovalRequested
  | ToolCallPreApproved
  | ToolEffectConflictRecorded
  | ApprovalGranted
  | ApprovalDenied
  | InputRequested
  | InputSubmitted;

/** The `type` strings of run events. */
export type RunEventType = RunEvent['type'];

/**
 * The current schema version of each run event's payload; raised on any change
 * of shape, with an upcaster from the version before (`event-schemas.ts`, the
 * one registry every reader goes through). Version 2 of the decisions made
 * by a person (cancel, operator requeue, approval, denial, input) records
 * who made them as a typed {@link Principal} instead of a free string;
 * version 2 of `RunRequested` records who started the run.
 */
export const RUN_EVENT_SCHEMA_VERSIONS: Readonly<Record<RunEventType, number>> = Object.freeze({
  RunRequested: 2,
  RunClaimed: 1,
  LeaseRenewed: 1,
  StepStarted: 1,
  ModelResponded: 1,
  ToolExecuted: 1,
  RunRequeued: 1,
  RunCompleted: 1,
  RunFailed: 1,
  CancelRequested: 2,
  RunCancelled: 2,
  AuditGapDetected: 1,
  RunRequeuedByOperator: 2,
  ApprovalRequested: 1,
  ToolCallPreApproved: 1,
  ToolEffectConflictRecorded: 1,
  ApprovalGranted: 2,
  ApprovalDenied: 2,
  InputRequested: 1,
  InputSubmitted: 2,
});

/** Every run event type. */
export const RUN_EVENT_TYPES: readonly RunEventType[] = Object.freeze(
  Object.keys(RUN_EVENT_SCHEMA_VERSIONS) as RunEventType[],
);

/** The events that settle a run; a run has at most one of them. */
export const TERMINAL_RUN_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'RunCompleted',
  'RunFailed',
  'RunCancelled',
]);

/** Whether `event` settles its run. */
export function isTerminalRunEvent(event: { readonly type: string }): event is RunCompleted | RunFailed | RunCancelled {
  return TERMINAL_RUN_EVENT_TYPES.has(event.type as RunEventType);
}

/** Whether `type` is a run event type this version knows. */
export function isRunEventType(type: string): type is RunEventType {
  return Object.prototype.hasOwnProperty.call(RUN_EVENT_SCHEMA_VERSIONS, type);
}
