import type { ApprovalCall, OnDenial } from '@agent-ledger/domain';
import type { ApprovalState } from '../approvals/approval-rows';

/**
 * One request for approval, as {@link ProjectionQueries.listApprovals}
 * returns it: one per `ApprovalRequested` (a run and a model round), with
 * where it stands. Times are ms since the epoch, from the events.
 */
export interface ApprovalRow {
  /** `<runId>/r<round>`: the request's key (and the cursor's tie-breaker). */
  readonly approvalId: string;
  readonly runId: string;
  /** The run's agent (from its `RunRequested`). */
  readonly agent: string;
  /** The model round whose calls wait for the decision. */
  readonly round: number;
  /**
   * The calls one decision covers, exactly as the model asked for them:
   * `stepId`, `callIndex`, `toolName`, `effect`, `arguments`, `requirement`
   * (`write`: a write the agent does not pre-approve; `tool`: the tool asks
   * whatever its effect).
   */
  readonly calls: readonly ApprovalCall[];
  /** What a denial does: `tellModel` (the model is told, the run goes on) or `endRun` (the run fails `APPROVAL_DENIED`). */
  readonly onDenial: OnDenial;
  /** When the run started to wait. */
  readonly requestedAt: number;
  /**
   * `pending` (the run waits), `approved`, `denied`, or `cancelled` (the run
   * was settled while it waited, most often cancelled: nobody decided).
   */
  readonly state: ApprovalState;
  /**
   * Who decided; for `cancelled`, who cancelled the run (null when it was
   * settled otherwise). Null while `pending`.
   */
  readonly decidedBy: string | null;
  /**
   * The reason the person gave (or null); for `cancelled`, the run's
   * termination reason (`CANCELLED`, `AUDIT_MISSING`...). Null while `pending`.
   */
  readonly reason: string | null;
  /** When it was decided (for `cancelled`: when the run was settled). Null while `pending`. */
  readonly decidedAt: number | null;
}

/**
 * Filters and page of {@link ProjectionQueries.listApprovals}. Requests come
 * newest first (by `requestedAt`, then `approvalId`).
 */
export interface ListApprovalsQuery {
  /** Only requests in this state (`pending`: the runs waiting for a decision now). */
  readonly state?: ApprovalState;
  /** Only requests of this agent's runs. */
  readonly agent?: string;
  /** Only this run's requests. */
  readonly runId?: string;
  /** Requests made at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Requests made before this time (ms since the epoch). */
  readonly until?: number;
  /**
   * Most requests in the page, 1 to 1000.
   * @default 50
   */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. @default the first page */
  readonly cursor?: string;
}

/** A page of requests for approval. */
export interface ApprovalPage {
  readonly approvals: readonly ApprovalRow[];
  /** Pass it as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}
