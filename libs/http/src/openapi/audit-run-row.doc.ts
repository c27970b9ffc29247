import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FailureClass, RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { AuditRunRow } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

/** {@link AuditRunRow} (a settled run of the audit review) in the OpenAPI document. */
@ApiSchema({ name: 'AuditRunRow', description: 'How a run ended, for the audit review' })
export class AuditRunRowDoc implements AuditRunRow {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ enum: Object.values(RunStatus) })
  readonly status!: RunStatus;

  @ApiProperty({ enum: Object.values(TerminationReason) })
  readonly reason!: TerminationReason;

  @ApiProperty(nullableEnum(FailureClass))
  readonly failureClass!: FailureClass | null;

  @ApiProperty({ type: String, nullable: true })
  readonly failureMessage!: string | null;

  @ApiProperty({ type: Boolean })
  readonly deadLettered!: boolean;

  @ApiProperty({ type: 'integer', description: 'ms since the epoch' })
  readonly settledAt!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The write in flight at the settlement, if any' })
  readonly inFlightStepId!: string | null;
}

const _matches: DocMatches<AuditRunRowDoc, AuditRunRow> = true;
