import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditStoreVerification } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';
import { RunChainBreakDoc } from './run-chain-break.doc';

/** {@link AuditStoreVerification} (`GET /audit/chains`) in the OpenAPI document. */
@ApiSchema({ name: 'AuditStoreVerification', description: 'What verifying the audit hash chains found' })
export class AuditStoreVerificationDoc implements AuditStoreVerification {
  @ApiProperty({ type: 'integer', description: 'Runs with at least one audit record' })
  readonly runs!: number;

  @ApiProperty({ type: 'integer', description: 'Audit records checked' })
  readonly records!: number;

  @ApiProperty({ type: [String], description: 'Runs whose chain has at least one break' })
  readonly brokenRuns!: readonly string[];

  @ApiProperty({ type: [RunChainBreakDoc] })
  readonly breaks!: readonly RunChainBreakDoc[];
}

const _matches: DocMatches<AuditStoreVerificationDoc, AuditStoreVerification> = true;
