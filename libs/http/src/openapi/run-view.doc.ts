import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { JsonValue } from '@agent-ledger/domain';
import { RunMode, RunStatus, TerminationReason } from '@agent-ledger/domain';
import type { RunView } from '../runs/run-view';
import type { DocMatches } from './doc-matches';
import { PendingApprovalDoc } from './pending-approval.doc';
import { PendingInputDoc } from './pending-input.doc';
import { RunStepViewDoc } from './run-step-view.doc';
import { jsonValueSchema, nullableEnum } from './schema-fragments';

/** {@link RunView} (a run as its own stream tells it) in the OpenAPI document. */
@ApiSchema({
  name: 'RunView',
  description: "A run as its own stream tells it (the runtime's state, not the read model): the answer of an interactive start, a cancel, an approval decision and an input",
})
export class RunViewDoc implements RunView {
  @ApiProperty({ type: String })
  readonly runId!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly agent!: string | null;

  @ApiProperty(nullableEnum(RunMode))
  readonly mode!: RunMode | null;

  @ApiProperty({ ...nullableEnum(RunStatus), description: 'Null only for a run that was never requested' })
  readonly status!: RunStatus | null;

  @ApiProperty({ ...nullableEnum(TerminationReason), description: 'The termination reason once settled; null before' })
  readonly reason!: TerminationReason | null;

  @ApiProperty({ type: Boolean, nullable: true, description: 'For a settled run: whether it was dead-lettered; null before settlement' })
  readonly deadLettered!: boolean | null;

  @ApiProperty({ type: 'integer', description: 'Claims so far' })
  readonly attempts!: number;

  @ApiProperty({ type: 'integer' })
  readonly requeues!: number;

  @ApiProperty({ type: Boolean })
  readonly cancelRequested!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'key:ops', description: "Who asked for the cancel, as its principal's label: `key:<id>`, `development`, `bus:<id>`, or `unverified:<name>` for a cancel recorded before principals were typed" })
  readonly cancelRequestedBy!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The write in flight (the write fence), if any' })
  readonly inFlightStepId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The model's final answer, once given" })
  readonly answer!: string | null;

  @ApiProperty({ type: PendingApprovalDoc, nullable: true, description: 'What the run waits to have approved, while WAITING_FOR_APPROVAL; null otherwise' })
  readonly pendingApproval!: PendingApprovalDoc | null;

  @ApiProperty({ type: PendingInputDoc, nullable: true, description: 'The input a tool asked for, while WAITING_FOR_INPUT; null otherwise' })
  readonly pendingInput!: PendingInputDoc | null;

  @ApiProperty({ ...jsonValueSchema(), description: 'The task, as given to POST /runs: any JSON value' })
  readonly input!: JsonValue;

  @ApiProperty({ type: [RunStepViewDoc], description: 'By round, then call' })
  readonly steps!: readonly RunStepViewDoc[];
}

const _matches: DocMatches<RunViewDoc, RunView> = true;
