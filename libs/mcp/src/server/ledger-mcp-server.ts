import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LEDGER_MCP_SERVER_NAME } from './ledger-mcp-server-options';
import type { LedgerMcpServerOptions } from './ledger-mcp-server-options';
import type { LedgerTool } from './ledger-tools';
import { LEDGER_TOOLS, mayUseTool } from './ledger-tools';
import { answerResult, errorBodyOf, errorResult, invalidArgumentsBody } from './tool-results';

/** A server built for one caller, and a way to wait for the calls it is answering. */
export interface LedgerMcpServer {
  readonly server: McpServer;
  /** Resolves once every tool call received so far is answered. */
  idle(): Promise<void>;
}

/**
 * The ledger's MCP server for one caller: every tool of {@link LEDGER_TOOLS}
 * is registered on the SDK's `McpServer` (its zod arguments, listed as JSON
 * Schema), those the caller's scopes do not allow disabled (not listed).
 * `tools/call` is answered here rather than by `McpServer`, for two answers
 * the SDK would give otherwise: a tool the caller may not use is refused
 * `SCOPE_MISSING` (the SDK: "disabled"), and arguments its schema refuses are
 * `INVALID_FIELD` naming the field, as the HTTP API says it (the SDK: zod's
 * issues as text). An unknown tool is a JSON-RPC error (-32602), as MCP asks.
 */
export function createLedgerMcpServer(options: LedgerMcpServerOptions): LedgerMcpServer {
  const { operations, scopes, keyId, version } = options;
  const onFault = options.onFault ?? (() => undefined);
  const server = new McpServer(
    { name: LEDGER_MCP_SERVER_NAME, version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'agent-ledger runs AI agents with an audited record of every tool call. Start runs, follow them, and decide the approvals their writes wait for. ' +
        'Every decision and answer is recorded in the audit trail with the API key of this connection as who made it.',
    },
  );
  const inFlight = new Set<Promise<unknown>>();
  const schemas = new Map<string, z.ZodObject>();

  const call = async (tool: LedgerTool, args: Record<string, unknown>): Promise<CallToolResult> => {
    try {
      return answerResult(await tool.call(operations, args));
    } catch (error) {
      return errorResult(errorBodyOf(error, (fault) => onFault(fault, tool.name)));
    }
  };

  for (const tool of LEDGER_TOOLS) {
    const schema = z.strictObject(tool.shape);
    schemas.set(tool.name, schema);
    const registered = server.registerTool(
      tool.name,
      { title: tool.title, description: `${tool.description} (${tool.route}; API key scope: ${tool.scopes.join(' or ')})`, inputSchema: schema, annotations: { title: tool.title, ...tool.hints } },
      ((args: Record<string, unknown>) => call(tool, args)) as never,
    );
    if (!mayUseTool(tool, scopes)) registered.disable();
  }

  const answer = async (name: string, args: unknown): Promise<CallToolResult> => {
    const tool = LEDGER_TOOLS.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (the ledger's tools: ${LEDGER_TOOLS.map((t) => t.name).join(', ')})`);
    if (!mayUseTool(tool, scopes)) {
      return errorResult({
        code: 'SCOPE_MISSING',
        message: `The API key${keyId === null ? '' : ` "${keyId}"`} lacks the scope ${tool.name} needs (one of: ${tool.scopes.join(', ')})`,
        ...(keyId === null ? {} : { keyId }),
        requiredScopes: [...tool.scopes],
      });
    }
    const parsed = (schemas.get(tool.name) as z.ZodObject).safeParse(args ?? {});
    if (!parsed.success) return errorResult(invalidArgumentsBody(tool.name, parsed.error));
    return call(tool, parsed.data);
  };

  server.server.setRequestHandler(CallToolRequestSchema, (request) => {
    const answered = answer(request.params.name, request.params.arguments);
    inFlight.add(answered);
    void answered.finally(() => inFlight.delete(answered)).catch(() => undefined);
    return answered;
  });

  return {
    server,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
