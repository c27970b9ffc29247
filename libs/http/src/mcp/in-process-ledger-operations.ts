import type { ArgumentMetadata, Type } from '@nestjs/common';
import type { QueryBus } from '@nestjs/cqrs';
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
import type { LedgerOperations } from '@agent-ledger/mcp';
import { LedgerOperationError } from '@agent-ledger/mcp';
import type { AgentsController } from '../agents/agents.controller';
import type { ApprovalsController } from '../approvals/approvals.controller';
import type { AuditReviewController } from '../audit/audit-review.controller';
import type { ApiCaller } from '../auth/api-caller';
import { assertEntitledToRuns } from '../auth/run-entitlement';
import { httpErrorAnswerOf } from '../errors/http-error-mapping';
import type { RunsController } from '../runs/runs.controller';
import { AuditReviewQueryDto, DecideApprovalDto, ListApprovalsQueryDto, StartRunDto, SubmitInputDto } from '../runs/run-dtos';
import type { ApiValidationPipe } from '../validation/validation-pipe';

/** The routes' own handlers and checks, which the MCP endpoint's tools go through. */
export interface LedgerRoutes {
  readonly runs: RunsController;
  readonly approvals: ApprovalsController;
  readonly audit: AuditReviewController;
  readonly agents: AgentsController;
  /** The API's one validation pipe (the routes' bodies and queries). */
  readonly pipe: ApiValidationPipe;
  /** For the entitlement of a key limited to some agents (the run's own stream says whose it is). */
  readonly queries: QueryBus;
}

/**
 * The ledger's MCP tools in the service's own process, for one caller: each
 * call goes the way of its route, in the route's order, with the caller the
 * API key guard authenticated. The run a call names is checked against a key
 * limited to some agents (the guard's check), the arguments by the route's
 * DTO and the API's validation pipe, and the route's handler does the rest:
 * the same command on the bus with the caller's principal (so a decision is
 * recorded as the key's, exactly as over REST), the same read models. A
 * refusal rejects with the body the route would answer
 * ({@link LedgerOperationError}); a fault is also told to `onFault`.
 */
export class InProcessLedgerOperations implements LedgerOperations {
  constructor(
    private readonly caller: ApiCaller,
    private readonly routes: LedgerRoutes,
    private readonly onFault: (error: unknown) => void,
  ) {}

  listAgents(): Promise<AgentsAnswer> {
    return this.answer(async () => this.routes.agents.list(this.caller));
  }

  startRun(request: StartRunRequest): Promise<StartRunAnswer> {
    return this.answer(async () => (await this.routes.runs.startFor(await this.checked('body', StartRunDto, request), this.caller)).answer);
  }

  getRun(runId: string): Promise<RunStatusRow> {
    return this.answer(async () => {
      await this.entitled(runId, 'path');
      return this.routes.runs.get(runId);
    });
  }

  getSteps(runId: string): Promise<RunStepsAnswer> {
    return this.answer(async () => {
      await this.entitled(runId, 'path');
      return this.routes.runs.steps(runId);
    });
  }

  listApprovals(query: ListApprovalsQuery): Promise<ApprovalPage> {
    return this.answer(async () => {
      await this.entitled(query.runId, 'query');
      return this.routes.approvals.list(await this.checked('query', ListApprovalsQueryDto, query), this.caller);
    });
  }

  decideApproval(runId: string, request: DecideApprovalRequest): Promise<RunResumeAnswer> {
    return this.answer(async () => {
      await this.entitled(runId, 'path');
      return this.routes.runs.decideApproval(runId, await this.checked('body', DecideApprovalDto, request), this.caller);
    });
  }

  submitInput(runId: string, input: unknown): Promise<RunResumeAnswer> {
    return this.answer(async () => {
      await this.entitled(runId, 'path');
      return this.routes.runs.submitInput(runId, await this.checked('body', SubmitInputDto, { input }), this.caller);
    });
  }

  auditReview(query: AuditReviewQuery): Promise<AuditReviewAnswer> {
    return this.answer(async () => {
      await this.entitled(query.runId, 'query', true);
      return this.routes.audit.review(await this.checked('query', AuditReviewQueryDto, query));
    });
  }

  private entitled(runId: string | undefined, from: 'path' | 'query', acrossRuns = false): Promise<void> {
    return assertEntitledToRuns(this.routes.queries, this.caller, { runId, from, acrossRuns });
  }

  private async checked<T>(type: 'body' | 'query', metatype: Type<T>, value: unknown): Promise<T> {
    const metadata: ArgumentMetadata = { type, metatype, data: undefined };
    return (await this.routes.pipe.transform(value, metadata)) as T;
  }

  /** The route's answer, or its refusal as the body the route would answer. */
  private async answer<T>(route: () => Promise<T>): Promise<T> {
    try {
      return await route();
    } catch (error) {
      const { body, serverFault } = httpErrorAnswerOf(error);
      if (serverFault) this.onFault(error);
      throw new LedgerOperationError(body);
    }
  }
}
