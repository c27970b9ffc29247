import type { ApiScope, AuditReviewQuery, DecideApprovalRequest, ListApprovalsQuery, StartRunRequest } from '@agent-ledger/client';
import { auditReviewQuerySchema, decideApprovalRequestSchema, listApprovalsQuerySchema, RUN_ID_PATTERN, s, startRunRequestSchema, submitInputRequestSchema } from '@agent-ledger/client';
import type { z } from 'zod';
import { zodOfContract, zodShapeOfContract } from './contract-zod';
import type { LedgerOperations } from './ledger-operations';

/** What an MCP client is told of a tool's behaviour (MCP's `ToolAnnotations`, the hints only). */
export interface LedgerToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint: boolean;
}

/** One MCP tool of the ledger: its name, what it does, who may call it, its arguments and the route it is. */
export interface LedgerTool {
  /** The MCP tool's name (`start_run`). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The route it calls, for the docs and messages (`POST /runs`). */
  readonly route: string;
  /** The API key scopes that let a caller use it: any one, as the route's (`@RequireScope`). */
  readonly scopes: readonly [ApiScope, ...ApiScope[]];
  readonly hints: LedgerToolHints;
  /** Its arguments: the route's body or query (and `runId` for a route of one run), from the client's contract. */
  readonly shape: Readonly<Record<string, z.ZodType>>;
  /** Calls the ledger with the checked arguments; resolves with the route's JSON answer. */
  call(operations: LedgerOperations, args: Record<string, unknown>): Promise<unknown>;
}

const READ: LedgerToolHints = { readOnlyHint: true, openWorldHint: false };
const runId = zodOfContract(s.string({ pattern: RUN_ID_PATTERN }).describe('The run id'));

/** Only the fields set (an absent optional argument is not sent as `undefined`). */
function defined<T extends object>(value: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The ledger's MCP tools, each one route of the HTTP API with that route's
 * scopes, arguments and answer (`docs/mcp-server.md`). Defined once: the
 * service's `POST /mcp` and `agent-ledger mcp` serve this table.
 *
 * `decide_approval` lets the MCP client's host (and the model it runs)
 * approve a run's writes: only a key with `runs:approve`, which no other
 * scope implies, is offered it.
 */
export const LEDGER_TOOLS: readonly LedgerTool[] = [
  {
    name: 'list_agents',
    title: 'List agents',
    description: 'The agents this API key may start runs of: each one\'s tools with their declared effects (READ_ONLY, IDEMPOTENT_WRITE, NON_IDEMPOTENT_WRITE) and which calls wait for a person\'s approval.',
    route: 'GET /agents',
    scopes: ['runs:submit', 'runs:read'],
    hints: READ,
    shape: {},
    call: (operations) => operations.listAgents(),
  },
  {
    name: 'start_run',
    title: 'Start a run',
    description:
      'Starts a run of an agent on an input. Queued (the default): answers at once with the run id and status QUEUED; a worker runs it (follow it with get_run). ' +
      'Interactive: answers when the run settles. A write the agent does not pre-approve waits for a person (status WAITING_FOR_APPROVAL). ' +
      'With idempotencyKey the call is safe to repeat: the same key answers the same run and starts nothing new.',
    route: 'POST /runs',
    scopes: ['runs:submit'],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    shape: zodShapeOfContract(startRunRequestSchema),
    call: (operations, args) => operations.startRun(defined<StartRunRequest>(args)),
  },
  {
    name: 'get_run',
    title: 'Get a run',
    description: 'One run: its agent, status (QUEUED, RUNNING, WAITING_FOR_APPROVAL, WAITING_FOR_INPUT, COMPLETED, FAILED, CANCELLED), reason, final answer, failure and times.',
    route: 'GET /runs/{runId}',
    scopes: ['runs:read'],
    hints: READ,
    shape: { runId },
    call: (operations, args) => operations.getRun(args.runId as string),
  },
  {
    name: 'get_run_steps',
    title: "Get a run's steps",
    description: "A run's steps, by model round then call: each tool call with its arguments, effect, outcome and result, and each model call.",
    route: 'GET /runs/{runId}/steps',
    scopes: ['runs:read'],
    hints: READ,
    shape: { runId },
    call: (operations, args) => operations.getSteps(args.runId as string),
  },
  {
    name: 'list_approvals',
    title: 'List approval requests',
    description:
      'Requests for a person\'s approval, newest first: each one\'s run, agent, model round, the calls with their arguments and effects, and once decided who decided and why. ' +
      'state "pending" lists the runs waiting for a decision now. Pass nextCursor back as cursor for the next page.',
    route: 'GET /approvals',
    scopes: ['runs:read'],
    hints: READ,
    shape: zodShapeOfContract(listApprovalsQuerySchema),
    call: (operations, args) => operations.listApprovals(defined<ListApprovalsQuery>(args)),
  },
  {
    name: 'decide_approval',
    title: 'Approve or deny a run\'s calls',
    description:
      'Approves or denies every call of the round a run waits for (WAITING_FOR_APPROVAL). Approved, the calls execute: this may let writes happen. ' +
      'Denied, the model is told or the run ends, as the agent says. The decision is recorded in the audit trail with this API key as who decided. ' +
      'round (pendingApproval.round of get_run) makes sure the decision is for the request you saw.',
    route: 'POST /runs/{runId}/approval',
    scopes: ['runs:approve'],
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    shape: { runId, ...zodShapeOfContract(decideApprovalRequestSchema) },
    call: (operations, { runId: id, ...body }) => operations.decideApproval(id as string, defined<DecideApprovalRequest>(body)),
  },
  {
    name: 'answer_input',
    title: 'Answer a run that asked for input',
    description: 'Answers a run whose tool asked for input (WAITING_FOR_INPUT; the question is in get_run\'s pendingInput): the tool runs again with the input. Recorded with this API key as who answered.',
    route: 'POST /runs/{runId}/input',
    scopes: ['runs:submit'],
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    shape: { runId, ...zodShapeOfContract(submitInputRequestSchema) },
    call: (operations, args) => operations.submitInput(args.runId as string, args.input),
  },
  {
    name: 'audit_review',
    title: 'Audit review',
    description:
      'The audit review: totals of writes executed and audited, writes without audit, audit gaps, runs failed closed, decisions, and the integrity verdict of the audit chains read from the stores (findings: true when the audit is in doubt). ' +
      'runId: one run only (required for a key limited to some agents).',
    route: 'GET /audit/review',
    scopes: ['audit:read'],
    hints: READ,
    shape: zodShapeOfContract(auditReviewQuerySchema),
    call: (operations, args) => operations.auditReview(defined<AuditReviewQuery>(args)),
  },
];

/** Whether a caller with `scopes` may use `tool`: it holds any one of the tool's scopes. */
export function mayUseTool(tool: LedgerTool, scopes: readonly string[]): boolean {
  return tool.scopes.some((scope) => scopes.includes(scope));
}
