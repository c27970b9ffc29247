import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditReviewAnswer } from '../audit/audit-review-answer';
import { AuditReviewReportDoc } from './audit-review-report.doc';
import { AuditStoreVerdictDoc } from './audit-store-verdict.doc';
import type { DocMatches } from './doc-matches';

/** {@link AuditReviewAnswer} (`GET /audit/review`) in the OpenAPI document. */
@ApiSchema({
  name: 'AuditReviewAnswer',
  description: "The audit-review read model's report (the dashboard's figures and lists), with the integrity verdict read from the stores (`verdict`, `findings`)",
})
export class AuditReviewAnswerDoc extends AuditReviewReportDoc implements AuditReviewAnswer {
  @ApiProperty({ type: AuditStoreVerdictDoc, description: 'The integrity verdict, read from the stores (never from the read model)' })
  readonly verdict!: AuditStoreVerdictDoc;

  @ApiProperty({ type: Boolean, description: "The verdict's findings flag: whether the audit's integrity is in doubt" })
  readonly findings!: boolean;
}

const _matches: DocMatches<AuditReviewAnswerDoc, AuditReviewAnswer> = true;
