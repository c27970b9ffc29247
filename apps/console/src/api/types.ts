/**
 * The shapes of the service's answers that the console reads (a subset of
 * each: the console ignores fields it does not show). They follow
 * docs/http-api.md; the console is browser code and imports no server type.
 */

/** The scopes an API key may hold. */
export type ApiScope = 'runs:submit' | 'runs:read' | 'runs:approve' | 'audit:read' | 'operate' | 'metrics:read';

/** A tool's declared side effect. */
export type ToolEffect = 'READ_ONLY' | 'IDEMPOTENT_WRITE' | 'NON_IDEMPOTENT_WRITE';

/** A run's status. */
export type RunStatus = 'QUEUED' | 'RUNNING' | 'WAITING_FOR_APPROVAL' | 'WAITING_FOR_INPUT' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** Every run status, in the order of a run's life. */
export const RUN_STATUSES: readonly RunStatus[] = ['QUEUED', 'RUNNING', 'WAITING_FOR_APPROVAL', 'WAITING_FOR_INPUT', 'COMPLETED', 'FAILED', 'CANCELLED'];

/** `GET /me`: who the key is and what it may do. */
export interface Me {
  readonly keyId: string | null;
  readonly scopes: readonly ApiScope[];
  readonly agents: readonly string[] | null;
  readonly authMode: string;
}

/** One agent of `GET /agents`. */
export interface AgentInfo {
  readonly name: string;
  readonly description: string | null;
  readonly tools: readonly { readonly name: string; readonly effect: ToolEffect }[];
}

/** A row of the run-status read model (`GET /runs`, `GET /runs/{runId}`). */
export interface RunRow {
  readonly runId: string;
  readonly agent: string;
  readonly mode: string;
  readonly status: RunStatus;
  readonly reason: string | null;
  readonly failureClass: string | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly deadLettered: boolean | null;
  readonly attempts: number;
  readonly requeues: number;
  readonly leaseOwner: string | null;
  readonly inFlightStepId: string | null;
  readonly cancelRequested: boolean;
  readonly requestedAt: number;
  readonly settledAt: number | null;
  readonly updatedAt: number;
  readonly stepsTotal: number;
  readonly auditGaps: number;
  readonly approvalRound: number | null;
  readonly finalAnswer: string | null;
  readonly continuationOf: string | null;
  readonly continuedAs: string | null;
}

/** `GET /runs`. */
export interface RunPage {
  readonly runs: readonly RunRow[];
  readonly nextCursor: string | null;
}

/** A row of the steps read model (`GET /runs/{runId}/steps`). */
export interface StepRow {
  readonly stepId: string;
  readonly kind: string | null;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly status: 'started' | 'completed' | null;
  readonly outcome: string | null;
  readonly auditState: 'recorded' | 'missing' | 'pending';
  readonly auditSequence: number | null;
  readonly auditRecordedAt: number | null;
  readonly approval: string | null;
}

/** One call a request for approval is about. */
export interface ApprovalCall {
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly arguments: Record<string, unknown>;
  readonly requirement: string;
}

/** A row of `GET /approvals`. */
export interface ApprovalRow {
  readonly approvalId: string;
  readonly runId: string;
  readonly agent: string;
  readonly round: number;
  readonly calls: readonly ApprovalCall[];
  readonly onDenial: string;
  readonly requestedAt: number;
  readonly state: 'pending' | 'approved' | 'denied' | 'cancelled';
  readonly decidedBy: string | null;
  readonly reason: string | null;
  readonly decidedAt: number | null;
}

/** `GET /approvals`. */
export interface ApprovalPage {
  readonly approvals: readonly ApprovalRow[];
  readonly nextCursor: string | null;
}

/** A write of the audit review. */
export interface AuditWrite {
  readonly stepId: string;
  readonly runId: string;
  readonly toolName: string | null;
  readonly effect: ToolEffect | null;
  readonly firstStartedAt: number | null;
  readonly executedAt: number | null;
  readonly outcome: string | null;
  readonly audited: boolean;
  readonly auditSequence: number | null;
  readonly gapDetectedAt: number | null;
  readonly gapDetectedBy: string | null;
  readonly failedRunReason: string | null;
}

/** A settled run of the audit review. */
export interface AuditRun {
  readonly runId: string;
  readonly status: string;
  readonly reason: string;
  readonly failureClass: string | null;
  readonly failureMessage: string | null;
  readonly deadLettered: boolean;
  readonly settledAt: number;
  readonly inFlightStepId: string | null;
}

/** A write of the run store and its audit in the audit store, as the store verdict lists it. */
export interface StoreWrite {
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: ToolEffect;
  readonly executedAttempt: number;
  readonly executedAt: number;
  readonly auditAttempt: number | null;
  /** Writes without audit only: how the run ended, and what allows it (null: nothing). */
  readonly runEnd?: string;
  readonly allowedBy?: 'failedClosed' | 'cancelledInFlight' | null;
}

/** The integrity verdict read from the stores: `GET /audit/chains`, and `verdict` of `GET /audit/review`. */
export interface AuditVerdict {
  readonly runs: number;
  readonly records: number;
  readonly brokenRuns: readonly string[];
  readonly breaks: readonly { readonly runId: string; readonly [field: string]: unknown }[];
  readonly findings: boolean;
  readonly problems: readonly string[];
  readonly totals: Readonly<Record<string, number>>;
  readonly writesWithoutAudit: readonly StoreWrite[];
  readonly auditedLate: readonly StoreWrite[];
  readonly verification: { readonly mode: 'full' | 'incremental'; readonly fullBecause: string | null; readonly durationMs: number };
}

/** `GET /audit/review`: the read model's report, and the verdict read from the stores. */
export interface AuditReview {
  readonly totals: Readonly<Record<string, number>>;
  readonly writes: readonly AuditWrite[];
  readonly writesWithoutAudit: readonly AuditWrite[];
  readonly gaps: readonly AuditWrite[];
  readonly auditedLate: readonly AuditWrite[];
  readonly runsFailedClosed: readonly AuditRun[];
  readonly runsFailedAuditMissing: readonly AuditRun[];
  readonly interruptedWrites: readonly Record<string, unknown>[];
  readonly verdict: AuditVerdict;
  readonly findings: boolean;
}

/** `GET /audit/chains`: a full verification. */
export type ChainsVerification = AuditVerdict;

/** A projection of `GET /projections`. */
export interface ProjectionStatus {
  readonly projection: string;
  readonly source: string;
  readonly position: string | null;
  readonly eventsApplied: number;
  readonly updatedAt: number | null;
  readonly headPosition: string | null;
  readonly caughtUp: boolean;
  readonly rebuilding: boolean;
  readonly lag: { readonly events: number; readonly atLeast: boolean } | null;
}

/** `GET /projections`. */
export interface ProjectionsAnswer {
  readonly projections: readonly ProjectionStatus[];
}

/** `GET /projections/rebuild`. */
export interface RebuildState {
  readonly state: 'idle' | 'running' | 'succeeded' | 'failed';
  readonly projections: readonly string[] | null;
  readonly requestedBy: string | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly progress: {
    readonly phase: string;
    readonly source: string | null;
    readonly eventsDone: number;
    readonly fractionDone: number | null;
    readonly eventsPerSecond: number;
    readonly etaMs: number | null;
  } | null;
  readonly result: { readonly projections: readonly string[]; readonly eventsDone: number; readonly eventsApplied: number; readonly elapsedMs: number } | null;
  readonly error: string | null;
}

/** An event as the event streams send it (`data:` of a frame). */
export interface StreamedEvent {
  readonly type: string;
  readonly streamName: string;
  readonly revision: number;
  readonly position: string;
  readonly data: Record<string, unknown>;
  readonly created: string;
}
