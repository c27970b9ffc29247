import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RunNotFoundError } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { AuditStoreVerification } from '@agent-ledger/runtime';
import { AUDIT_EVENT_STORE, RunService, verifyAuditStore, verifyRunAuditChain } from '@agent-ledger/runtime';
import { AcrossRuns, RequireScope } from '../auth/auth.decorators';
import { ApiErrorBodyDoc } from '../openapi/api-error-body.doc';
import { AuditStoreVerificationDoc } from '../openapi/audit-store-verification.doc';
import { AuditChainsQueryDto } from './audit-chains-query.dto';

/** `GET /audit/chains`: verifies the hash chains of the audit streams, as `agent-ledger audit verify` does. */
@ApiTags('audit')
@Controller('audit/chains')
export class AuditChainsController {
  constructor(
    @Inject(AUDIT_EVENT_STORE) private readonly auditStore: EventStore,
    private readonly runs: RunService,
  ) {}

  /**
   * Every run's audit chain (one pass over the audit store's `$all`), or one
   * run's (`runId`: its `audit-<runId>` stream; 404 for a run that does not
   * exist or that the key may not read).
   */
  @Get()
  @RequireScope('audit:read')
  @AcrossRuns()
  @ApiOperation({ summary: "Verify the hash chain of every run's audit stream, or of one run's (a key limited to some agents must name one of their runs with runId)" })
  @ApiOkResponse({ description: 'runs and records checked, and every break found (none: every chain is intact)', type: AuditStoreVerificationDoc })
  @ApiBadRequestResponse({ description: 'a refused query (`INVALID_FIELD`)', type: ApiErrorBodyDoc })
  @ApiNotFoundResponse({ description: 'runId names no run, or one the key may not read (`RUN_NOT_FOUND`)', type: ApiErrorBodyDoc })
  async chains(@Query() query: AuditChainsQueryDto): Promise<AuditStoreVerification> {
    if (query.runId === undefined) return verifyAuditStore(this.auditStore);
    // A limited key's entitlement was checked by the guard; any key: a run that was never requested is not found.
    if ((await this.runs.get(query.runId)).status === null) throw new RunNotFoundError(query.runId);
    return verifyRunAuditChain(this.auditStore, query.runId);
  }
}
