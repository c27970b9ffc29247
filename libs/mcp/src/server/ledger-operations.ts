import type {
  AgentsAnswer,
  ApprovalPage,
  AuditReviewAnswer,
  AuditReviewQuery,
  DecideApprovalRequest,
  ListApprovalsQuery,
  RunResumeAnswer,
  RunStatusRow,
  RunStepsAnswer,
  StartRunAnswer,
  StartRunRequest,
} from '@agent-ledger/client';

/**
 * What the ledger's MCP tools do, and nothing more: the port the tools of
 * {@link LEDGER_TOOLS} call. Each method is one route of the HTTP API and
 * answers that route's JSON, on behalf of one caller (an API key) whose
 * principal every decision records.
 *
 * Two implementations: `AgentLedgerClient` (`@agent-ledger/client`) is one
 * as it is, over HTTP (`agent-ledger mcp`); the service's `POST /mcp` has
 * one in process, on the same command bus and read models as its routes.
 *
 * A refusal or a failure of the ledger rejects with a
 * {@link LedgerOperationError} (the REST error body), an
 * `AgentLedgerApiError` or an `AgentLedgerConnectionError` of the client;
 * anything else is a fault (`INTERNAL_ERROR` to the MCP client).
 */
export interface LedgerOperations {
  /** `GET /agents`: the agents the caller may use. */
  listAgents(): Promise<AgentsAnswer>;
  /** `POST /runs`: starts a run (queued by default). */
  startRun(request: StartRunRequest): Promise<StartRunAnswer>;
  /** `GET /runs/{runId}`. */
  getRun(runId: string): Promise<RunStatusRow>;
  /** `GET /runs/{runId}/steps`. */
  getSteps(runId: string): Promise<RunStepsAnswer>;
  /** `GET /approvals`. */
  listApprovals(query: ListApprovalsQuery): Promise<ApprovalPage>;
  /** `POST /runs/{runId}/approval`: the caller's decision, recorded with its principal. */
  decideApproval(runId: string, request: DecideApprovalRequest): Promise<RunResumeAnswer>;
  /** `POST /runs/{runId}/input`: the caller's answer, recorded with its principal. */
  submitInput(runId: string, input: unknown): Promise<RunResumeAnswer>;
  /** `GET /audit/review`. */
  auditReview(query: AuditReviewQuery): Promise<AuditReviewAnswer>;
}
