import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetAuditReview } from '@agent-ledger/projections';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { AuditReviewQueryDto } from '../runs/run-dtos';
import type { AuditReviewAnswer } from './audit-review-answer';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';

/**
 * `GET /audit/review`: the audit-review read model's report (the dashboard's
 * figures) with the integrity verdict read from the stores, as
 * `agent-ledger audit review` prints them. It is `GetAuditReview` on the
 * QueryBus: the route and the query answer alike, by one code path.
 */
@ApiTags('audit')
@Controller('audit/review')
export class AuditReviewController {
  constructor(private readonly queries: QueryBus) {}

  /**
   * The report, and the verdict: for every run, incremental from the
   * service's verified checkpoint (a full pass when none can be used, when
   * an audit head changed behind it, and with `full=true`); for one run
   * (`runId`), its two streams read whole.
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
    const answer = await this.queries.execute(
      new GetAuditReview({
        ...(query.runId === undefined ? {} : { runId: query.runId }),
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        ...(query.full === undefined ? {} : { full: query.full }),
      }),
    );
    // AgentLedgerModule (which the HTTP API runs on) gives GetAuditReview its verdict: none is a wrong composition.
    if (answer.verdict === null) throw new Error('GetAuditReview answered without the verdict from the stores: the HTTP API needs AgentLedgerModule with readModels');
    return { ...answer, verdict: answer.verdict, findings: answer.verdict.findings };
  }
}
