import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditReviewTotals } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';

/** {@link AuditReviewTotals} in the OpenAPI document. */
@ApiSchema({ name: 'AuditReviewTotals', description: 'Counts of the audit review (always complete, whatever the limit)' })
export class AuditReviewTotalsDoc implements AuditReviewTotals {
  @ApiProperty({ type: 'integer', description: 'Write steps started or recorded' })
  readonly writes!: number;

  @ApiProperty({ type: 'integer', description: 'Writes with a ToolExecuted' })
  readonly writesExecuted!: number;

  @ApiProperty({ type: 'integer', description: 'Writes with their AuditRecorded' })
  readonly writesAudited!: number;

  @ApiProperty({ type: 'integer', description: 'Audited writes whose AuditRecorded came from a later attempt than their ToolExecuted (audited late)' })
  readonly auditedLate!: number;

  @ApiProperty({ type: 'integer', description: 'Executed writes without AuditRecorded' })
  readonly writesWithoutAudit!: number;

  @ApiProperty({ type: 'integer', description: 'Writes whose gap was detected (AuditGapDetected)' })
  readonly gapsDetected!: number;

  @ApiProperty({ type: 'integer', description: 'Runs failed AUDIT_PERSISTENCE_FAILED' })
  readonly runsFailedClosed!: number;

  @ApiProperty({ type: 'integer', description: 'Runs failed AUDIT_MISSING' })
  readonly runsFailedAuditMissing!: number;

  @ApiProperty({ type: 'integer', description: 'Runs failed WRITE_INTERRUPTED' })
  readonly runsWriteInterrupted!: number;

  @ApiProperty({ type: 'integer', description: 'RunRequeued / RunFailed / RunCancelled events that carried an in-flight write' })
  readonly interruptedWrites!: number;

  @ApiProperty({ type: 'integer', description: 'Approval decisions recorded in the audit trail (ApprovalDecisionRecorded) that approved the calls' })
  readonly approvalsGranted!: number;

  @ApiProperty({ type: 'integer', description: 'Approval decisions recorded in the audit trail that denied the calls' })
  readonly approvalsDenied!: number;
}

const _matches: DocMatches<AuditReviewTotalsDoc, AuditReviewTotals> = true;
