import type { IQueryHandler } from '@nestjs/cqrs';
import { QueryHandler } from '@nestjs/cqrs';
import type { AuditReviewReport } from '../queries/audit-review-report';
import { ProjectionQueries } from '../queries/projection-queries';
import type { ProjectionStatusEntry } from '../queries/projection-status';
import type { RunPage } from '../queries/run-list-query';
import type { RunStatusRow } from '../run-status/run-status-row';
import type { StepRow } from '../steps/step-row';
import { GetAuditReview, GetProjectionStatus, GetRun, GetRunSteps, ListRuns } from './read-model-queries';

/** Answers {@link GetRun}. */
@QueryHandler(GetRun)
export class GetRunHandler implements IQueryHandler<GetRun, RunStatusRow | null> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute({ runId }: GetRun): Promise<RunStatusRow | null> {
    return Promise.resolve(this.queries.getRun(runId));
  }
}

/** Answers {@link ListRuns}. */
@QueryHandler(ListRuns)
export class ListRunsHandler implements IQueryHandler<ListRuns, RunPage> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute({ query }: ListRuns): Promise<RunPage> {
    return Promise.resolve(this.queries.listRuns(query));
  }
}

/** Answers {@link GetRunSteps}. */
@QueryHandler(GetRunSteps)
export class GetRunStepsHandler implements IQueryHandler<GetRunSteps, StepRow[]> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute({ runId }: GetRunSteps): Promise<StepRow[]> {
    return Promise.resolve(this.queries.getSteps(runId));
  }
}

/** Answers {@link GetAuditReview}. */
@QueryHandler(GetAuditReview)
export class GetAuditReviewHandler implements IQueryHandler<GetAuditReview, AuditReviewReport> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute({ query }: GetAuditReview): Promise<AuditReviewReport> {
    return Promise.resolve(this.queries.auditReview(query));
  }
}

/** Answers {@link GetProjectionStatus}. */
@QueryHandler(GetProjectionStatus)
export class GetProjectionStatusHandler implements IQueryHandler<GetProjectionStatus, ProjectionStatusEntry[]> {
  constructor(private readonly queries: ProjectionQueries) {}
  execute(): Promise<ProjectionStatusEntry[]> {
    return this.queries.projectionStatus();
  }
}

/** Every read-model query handler. */
export const READ_MODEL_QUERY_HANDLERS = [GetRunHandler, ListRunsHandler, GetRunStepsHandler, GetAuditReviewHandler, GetProjectionStatusHandler];
