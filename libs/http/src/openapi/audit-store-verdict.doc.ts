import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import { AuditStoreVerificationDoc } from './audit-store-verification.doc';
import { AuditVerdictTotalsDoc } from './audit-verdict-totals.doc';
import { AuditVerificationInfoDoc } from './audit-verification-info.doc';
import type { DocMatches } from './doc-matches';
import { StoreWriteWithoutAuditDoc } from './store-write-without-audit.doc';
import { StoreWriteDoc } from './store-write.doc';

/** {@link AuditStoreVerdict} (`GET /audit/chains`, and `verdict` of `GET /audit/review`) in the OpenAPI document. */
@ApiSchema({
  name: 'AuditStoreVerdict',
  description: "The audit's integrity verdict, read from the stores: every audit chain verified, every executed write of the run store matched to its AuditRecorded in the audit store",
})
export class AuditStoreVerdictDoc extends AuditStoreVerificationDoc implements AuditStoreVerdict {
  @ApiProperty({
    type: Boolean,
    description:
      "Whether the audit's integrity is in doubt: a broken chain, an executed write of a settled run without its audit in the store that the contract does not allow (its run neither failed closed nor was cancelled naming it), audits of runs the run store does not know",
  })
  readonly findings!: boolean;

  @ApiProperty({ type: [String], description: 'One sentence per kind of finding (empty when there is none)' })
  readonly problems!: readonly string[];

  @ApiProperty({ type: AuditVerdictTotalsDoc })
  readonly totals!: AuditVerdictTotalsDoc;

  @ApiProperty({ type: [StoreWriteWithoutAuditDoc], description: 'Executed writes of settled runs without their audit in the store, by run then step, allowed by the contract or not (allowedBy)' })
  readonly writesWithoutAudit!: readonly StoreWriteWithoutAuditDoc[];

  @ApiProperty({ type: [StoreWriteDoc], description: 'Writes audited late: by a later attempt than the one that executed them' })
  readonly auditedLate!: readonly StoreWriteDoc[];

  @ApiProperty({ type: [StoreWriteDoc], description: 'Executed writes of runs not settled yet, whose audit is not stored yet' })
  readonly writesAwaitingAudit!: readonly StoreWriteDoc[];

  @ApiProperty({ type: [String], description: 'Runs with audit records that the run store does not know' })
  readonly auditedRunsUnknownToRunStore!: readonly string[];

  @ApiProperty({ type: AuditVerificationInfoDoc })
  readonly verification!: AuditVerificationInfoDoc;
}

const _matches: DocMatches<AuditStoreVerdictDoc, AuditStoreVerdict> = true;
