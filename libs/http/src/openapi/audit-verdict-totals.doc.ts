import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditVerdictTotals } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';

/** {@link AuditVerdictTotals} in the OpenAPI document. */
@ApiSchema({ name: 'AuditVerdictTotals', description: 'Counts of the store verdict (always complete, whatever the limit)' })
export class AuditVerdictTotalsDoc implements AuditVerdictTotals {
  @ApiProperty({ type: 'integer', description: 'Writes with a ToolExecuted in the run store' })
  readonly writesExecuted!: number;

  @ApiProperty({ type: 'integer', description: 'Of those, writes whose AuditRecorded is in the audit store' })
  readonly writesAudited!: number;

  @ApiProperty({ type: 'integer', description: 'Of the audited, writes audited late: by a later attempt than the one that executed them' })
  readonly auditedLate!: number;

  @ApiProperty({ type: 'integer', description: 'Executed writes of settled runs without their AuditRecorded in the audit store, allowed by the contract or not' })
  readonly writesWithoutAudit!: number;

  @ApiProperty({ type: 'integer', description: 'Of those, writes that nothing in the contract allows (neither failed closed nor cancelled naming the write): a finding' })
  readonly writesWithoutAuditNotAllowed!: number;

  @ApiProperty({ type: 'integer', description: 'Executed writes of runs not settled yet whose audit is not stored yet (not a finding)' })
  readonly writesAwaitingAudit!: number;

  @ApiProperty({ type: 'integer', description: 'Settled runs with an executed write that nothing allows to be unaudited and no audit record at all in the audit store (the mark of another audit store)' })
  readonly runsWithoutAuditStream!: number;

  @ApiProperty({ type: 'integer', description: 'Runs with audit records that the run store does not know (a finding)' })
  readonly auditedRunsUnknownToRunStore!: number;
}

const _matches: DocMatches<AuditVerdictTotalsDoc, AuditVerdictTotals> = true;
