import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ToolEffect } from '@agent-ledger/domain';
import type { StoreWrite } from '@agent-ledger/runtime';
import type { DocMatches } from './doc-matches';

/** {@link StoreWrite} (a write of the run store and its audit in the audit store) in the OpenAPI document. */
@ApiSchema({ name: 'StoreWrite', description: 'A write (ToolExecuted of either write effect) read from the run store, with its audit as the audit store holds it' })
export class StoreWriteDoc implements StoreWrite {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: String })
  readonly toolName!: string;

  @ApiProperty({ enum: Object.values(ToolEffect) })
  readonly effect!: ToolEffect;

  @ApiProperty({ type: 'integer', description: 'The attempt (segment) that executed it (ToolExecuted.attempt)' })
  readonly executedAttempt!: number;

  @ApiProperty({ type: 'integer', description: 'When its ToolExecuted was recorded (ms since the epoch)' })
  readonly executedAt!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The attempt that recorded its AuditRecorded; null when the audit store holds none' })
  readonly auditAttempt!: number | null;
}

const _matches: DocMatches<StoreWriteDoc, StoreWrite> = true;
