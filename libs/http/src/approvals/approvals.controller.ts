import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { ApprovalPage } from '@agent-ledger/projections';
import { ProjectionQueries } from '@agent-ledger/projections';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';
import { RequireScope } from '../auth/auth.decorators';
import { listEntitledApprovals } from '../runs/entitled-runs';
import { ListApprovalsQueryDto } from '../runs/run-dtos';

/**
 * `/approvals`: the requests for a person's approval, from the approvals read
 * model (one row per request: a run and a model round), newest first. A key
 * limited to some agents sees the requests of their runs only, as `GET /runs`
 * lists their runs only. Decisions are taken on the run: `POST /runs/{runId}/approval`.
 */
@ApiTags('approvals')
@Controller('approvals')
export class ApprovalsController {
  constructor(private readonly queries: ProjectionQueries) {}

  /** Requests for approval, newest first, filtered, a page at a time (`state=pending`: the runs waiting for a decision now). */
  @Get()
  @RequireScope('runs:read')
  @ApiOperation({ summary: 'List requests for approval (approvals read model): filters, cursor pages, newest first; state=pending lists the runs waiting for a decision' })
  @ApiStoreFaults()
  @ApiOkResponse({ description: 'a page of requests for approval; `nextCursor` is null on the last page' })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`, `INVALID_QUERY`)' })
  @ApiNotFoundResponse({ description: 'a key limited to some agents named with runId a run it may not read (`RUN_NOT_FOUND`)' })
  list(@Query() query: ListApprovalsQueryDto, @Caller() caller: ApiCaller): ApprovalPage {
    const filter = { state: query.state, agent: query.agent, runId: query.runId, since: query.since, until: query.until, limit: query.limit, cursor: query.cursor };
    return caller.agents === null ? this.queries.listApprovals(filter) : listEntitledApprovals(this.queries, filter, caller.agents);
  }
}
