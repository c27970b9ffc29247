import type { IQueryHandler } from '@nestjs/cqrs';
import { QueryHandler } from '@nestjs/cqrs';
import { ValidatedQueryHandler } from '@agent-ledger/validation';
import type { ApprovalPage } from '../queries/approval-list-query';
import type { AuditReviewReport } from '../queries/audit-review-report';
import { ProjectionQueries } from '../queries/projection-queries';
import type { ProjectionStatusEntry } from '../queries/projection-status';
import type { RunPage } from '../queries/run-list-query';
import type { RunStatusRow } from '../run-status/run-status-row';
import type { StepRow } from '../steps/step-row';
import { GetAuditReview, GetProjectionStatus, GetRun, GetRunSteps, ListApprovals, ListRuns } from './read-model-queries';

/** Answers {@link GetRun}. */
@QueryHandler(GetRun)
export class GetRunHandler extends ValidatedQueryHandler<GetRun> implements IQueryHandler<GetRun, RunStatusRow | null> {
  constructor(private readonly queries: ProjectionQueries) {
    super();
  }
  protected handle({ runId }: GetRun): Promise<RunStatusRow | null> {
    return Promise.resolve(this.queries.getRun(runId));
  }
}

/** Answers {@link ListRuns}. */
@QueryHandler(ListRuns)
export class ListRunsHandler extends ValidatedQueryHandler<ListRuns> implements IQueryHandler<ListRuns, RunPage> {
  constructor(private readonly queries: ProjectionQueries) {
    super();
  }
  protected handle({ query }: ListRuns): Promise<RunPage> {
    return Promise.resolve(this.queries.listRuns(query));
  }
}

/** Answers {@link GetRunSteps}. */
@QueryHandler(GetRunSteps)
export class GetRunStepsHandler extends ValidatedQueryHandler<GetRunSteps> implements IQueryHandler<GetRunSteps, StepRow[]> {
  constructor(private readonly queries: ProjectionQueries) {
    super();
  }
  protected handle({ runId }: GetRunSteps): Promise<StepRow[]> {
    return Promise.resolve(this.queries.getSteps(runId));
  }
}

/** Answers {@link GetAuditReview}. */
@QueryHandler(GetAuditReview)
export class GetAuditReviewHandler extends ValidatedQueryHandler<GetAuditReview> implements IQueryHandler<GetAuditReview, AuditReviewReport> {
  constructor(private readonly queries: ProjectionQueries) {
    super();
  }
  protected handle({ query }: GetAuditReview): Promise<AuditReviewReport> {
    return Promise.resolve(this.queries.auditReview(query));
  }
}

/** Answers {@link ListApprovals}. */
@QueryHandler(ListApprovals)
export class ListApprovalsHandler extends ValidatedQueryHandler<ListApprovals> implements IQueryHandler<ListApprovals, ApprovalPage> {
  constructor(private readonly queries: ProjectionQueries) {
    super();
  }
  protected handle({ query }: ListApprovals): Promise<ApprovalPage> {
    return Promise.resolve(this.queries.listApprovals(query));
  }
}

/**
 * Answers {@link GetProjectionStatus}. It has no fields, hence no rules to
 * check: class-validator refuses a class without rules, so this handler does
 * not extend {@link ValidatedQueryHandler}.
 */
@QueryHandler(GetProjectionStatus)
export class GetProjectionStatusHandler implements IQueryHandler<GetProjectionStatus, ProjectionStatusEntry[]> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute(): Promise<ProjectionStatusEntry[]> {
    return this.queries.projectionStatus();
  }
}

/** Every read-model query handler. */
export const READ_MODEL_QUERY_HANDLERS = [GetRunHandler, ListRunsHandler, GetRunStepsHandler, GetAuditReviewHandler, ListApprovalsHandler, GetProjectionStatusHandler];
