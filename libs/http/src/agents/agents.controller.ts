import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AgentDefinition, ToolCatalog } from '@agent-ledger/runtime';
import { TOOL_CATALOG } from '@agent-ledger/runtime';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { RequireScope } from '../auth/auth.decorators';
import { AGENT_DEFINITIONS } from './agent-definitions.token';
import type { AgentsAnswer } from './agent-summary';
import { agentSummaries } from './agent-summary';

/** `GET /agents`: the configured agents a key may start or read runs of. */
@ApiTags('agents')
@Controller('agents')
export class AgentsController {
  constructor(
    @Inject(AGENT_DEFINITIONS) private readonly definitions: readonly AgentDefinition[],
    @Inject(TOOL_CATALOG) private readonly tools: ToolCatalog,
  ) {}

  /** The agents, by name, with their tools' effects and their approvals (a key limited to some agents sees those only). */
  @Get()
  @RequireScope('runs:submit', 'runs:read')
  @ApiOperation({ summary: "The configured agents (a key limited to some agents sees those): tools with their effects, approvals" })
  @ApiOkResponse({ description: 'the agents, by name' })
  list(@Caller() caller: ApiCaller): AgentsAnswer {
    return { agents: agentSummaries(this.definitions, this.tools, caller.agents) };
  }
}
