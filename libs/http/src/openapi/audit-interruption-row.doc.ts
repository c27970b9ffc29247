import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { TerminationReason, ToolEffect } from '@agent-ledger/domain';
import type { AuditInterruptionRow } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

const INTERRUPTING_EVENTS = ['RunRequeued', 'RunFailed', 'RunCancelled'] as const;
const REQUEUE_CAUSES = ['failure', 'leaseExpired'] as const;

/** {@link AuditInterruptionRow} (a write in flight when its run was interrupted) in the OpenAPI document. */
@ApiSchema({
  name: 'AuditInterruptionRow',
  description: 'A write that was in flight when its run was requeued (reaped or failed), failed or cancelled; its outcome is unknown. Times are ms since the epoch.',
})
export class AuditInterruptionRowDoc implements AuditInterruptionRow {
  @ApiProperty({ type: String, description: '`<runId>@<revision of the run event>`' })
  readonly interruptionId!: string;

  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: String })
  readonly toolName!: string;

  @ApiProperty({ enum: Object.values(ToolEffect) })
  readonly effect!: ToolEffect;

  @ApiProperty({ type: String })
  readonly idempotencyKey!: string;

  @ApiProperty({ type: 'integer', description: 'The attempt during which the write was in flight' })
  readonly attempt!: number;

  @ApiProperty({ type: 'integer' })
  readonly startedAt!: number;

  @ApiProperty({ enum: INTERRUPTING_EVENTS })
  readonly eventType!: (typeof INTERRUPTING_EVENTS)[number];

  @ApiProperty({ ...nullableEnum(REQUEUE_CAUSES), description: 'For a requeue: `leaseExpired` (reaped) or `failure`; null otherwise' })
  readonly cause!: (typeof REQUEUE_CAUSES)[number] | null;

  @ApiProperty({ ...nullableEnum(TerminationReason), description: 'For a failure: its termination reason; CANCELLED for a cancel; null for a requeue' })
  readonly reason!: TerminationReason | null;

  @ApiProperty({ type: 'integer' })
  readonly at!: number;
}

const _matches: DocMatches<AuditInterruptionRowDoc, AuditInterruptionRow> = true;
