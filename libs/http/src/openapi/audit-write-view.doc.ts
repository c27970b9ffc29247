import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TerminationReason, ToolEffect } from '@agent-ledger/domain';
import type { AuditWriteView } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

const WRITE_OUTCOMES = ['succeeded', 'failed'] as const;

/** {@link AuditWriteView} (a write of the audit review) in the OpenAPI document. Times are ms since the epoch. */
@ApiSchema({ name: 'AuditWriteView', description: 'One write step (IDEMPOTENT_WRITE or NON_IDEMPOTENT_WRITE) and its audit state' })
export class AuditWriteViewDoc implements AuditWriteView {
  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly toolName!: string | null;

  @ApiProperty(nullableEnum(ToolEffect))
  readonly effect!: ToolEffect | null;

  @ApiProperty({ type: String, nullable: true })
  readonly idempotencyKey!: string | null;

  @ApiProperty({ type: 'integer', description: 'Times the write was started (the fence); more than one after a retried idempotent write' })
  readonly starts!: number;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly firstStartedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When its ToolExecuted was recorded; null if it never was (interrupted, or still running)' })
  readonly executedAt!: number | null;

  @ApiProperty(nullableEnum(WRITE_OUTCOMES))
  readonly outcome!: (typeof WRITE_OUTCOMES)[number] | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The attempt that executed it (ToolExecuted.attempt); null if not executed, or projected before this field existed' })
  readonly executedAttempt!: number | null;

  @ApiProperty({ type: Boolean })
  readonly audited!: boolean;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The attempt that recorded its AuditRecorded; later than executedAttempt when it was audited late' })
  readonly auditAttempt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly auditSequence!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly auditRecordedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly gapDetectedAt!: number | null;

  @ApiProperty({ type: String, nullable: true })
  readonly gapDetectedBy!: string | null;

  @ApiProperty({ type: Boolean, nullable: true, description: 'Whether the run was already settled when the gap was detected (so it did not fail because of it)' })
  readonly gapRunAlreadySettled!: boolean | null;

  @ApiProperty({
    ...nullableEnum(TerminationReason),
    description:
      'Whether its run failed because of it, and how: AUDIT_PERSISTENCE_FAILED (executed, its audit not stored), AUDIT_MISSING (the gap saga found it before the run settled), WRITE_INTERRUPTED (in flight when the run was interrupted); null otherwise',
  })
  readonly failedRunReason!: TerminationReason | null;
}

const _matches: DocMatches<AuditWriteViewDoc, AuditWriteView> = true;
