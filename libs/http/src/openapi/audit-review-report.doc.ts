import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditReviewReport } from '@agent-ledger/projections';
import { AuditInterruptionRowDoc } from './audit-interruption-row.doc';
import { AuditReviewTotalsDoc } from './audit-review-totals.doc';
import { AuditRunRowDoc } from './audit-run-row.doc';
import { AuditWriteViewDoc } from './audit-write-view.doc';
import type { DocMatches } from './doc-matches';

/** {@link AuditReviewReport} (`GET /audit/review`) in the OpenAPI document. */
@ApiSchema({ name: 'AuditReviewReport', description: 'Every write and its audit state, and the runs and writes that need a look; each list holds at most `limit` rows' })
export class AuditReviewReportDoc implements AuditReviewReport {
  @ApiProperty({ type: AuditReviewTotalsDoc })
  readonly totals!: AuditReviewTotalsDoc;

  @ApiProperty({ type: [AuditWriteViewDoc], description: 'Every write, by run then step' })
  readonly writes!: readonly AuditWriteViewDoc[];

  @ApiProperty({ type: [AuditWriteViewDoc], description: 'Executed writes without their audit event' })
  readonly writesWithoutAudit!: readonly AuditWriteViewDoc[];

  @ApiProperty({ type: [AuditWriteViewDoc], description: 'Writes whose gap was detected' })
  readonly gaps!: readonly AuditWriteViewDoc[];

  @ApiProperty({ type: [AuditWriteViewDoc], description: 'Writes audited late: by a later attempt than the one that executed them' })
  readonly auditedLate!: readonly AuditWriteViewDoc[];

  @ApiProperty({ type: [AuditRunRowDoc], description: 'Runs failed AUDIT_PERSISTENCE_FAILED' })
  readonly runsFailedClosed!: readonly AuditRunRowDoc[];

  @ApiProperty({ type: [AuditRunRowDoc], description: 'Runs failed AUDIT_MISSING' })
  readonly runsFailedAuditMissing!: readonly AuditRunRowDoc[];

  @ApiProperty({ type: [AuditInterruptionRowDoc], description: 'Writes in flight when their run was requeued (reaped or failed), failed or cancelled' })
  readonly interruptedWrites!: readonly AuditInterruptionRowDoc[];
}

const _matches: DocMatches<AuditReviewReportDoc, AuditReviewReport> = true;
