import type { DomainCommand } from '../decider';
import type { JsonValue } from '../json';
import type { Principal } from '../principal/principal';
import type { ToolEffect } from '../tool-effect/tool-effect';
import type { ApprovalRequirement, FailureInfo, InFlightWriteResolution, ModelResponse, OnDenial, RunContinuation } from './run-events';
import type { RunMode } from './run-mode';
import type { TerminationReason } from './termination-reason';

/*
 * The commands of a run. A segment's commands name the lease they act under
 * (`owner` and `attempt`): a segment that no longer holds it is told it lost the
 * lease, and nothing it sends is recorded. Step ids are not sent: the decider
 * derives them from the round and the call index, so they are deterministic.
 */

/** The lease a segment acts under: its owner string and the claim it got (`attempt`). */
export interface SegmentLease {
  readonly owner: string;
  readonly attempt: number;
}

/** Store a run request; it waits `QUEUED` for a segment. */
export type RequestRun = DomainCommand<
  'RequestRun',
  {
    readonly runId: string;
    readonly agent: string;
    readonly input: JsonValue;
    readonly mode: RunMode;
    /** Who starts it: the authenticated caller (for a continuation, the operator who requeued). */
    readonly requestedBy: Principal;
    /** The agent's round limit; it may lower MAX_ITERATIONS, not raise it. @default 20 */
    readonly maxIterations?: number;
    /** Set for the continuation of a dead-lettered run (build it with `continuationOf`). */
    readonly continuation?: RunContinuation;
  }
>;

/** Claim a queued, due run and take its lease. */
export type ClaimRun = DomainCommand<'ClaimRun', { readonly runId: string; readonly owner: string }>;

/** Extend the lease at a step boundary. */
export type RenewLease = DomainCommand<'RenewLease', { readonly runId: string } & SegmentLease>;

/** The tool a tool step calls, with the effect its code declares. */
export interface StepTool {
  readonly name: string;
  readonly effect: ToolEffect;
  /** How long one call may take, in seconds; a write without one gets the default deadline. */
  readonly operationDeadlineSeconds?: number;
  /**
   * True for a call that will not execute (a tool not offered to the agent,
   * or unknown): it is recorded as a failed execution, and needs no approval.
   * Any other write starts only once approved (by a person or by the agent's
   * pre-approval).
   */
  readonly refused?: boolean;
  /**
   * The run's agent, when its configuration pre-approves this write: the
   * step records `ToolCallPreApproved` (once per step) and the fence in one
   * append, in that order. Not for a refused call.
   */
  readonly preApprovedBy?: string;
  /**
   * Set when the tool's effect was resolved from a binding's declaration and
   * its server's hints that disagree (an MCP tool): the step records
   * `ToolEffectConflictRecorded` right before its `StepStarted`, in the same
   * append, at each start. `effect` must be the one the rule gives (the hints
   * when trusted, else the stricter of the two). Not for a refused call.
   */
  readonly effectConflict?: ToolEffectConflict;
}

/** An external tool's declared effect and its server's hints, which disagree (`resolveExternalToolEffect`'s conflict). */
export interface ToolEffectConflict {
  /** The binding's server name. */
  readonly server: string;
  /** The tool's name on that server. */
  readonly tool: string;
  /** The effect the binding declared. */
  readonly declared: ToolEffect;
  /** The effect the server's hints give (not the declared one). */
  readonly hinted: ToolEffect;
  /** Whether the binding trusts the server's hints (they then decide). */
  readonly trusted: boolean;
}

/** Begin a step: a model call (no `callIndex`) or a tool call (`callIndex` and `tool`). */
export type StartStep = DomainCommand<
  'StartStep',
  {
    readonly runId: string;
    readonly round: number;
    readonly callIndex?: number;
    readonly tool?: StepTool;
  } & SegmentLease
>;

/** Record what the model answered in a round. */
export type RecordModelResponse = DomainCommand<
  'RecordModelResponse',
  { readonly runId: string; readonly round: number; readonly response: ModelResponse } & SegmentLease
>;

/** Record what a tool call returned, or that it threw. */
export type RecordToolExecution = DomainCommand<
  'RecordToolExecution',
  {
    readonly runId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly outcome: 'succeeded' | 'failed';
    readonly result?: JsonValue;
    readonly error?: FailureInfo;
  } & SegmentLease
>;

/** Settle the run with its final answer. */
export type CompleteRun = DomainCommand<
  'CompleteRun',
  { readonly runId: string; readonly finalAnswer: string } & SegmentLease
>;

/**
 * Report a failure of the segment. Without `reason` the decider chooses
 * between a retry and a dead letter from the failure class; with a deliberate
 * reason (MAX_ITERATIONS, AUDIT_PERSISTENCE_FAILED, ...) the run ends.
 * `PROVIDER_FAILED` is accepted as a hint that names an interactive run's end.
 */
export type FailRun = DomainCommand<
  'FailRun',
  {
    readonly runId: string;
    readonly error: FailureInfo;
    readonly reason?: TerminationReason;
    /**
     * How long the failed dependency asked to be left alone (a model server's
     * `Retry-After`), in milliseconds: a retry then waits at least this long
     * (at most the backoff's cap). Not recorded as such: the requeue's
     * `notBefore` says when the run is due.
     */
    readonly retryAfterMs?: number;
  } & SegmentLease
>;

/** Ask to cancel the run. */
export type RequestCancel = DomainCommand<
  'RequestCancel',
  {
    readonly runId: string;
    /** Who asks: the authenticated caller. */
    readonly requestedBy: Principal;
    /** The caller's own words, recorded as they are: never who acted. */
    readonly reason?: string;
  }
>;

/** Take back a run whose lease expired: requeue it or dead-letter it. */
export type ReapRun = DomainCommand<'ReapRun', { readonly runId: string; readonly reaper: string }>;

/**
 * An operator requeues a dead-lettered run as a continuation run (the run
 * itself stays settled). With a `NON_IDEMPOTENT_WRITE` in flight, the
 * operator must state how it was resolved.
 */
export type RequeueRun = DomainCommand<
  'RequeueRun',
  {
    readonly runId: string;
    readonly continuationRunId: string;
    /** Who requeues: the authenticated caller. */
    readonly requestedBy: Principal;
    readonly reason?: string;
    readonly resolution?: InFlightWriteResolution;
  }
>;

/** Report a write step whose audit event never arrived (sent by the audit-gap saga). */
export type ReportAuditGap = DomainCommand<
  'ReportAuditGap',
  { readonly runId: string; readonly stepId: string; readonly detectedBy: string }
>;

/** One call of a round that needs approval, as the segment found it. */
export interface ApprovalCallRequest {
  readonly callIndex: number;
  /** The effect the tool's code declares. The tool's name and arguments are the ones the round's `ModelResponded` recorded. */
  readonly effect: ToolEffect;
  readonly requirement: ApprovalRequirement;
}

/**
 * Pause the run until a person decides on the round's calls that need
 * approval. Sent after the round's `ModelResponded` and before any of its calls
 * executes; the segment gives up its lease.
 */
export type RequestApproval = DomainCommand<
  'RequestApproval',
  { readonly runId: string; readonly round: number; readonly calls: readonly ApprovalCallRequest[]; readonly onDenial: OnDenial } & SegmentLease
>;

/** Record that the agent's configuration pre-approves a write about to execute. Repeating it records nothing more. */
export type RecordPreApproval = DomainCommand<
  'RecordPreApproval',
  {
    readonly runId: string;
    readonly round: number;
    readonly callIndex: number;
    readonly toolName: string;
    readonly effect: ToolEffect;
    readonly agent: string;
  } & SegmentLease
>;

/** A person approves or denies the calls a run waits for. */
export type DecideApproval = DomainCommand<
  'DecideApproval',
  {
    readonly runId: string;
    readonly decision: 'approve' | 'deny';
    /** Who decides: the authenticated caller. */
    readonly decidedBy: Principal;
    readonly reason?: string;
    /** When given, the round the decider saw: a decision on another (later) request is refused. */
    readonly round?: number;
  }
>;

/** A tool asked the user for input: pause the run until it is submitted; the segment gives up its lease. */
export type RequestInput = DomainCommand<
  'RequestInput',
  { readonly runId: string; readonly round: number; readonly callIndex: number; readonly prompt: string } & SegmentLease
>;

/** Someone submits the input a waiting run's tool asked for. */
export type SubmitInput = DomainCommand<
  'SubmitInput',
  {
    readonly runId: string;
    readonly input: JsonValue;
    /** Who answers: the authenticated caller. */
    readonly submittedBy: Principal;
  }
>;

/** Every command of a run. */
export type RunCommand =
  | RequestRun
  | ClaimRun
  | RenewLease
  | StartStep
  | RecordModelResponse
  | RecordToolExecution
  | CompleteRun
  | FailRun
  | RequestCancel
  | ReapRun
  | ReportAuditGap
  | RequeueRun
  | RequestApproval
  | RecordPreApproval
  | DecideApproval
  | RequestInput
  | SubmitInput;

/** The `type` strings of run commands. */
export type RunCommandType = RunCommand['type'];
