import { Controller, Get, Inject, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventStore } from '@agent-ledger/event-store';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import { AUDIT_EVENT_STORE, AuditStoreReviewer, GetRunState, RUN_EVENT_STORE, reviewRunAudit } from '@agent-ledger/runtime';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { AuditChainsQueryDto } from './audit-chains-query.dto';
import { ApiStoreFaults } from '../openapi/store-faults.decorator';

/**
 * `GET /audit/chains`: the integrity verdict from a full pass over the stores
 * (every audit chain verified, every executed write matched to its audit), as
 * `agent-ledger audit verify` gives it.
 */
@ApiTags('audit')
@Controller('audit/chains')
export class AuditChainsController {
  constructor(
    @Inject(RUN_EVENT_STORE) private readonly runStore: EventStore,
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    private readonly queries: QueryBus,
    private readonly reviewer: AuditStoreReviewer,
  ) {}

  /**
   * Every run (one full pass over each store's `$all`, which also renews the
   * verified checkpoint `GET /audit/review` continues from), or one run
   * (`runId`: its run stream and its `audit-<runId>` stream; 404 for a run
   * that does not exist or that the key may not read).
   */
  @Get()
  @RequireScope('audit:read')
  @AcrossRuns()
  @ApiOperation({
    summary: "Verify every run's audit chain and match every executed write to its audit, from the stores, or one run's (a key limited to some agents must name one of their runs with runId)",
  })
  @ApiStoreFaults()
  @ApiOkResponse({ description: 'the verdict: runs and records checked, every break found, writes without audit, audited late (`findings`: the integrity of the audit is in doubt)' })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`)' })
  @ApiNotFoundResponse({ description: 'runId names no run, or one the key may not read (`RUN_NOT_FOUND`)' })
  async chains(@Query() query: AuditChainsQueryDto): Promise<AuditStoreVerdict> {
    if (query.runId === undefined) return this.reviewer.review({ full: true });
    // A limited key's entitlement was checked by the guard; any key: a run that was never requested is not found (RunNotFoundError).
    await this.queries.execute(new GetRunState({ runId: query.runId }));
    return reviewRunAudit({ runStore: this.runStore, auditStore: this.auditStore }, query.runId);
  }
}
