import { Query } from '@nestjs/cqrs';
import type { AuditReviewQuery, AuditReviewReport } from '../queries/audit-review-report';
import type { ProjectionStatusEntry } from '../queries/projection-status';
import type { ListRunsQuery, RunPage } from '../queries/run-list-query';
import type { RunStatusRow } from '../run-status/run-status-row';
import type { StepRow } from '../steps/step-row';

/*
 * The read models' queries, for the QueryBus. Each answers from the read
 * models (which lag the store by the projection's delay; see
 * `GetProjectionStatus`), never from the event streams.
 */

/** One run's status row; null when the read model does not know the run (yet). */
export class GetRun extends Query<RunStatusRow | null> {
  constructor(readonly runId: string) {
    super();
  }
}

/** A page of runs, newest first, filtered. */
export class ListRuns extends Query<RunPage> {
  constructor(readonly query: ListRunsQuery = {}) {
    super();
  }
}

/** The steps of a run, in order. */
export class GetRunSteps extends Query<StepRow[]> {
  constructor(readonly runId: string) {
    super();
  }
}

/** The audit-review report: totals, writes without audit, gaps, runs failed closed, interrupted writes. */
export class GetAuditReview extends Query<AuditReviewReport> {
  constructor(readonly query: AuditReviewQuery = {}) {
    super();
  }
}

/** Each projection's checkpoint, events applied and lag behind its store. */
export class GetProjectionStatus extends Query<ProjectionStatusEntry[]> {}
