import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ToolEffect } from '@agent-ledger/domain';
import type { AgentToolSummary } from '../agents/agent-summary';
import type { DocMatches } from './doc-matches';

/** {@link AgentToolSummary} in the OpenAPI document. */
@ApiSchema({ name: 'AgentToolSummary', description: "One of an agent's tools, with the effect its code declares" })
export class AgentToolSummaryDoc implements AgentToolSummary {
  @ApiProperty({ type: String, example: 'files.write' })
  readonly name!: string;

  @ApiProperty({ enum: Object.values(ToolEffect), description: 'From the tool registry; NON_IDEMPOTENT_WRITE for a name no tool is registered under' })
  readonly effect!: ToolEffect;
}

const _matches: DocMatches<AgentToolSummaryDoc, AgentToolSummary> = true;
