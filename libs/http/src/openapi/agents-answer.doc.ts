import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { AgentsAnswer } from '../agents/agent-summary';
import { AgentSummaryDoc } from './agent-summary.doc';
import type { DocMatches } from './doc-matches';

/** {@link AgentsAnswer} (`GET /agents`) in the OpenAPI document. */
@ApiSchema({ name: 'AgentsAnswer', description: 'The configured agents the key may use, by name' })
export class AgentsAnswerDoc implements AgentsAnswer {
  @ApiProperty({ type: [AgentSummaryDoc], description: 'By name' })
  readonly agents!: readonly AgentSummaryDoc[];
}

const _matches: DocMatches<AgentsAnswerDoc, AgentsAnswer> = true;
