import { Controller, Get, Inject, NotFoundException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { AgentDefinition, ToolCatalog } from '@agent-ledger/runtime';
import { TOOL_CATALOG } from '@agent-ledger/runtime';
import { AGENT_DEFINITIONS } from '../agents/agent-definitions.token';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { Authenticated } from '../auth/auth.decorators';
import { withAgents } from './agents-extension';
import { OpenApiDocumentHolder } from './openapi-document';

/**
 * `GET /openapi.json`: the OpenAPI document of this API (any valid key), with
 * the agents the caller's key may use and their tools (`x-agent-ledger-agents`),
 * for a key that may list agents (`runs:submit` or `runs:read`; none for another).
 */
@ApiTags('service')
@Controller()
export class OpenApiController {
  constructor(
    private readonly holder: OpenApiDocumentHolder,
    @Inject(AGENT_DEFINITIONS) private readonly definitions: readonly AgentDefinition[],
    @Inject(TOOL_CATALOG) private readonly tools: ToolCatalog,
  ) {}

  @Get('openapi.json')
  @Authenticated()
  @ApiOperation({ summary: 'The OpenAPI 3 document of this API' })
  @ApiOkResponse({ description: 'the document' })
  document(@Caller() caller: ApiCaller): OpenAPIObject {
    const document = this.holder.get();
    if (document === null) throw new NotFoundException('The OpenAPI document is not built');
    // The agents are described to a key that may see them in `GET /agents` only (runs:submit or runs:read).
    const seesAgents = caller.scopes.includes('runs:submit') || caller.scopes.includes('runs:read');
    return withAgents(document, this.definitions, this.tools, seesAgents ? caller.agents : []);
  }
}
