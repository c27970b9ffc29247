import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TerminationReason } from '@agent-ledger/domain';
import type { StoreWriteWithoutAudit, UnauditedWriteAllowance } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';
import { StoreWriteDoc } from './store-write.doc';

const ALLOWANCES = ['failedClosed', 'cancelledInFlight'] as const satisfies readonly UnauditedWriteAllowance[];

/** {@link StoreWriteWithoutAudit} in the OpenAPI document. */
@ApiSchema({ name: 'StoreWriteWithoutAudit', description: 'An executed write of a settled run whose AuditRecorded is not in the audit store' })
export class StoreWriteWithoutAuditDoc extends StoreWriteDoc implements StoreWriteWithoutAudit {
  @ApiProperty({ enum: Object.values(TerminationReason), description: 'How its run ended (RunCompleted: COMPLETED, RunCancelled: CANCELLED, RunFailed: its reason)' })
  readonly runEnd!: TerminationReason;

  @ApiProperty({
    ...nullableEnum(ALLOWANCES),
    description: 'What allows it under the contract: failedClosed (its run failed as not retryable), cancelledInFlight (its run was cancelled naming it); null: nothing does, its audit is missing',
  })
  readonly allowedBy!: UnauditedWriteAllowance | null;
}

const _matches: DocMatches<StoreWriteWithoutAuditDoc, StoreWriteWithoutAudit> = true;
