import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ApprovalCall, JsonObject } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { DocMatches } from './doc-matches';

const REQUIREMENTS = ['write', 'tool'] as const;

/** {@link ApprovalCall} (a tool call that waits for approval) in the OpenAPI document. */
@ApiSchema({ name: 'ApprovalCall', description: 'One tool call that waits for approval: what it would do, exactly as the model asked for it' })
export class ApprovalCallDoc implements ApprovalCall {
  @ApiProperty({ type: String })
  readonly stepId!: string;

  @ApiProperty({ type: 'integer', description: "The call's position in the round" })
  readonly callIndex!: number;

  @ApiProperty({ type: String })
  readonly toolName!: string;

  @ApiProperty({ enum: Object.values(ToolEffect) })
  readonly effect!: ToolEffect;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The arguments the model gave' })
  readonly arguments!: JsonObject;

  @ApiProperty({ enum: REQUIREMENTS, description: '`write`: a write the agent does not pre-approve; `tool`: the tool asks for approval whatever its effect' })
  readonly requirement!: (typeof REQUIREMENTS)[number];
}

const _matches: DocMatches<ApprovalCallDoc, ApprovalCall> = true;
