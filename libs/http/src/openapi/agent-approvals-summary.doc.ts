import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { OnDenial } from '@agent-ledger/domain';
import { ON_DENIAL_VALUES } from '@agent-ledger/runtime';
import type { AgentSummary } from '../agents/agent-summary';
import type { DocMatches } from './doc-matches';

/** The `approvals` of an {@link AgentSummary} in the OpenAPI document. */
@ApiSchema({ name: 'AgentApprovalsSummary', description: "When the agent's calls wait for a person, and what a denial does" })
export class AgentApprovalsSummaryDoc {
  @ApiProperty({ type: [String], description: 'Write tools that execute without asking' })
  readonly preApproved!: readonly string[];

  @ApiProperty({ enum: ON_DENIAL_VALUES, description: '`tellModel`: the model sees the denial and the run goes on; `endRun`: the run fails APPROVAL_DENIED' })
  readonly onDenial!: OnDenial;
}

const _matches: DocMatches<AgentApprovalsSummaryDoc, AgentSummary['approvals']> = true;
