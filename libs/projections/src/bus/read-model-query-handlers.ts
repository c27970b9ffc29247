import { Inject, Optional } from '@nestjs/common';
import type { IQueryHandler } from '@nestjs/cqrs';
import { QueryHandler } from '@nestjs/cqrs';
import { ValidatedQueryHandler } from '@agent-ledger/validation';
import type { ApprovalPage } from '../queries/approval-list-query';
import type { AuditReviewQuery } from '../queries/audit-review-report';
import { ProjectionQueries } from '../queries/projection-queries';
import type { ProjectionStatusEntry } from '../queries/projection-status';
import type { RunPage } from '../queries/run-list-query';
import type { RunStatusRow } from '../run-status/run-status-row';
import type { StepRow } from '../steps/step-row';
import { ProjectionRunnerPool } from '../nest/projection-runner-pool';
import type { AuditReviewAnswer, AuditVerdictSource } from './audit-review-answer';
import { AUDIT_REVIEW_SETTLE_WAIT_MS, AUDIT_VERDICT_SOURCE } from './audit-review-answer';
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

/**
 * Answers {@link GetAuditReview}: the verdict from the {@link AUDIT_VERDICT_SOURCE}
 * (when the runtime gives one), then the read model's report once this
 * process's read models have applied what the stores hold. `GET /audit/review`
 * answers through it.
 */
@QueryHandler(GetAuditReview)
export class GetAuditReviewHandler extends ValidatedQueryHandler<GetAuditReview> implements IQueryHandler<GetAuditReview, AuditReviewAnswer> {
  constructor(
    private readonly queries: ProjectionQueries,
    private readonly runners: ProjectionRunnerPool,
    @Optional() @Inject(AUDIT_VERDICT_SOURCE) private readonly verdicts: AuditVerdictSource | null = null,
  ) {
    super();
  }
  protected async handle({ query }: GetAuditReview): Promise<AuditReviewAnswer> {
    const report: AuditReviewQuery = { ...(query.runId === undefined ? {} : { runId: query.runId }), ...(query.limit === undefined ? {} : { limit: query.limit }) };
    if (this.verdicts === null) return { ...this.queries.auditReview(report), verdict: null, findings: null };
    const verdict = await this.verdicts.verdict({ ...report, ...(query.full === undefined ? {} : { full: query.full }) });
    // The read model is read once it has applied what the stores held after the verdict: its figures are at least as recent.
    await this.runners.settled(AUDIT_REVIEW_SETTLE_WAIT_MS);
    return { ...this.queries.auditReview(report), verdict, findings: verdict.findings };
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
