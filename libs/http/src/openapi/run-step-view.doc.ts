import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { StepKind, ToolEffect } from '@agent-ledger/domain';
import type { RunStepView } from '../runs/run-view';
import type { DocMatches } from './doc-matches';
import { nullableEnum } from './schema-fragments';

const STEP_STATUSES = ['started', 'completed'] as const;
const TOOL_OUTCOMES = ['succeeded', 'failed', 'denied'] as const;

/** {@link RunStepView} (a step of the run view) in the OpenAPI document. */
@ApiSchema({ name: 'RunStepView', description: "A step of a run, as the run's own stream tells it" })
export class RunStepViewDoc implements RunStepView {
  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ enum: Object.values(StepKind) })
  readonly kind!: StepKind;

  @ApiProperty({ type: 'integer' })
  readonly round!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "The tool call's position in the round; null for a model call" })
  readonly callIndex!: number | null;

  @ApiProperty({ type: String, nullable: true })
  readonly toolName!: string | null;

  @ApiProperty(nullableEnum(ToolEffect))
  readonly effect!: ToolEffect | null;

  @ApiProperty({ enum: STEP_STATUSES })
  readonly status!: (typeof STEP_STATUSES)[number];

  @ApiProperty({ type: 'integer' })
  readonly starts!: number;

  @ApiProperty({ ...nullableEnum(TOOL_OUTCOMES), description: 'For a tool call, once completed: `succeeded`, `failed`, or `denied` (a person denied it: it never executed, `starts` 0; as the steps read model says); null otherwise' })
  readonly outcome!: (typeof TOOL_OUTCOMES)[number] | null;
}

const _matches: DocMatches<RunStepViewDoc, RunStepView> = true;
