import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FailureClass, StepKind, ToolEffect } from '@agent-ledger/domain';
import type { StepRow } from '@agent-ledger/projections';
import { StepApproval, StepAuditState } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

const STEP_STATUSES = ['started', 'completed'] as const;
const STEP_OUTCOMES = ['succeeded', 'failed', 'responded', 'denied'] as const;

/** {@link StepRow} (the steps read model's row) in the OpenAPI document. Times are ms since the epoch. */
@ApiSchema({
  name: 'StepRow',
  description: 'One step of a run, as the steps read model shows it. A row created by its audit event before its run events were projected has null run-side fields until they arrive.',
})
export class StepRowDoc implements StepRow {
  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly round!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: "The tool call's position in the round; null for a model call" })
  readonly callIndex!: number | null;

  @ApiProperty(nullableEnum(StepKind))
  readonly kind!: StepKind | null;

  @ApiProperty({ type: String, nullable: true })
  readonly toolName!: string | null;

  @ApiProperty(nullableEnum(ToolEffect))
  readonly effect!: ToolEffect | null;

  @ApiProperty({ type: String, nullable: true })
  readonly idempotencyKey!: string | null;

  @ApiProperty({ ...nullableEnum(STEP_STATUSES), description: '`started` until ModelResponded / ToolExecuted; null if only its audit event is known' })
  readonly status!: (typeof STEP_STATUSES)[number] | null;

  @ApiProperty({
    ...nullableEnum(STEP_OUTCOMES),
    description: '`succeeded` / `failed` for a tool, `responded` for a model call, `denied` for a call a person denied (it never started: `starts` 0); null until completed',
  })
  readonly outcome!: (typeof STEP_OUTCOMES)[number] | null;

  @ApiProperty({ type: 'integer', description: 'How many times it was started (more than once after a retry of an in-flight write)' })
  readonly starts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The attempt (claim) of its last start' })
  readonly attempt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly firstStartedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly lastStartedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly completedAt!: number | null;

  @ApiProperty(nullableEnum(FailureClass))
  readonly errorClass!: FailureClass | null;

  @ApiProperty({ type: String, nullable: true })
  readonly errorMessage!: string | null;

  @ApiProperty({ enum: Object.values(StepAuditState), description: 'Where its audit event stands' })
  readonly auditState!: StepAuditState;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly auditSequence!: number | null;

  @ApiProperty({ ...nullableEnum(STEP_OUTCOMES), description: "The outcome its audit record states; `denied` when the record is the person's denial (ApprovalDecisionRecorded)" })
  readonly auditOutcome!: (typeof STEP_OUTCOMES)[number] | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly auditRecordedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly gapDetectedAt!: number | null;

  @ApiProperty({
    ...nullableEnum(StepApproval),
    description: "For a tool call that needed approval: `preApproved` (by the agent's configuration), `granted` (by a person) or `denied`; null for a call that needed none, a model call, or one still waiting for the decision",
  })
  readonly approval!: StepApproval | null;
}

const _matches: DocMatches<StepRowDoc, StepRow> = true;
