import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FailureClass, RunMode, RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { RunStatusRow } from '@agent-ledger/projections';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

/** {@link RunStatusRow} (the run-status read model's row) in the OpenAPI document. Times are ms since the epoch. */
@ApiSchema({ name: 'RunStatusRow', description: 'One run, as the run-status read model shows it. Times are ms since the epoch, from the events.' })
export class RunStatusRowDoc implements RunStatusRow {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String })
  readonly agent!: string;

  @ApiProperty({ enum: Object.values(RunMode) })
  readonly mode!: RunMode;

  @ApiProperty({ enum: Object.values(RunStatus) })
  readonly status!: RunStatus;

  @ApiProperty({ ...nullableEnum(TerminationReason), description: 'The termination reason once settled; null before' })
  readonly reason!: TerminationReason | null;

  @ApiProperty({ ...nullableEnum(FailureClass), description: 'The class of the last recorded failure (a requeue or the final failure); null if none' })
  readonly failureClass!: FailureClass | null;

  @ApiProperty({ type: String, nullable: true })
  readonly failureCode!: string | null;

  @ApiProperty({ type: String, nullable: true })
  readonly failureMessage!: string | null;

  @ApiProperty({ type: Boolean, nullable: true, description: 'For a settled run: whether it was dead-lettered; null before settlement' })
  readonly deadLettered!: boolean | null;

  @ApiProperty({ type: 'integer', description: "Claims so far (the current or last segment's attempt)" })
  readonly attempts!: number;

  @ApiProperty({ type: 'integer', description: 'Requeues so far (failure retries and stale reclaims)' })
  readonly requeues!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The lease owner while RUNNING; null otherwise' })
  readonly leaseOwner!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly leaseExpiresAt!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'The step started and not yet completed, if any' })
  readonly currentStepId!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A write step started and not completed (the write fence); after a requeue or a settlement, the write that was in flight then (its outcome unknown)',
  })
  readonly inFlightStepId!: string | null;

  @ApiProperty({ type: Boolean })
  readonly cancelRequested!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'key:ops', description: "Who asked for the cancel, as its principal's label: `key:<id>`, `development`, `bus:<id>`, or `unverified:<name>` for a cancel recorded before principals were typed" })
  readonly cancelRequestedBy!: string | null;

  @ApiProperty({ type: 'integer' })
  readonly requestedAt!: number;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly lastClaimedAt!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  readonly settledAt!: number | null;

  @ApiProperty({ type: 'integer', description: 'The time of the latest event applied (from its payload)' })
  readonly updatedAt!: number;

  @ApiProperty({ type: 'integer', description: 'Distinct steps, whatever their kind' })
  readonly stepsTotal!: number;

  @ApiProperty({ type: 'integer' })
  readonly llmSteps!: number;

  @ApiProperty({ type: 'integer' })
  readonly readOnlySteps!: number;

  @ApiProperty({ type: 'integer' })
  readonly idempotentWriteSteps!: number;

  @ApiProperty({ type: 'integer' })
  readonly nonIdempotentWriteSteps!: number;

  @ApiProperty({ type: 'integer', description: 'Steps whose missing audit event was detected (AuditGapDetected)' })
  readonly auditGaps!: number;

  @ApiProperty({ type: 'integer', description: 'The last revision of run-<runId> applied (diagnostics)' })
  readonly streamRevision!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'While WAITING_FOR_APPROVAL or WAITING_FOR_INPUT: when the run started to wait; null otherwise' })
  readonly waitingSince!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'While WAITING_FOR_APPROVAL: the model round whose calls wait for a decision; null otherwise' })
  readonly approvalRound!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'While WAITING_FOR_INPUT: the step of the tool that asked for input; null otherwise' })
  readonly inputStepId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The model's final answer once COMPLETED; null otherwise" })
  readonly finalAnswer!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'For a continuation run: the dead-lettered run it continues; null otherwise' })
  readonly continuationOf!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Once an operator requeued this dead-lettered run: the continuation run; null otherwise' })
  readonly continuedAs!: string | null;
}

const _matches: DocMatches<RunStatusRowDoc, RunStatusRow> = true;
