import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AuditVerificationInfo } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';

const MODES = ['full', 'incremental'] as const satisfies readonly AuditVerificationInfo['mode'][];

/** {@link AuditVerificationInfo} in the OpenAPI document. */
@ApiSchema({ name: 'AuditVerificationInfo', description: 'How a store verdict was reached' })
export class AuditVerificationInfoDoc implements AuditVerificationInfo {
  @ApiProperty({ enum: MODES, description: "full: both stores read from their first event; incremental: from this process's verified checkpoint, after re-reading every run's audit head" })
  readonly mode!: AuditVerificationInfo['mode'];

  @ApiProperty({ type: String, nullable: true, description: 'Why a full pass ran (null for an incremental one)' })
  readonly fullBecause!: string | null;

  @ApiProperty({ type: 'integer', description: 'Events read from the two stores' })
  readonly eventsRead!: number;

  @ApiProperty({ type: 'integer', description: 'Audit heads re-read to check the checkpoint' })
  readonly headsChecked!: number;

  @ApiProperty({ type: 'integer' })
  readonly durationMs!: number;
}

const _matches: DocMatches<AuditVerificationInfoDoc, AuditVerificationInfo> = true;
