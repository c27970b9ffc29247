import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OnModuleInit } from '@nestjs/common';
import { Controller, Delete, Get, Logger, Post, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { handleLedgerMcpHttpRequest } from '@agent-ledger/mcp';
import { AgentsController } from '../agents/agents.controller';
import { ApprovalsController } from '../approvals/approvals.controller';
import { AuditReviewController } from '../audit/audit-review.controller';
import type { ApiCaller } from '../auth/api-caller';
import { Caller } from '../auth/api-caller';
import { Authenticated } from '../auth/auth.decorators';
import { API_ERROR_BODY_SCHEMA, componentRef } from '../openapi/contract-schemas';
import { HTTP_API_VERSION } from '../openapi/openapi-document';
import { RunsController } from '../runs/runs.controller';
import { createApiValidationPipe } from '../validation/validation-pipe';
import type { LedgerRoutes } from './in-process-ledger-operations';
import { InProcessLedgerOperations } from './in-process-ledger-operations';

/** The JSON-RPC answer of a POST, for the OpenAPI document (MCP's messages are not detailed there). */
const JSON_RPC_ANSWER = {
  type: 'object',
  description: 'A JSON-RPC 2.0 response (MCP, https://modelcontextprotocol.io): `result` or `error`',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { description: 'The request id (string or number)' },
    result: { type: 'object', description: 'The method\'s result (`initialize`, `tools/list`, `tools/call`)' },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } },
  },
  required: ['jsonrpc'],
};

/**
 * `/mcp`: the ledger as an MCP server, on MCP's Streamable HTTP transport,
 * stateless (no session: every POST carries its API key; the answer is one
 * JSON body). Any valid key may connect; the tools listed are those its
 * scopes allow (`docs/mcp-server.md`), each called the way of its route, with
 * the key as who acts. `GET` and `DELETE` (a session's stream and its end)
 * answer 405.
 */
@ApiTags('mcp')
@Controller('mcp')
export class McpController implements OnModuleInit {
  private readonly logger = new Logger('McpEndpoint');
  private routes!: LedgerRoutes;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly queries: QueryBus,
  ) {}

  onModuleInit(): void {
    const get = <T>(type: new (...args: never[]) => T): T => this.moduleRef.get(type, { strict: false });
    this.routes = {
      runs: get(RunsController),
      approvals: get(ApprovalsController),
      audit: get(AuditReviewController),
      agents: get(AgentsController),
      pipe: createApiValidationPipe(),
      queries: this.queries,
    };
  }

  /** One JSON-RPC message (or batch) of an MCP client. */
  @Post()
  // Above @Authenticated(), so that it wins: the 401 carries the API's error body (a route of the contract gets it from the contract).
  @ApiUnauthorizedResponse({ description: 'no API key, or not a valid one (`UNAUTHENTICATED`)', schema: componentRef(API_ERROR_BODY_SCHEMA) })
  @Authenticated()
  @ApiOperation({
    summary:
      "MCP (Streamable HTTP, stateless): the ledger's tools for MCP clients: start a run, get a run and its steps, list and decide approvals, answer an input, the audit review; the tools listed are those the key's scopes allow, and the key is recorded as who acts",
  })
  @ApiOkResponse({ description: 'the JSON-RPC answer', schema: JSON_RPC_ANSWER })
  @ApiResponse({ status: 406, description: '`Accept` does not name both `application/json` and `text/event-stream`, as MCP asks (a JSON-RPC error)', schema: JSON_RPC_ANSWER })
  async post(@Req() request: IncomingMessage & { readonly body?: unknown }, @Res() response: ServerResponse, @Caller() caller: ApiCaller): Promise<void> {
    const onFault = (error: unknown): void => this.logger.error(`An MCP tool call failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await handleLedgerMcpHttpRequest({
      operations: new InProcessLedgerOperations(caller, this.routes, onFault),
      scopes: caller.scopes,
      keyId: caller.principal.kind === 'development' ? null : caller.keyId,
      version: HTTP_API_VERSION,
      onFault,
      request,
      response,
      body: request.body,
    });
  }

  /** No session, so no stream to open: 405, as MCP's stateless servers answer. */
  @Get()
  @Authenticated()
  @ApiExcludeEndpoint()
  openStream(@Res() response: ServerResponse): void {
    methodNotAllowed(response);
  }

  /** No session, so none to end: 405. */
  @Delete()
  @Authenticated()
  @ApiExcludeEndpoint()
  endSession(@Res() response: ServerResponse): void {
    methodNotAllowed(response);
  }
}

function methodNotAllowed(response: ServerResponse): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, POST only' }, id: null });
  response.writeHead(405, { Allow: 'POST', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
