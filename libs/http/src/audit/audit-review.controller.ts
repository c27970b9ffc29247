import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventStore } from '@agent-ledger/event-store';
import { ProjectionQueries, ProjectionRunnerPool } from '@agent-ledger/projections';
import { AUDIT_EVENT_STORE, AuditStoreReviewer, RUN_EVENT_STORE, reviewRunAudit } from '@agent-ledger/runtime';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { AuditReviewQueryDto } from '../runs/run-dtos';
import type { AuditReviewAnswer } from './audit-review-answer';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';

/**
 * How long `GET /audit/review` waits, after reading the verdict from the
 * stores, for this process's read models to apply what the stores hold: so
 * that the report's figures are not older than its verdict (a write audited a
 * moment ago is never reported without its audit).
 */
export const AUDIT_REVIEW_SETTLE_WAIT_MS = 2_000;

/**
 * `GET /audit/review`: the audit-review read model's report (the dashboard's
 * figures) with the integrity verdict read from the stores, as
 * `agent-ledger audit review` prints them.
 */
@ApiTags('audit')
@Controller('audit/review')
export class AuditReviewController {
  constructor(
    private readonly queries: ProjectionQueries,
    private readonly runners: ProjectionRunnerPool,
    private readonly reviewer: AuditStoreReviewer,
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
  ) {}

  /**
   * The report, and the verdict: for every run, incremental from this
   * process's verified checkpoint (a full pass the first time, and whenever
   * an audit head changed behind it); for one run (`runId`), its two streams
   * read whole.
   */
  @Get()
  @RequireScope('audit:read')
  @AcrossRuns()
  @ApiOperation({ summary: 'The audit-review report and the integrity verdict read from the stores (a key limited to some agents must name one of their runs with runId)' })
  @ApiStoreFaults()
  @ApiOkResponse({ description: 'totals and lists of the audit review, and the verdict (`findings`: the integrity of the audit is in doubt)' })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'runId names a run the key may not read (`RUN_NOT_FOUND`)' })
  async review(@Query() query: AuditReviewQueryDto): Promise<AuditReviewAnswer> {
    const limit = query.limit;
    const verdict =
      query.runId === undefined
        ? await this.reviewer.review({ limit })
        : await reviewRunAudit({ runStore: this.runStore, auditStore: this.auditStore }, query.runId, { limit });
    // The read model is read once it has applied what the stores held after the verdict: its figures are at least as recent.
    await this.runners.settled(AUDIT_REVIEW_SETTLE_WAIT_MS);
    const report = this.queries.auditReview({ runId: query.runId, limit });
    return { ...report, verdict, findings: verdict.findings };
  }
}
