import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AgentSummary } from '../agents/agent-summary';
import { AgentApprovalsSummaryDoc } from './agent-approvals-summary.doc';
import { AgentToolSummaryDoc } from './agent-tool-summary.doc';
import type { DocMatches } from './doc-matches';

/** {@link AgentSummary} in the OpenAPI document. */
@ApiSchema({ name: 'AgentSummary', description: 'A configured agent as a client may see it (never its instructions nor its model provider)' })
export class AgentSummaryDoc implements AgentSummary {
  @ApiProperty({ type: String, example: 'file-clerk' })
  readonly name!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly description!: string | null;

  @ApiProperty({ type: [AgentToolSummaryDoc], description: 'Its tools, in the order of its configuration' })
  readonly tools!: readonly AgentToolSummaryDoc[];

  @ApiProperty({ type: AgentApprovalsSummaryDoc })
  readonly approvals!: AgentApprovalsSummaryDoc;
}

const _matches: DocMatches<AgentSummaryDoc, AgentSummary> = true;
