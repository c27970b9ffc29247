import type { DeclaresToolEffect, JsonObject, JsonValue, ToolEffect } from '@agent-ledger/domain';
import { Tool } from '@agent-ledger/runtime';
import type { AgentTool, McpToolOrigin, ToolContext, ToolMetadata } from '@agent-ledger/runtime';
import type { BoundMcpTool, McpServerConnection } from './mcp-connection';
import { parametersOf } from './mcp-tool-contract';

/** A bound MCP tool ready for the registry: the instance of its `@Tool` class, and where its effect came from. */
export interface McpToolRegistration {
  /** The instance to register (`ToolRegistry.registerExternal(tool, origin)`). */
  readonly tool: AgentTool & object;
  /** The tool's server and name there, and its effect as resolved from the binding and the hints. */
  readonly origin: McpToolOrigin;
}

/**
 * Defines, for one bound tool, a class decorated with `@Tool` (its name, the
 * server's description, the server's input schema without `$schema`, the
 * binding's deadline, data class and approval), whose `getEffect()` returns
 * the effect resolved at start (a constant: the registry reads it once), and
 * whose `execute` calls the server through the connection. The registry,
 * the fence, the approvals, the audit and the idempotency key then treat it
 * as any tool.
 *
 * @throws InvalidFieldError when the metadata cannot be a tool's (a name
 *   that is not a tool name, a schema that is not an object schema).
 */
export function defineMcpTool(connection: McpServerConnection, bound: BoundMcpTool): McpToolRegistration {
  const effect: ToolEffect = bound.resolved.effect;
  class McpTool implements AgentTool, DeclaresToolEffect {
    getEffect(): ToolEffect {
      return effect;
    }

    execute(args: JsonObject, context: ToolContext): Promise<JsonValue> {
      return connection.call(bound, args, context);
    }
  }
  Object.defineProperty(McpTool, 'name', { value: `McpTool(${bound.binding.name})` });
  const { binding, listed } = bound;
  const description = [listed.description, listed.title].find((text) => typeof text === 'string' && text.trim() !== '') ?? `${listed.name} (MCP server ${bound.server})`;
  const metadata: ToolMetadata = {
    name: binding.name,
    description,
    parameters: parametersOf(listed),
    operationDeadlineSeconds: bound.deadlineSeconds,
    ...(binding.dataClass === undefined ? {} : { dataClass: binding.dataClass }),
    ...(binding.requiresApproval === undefined ? {} : { requiresApproval: binding.requiresApproval }),
  };
  Tool(metadata)(McpTool);
  const { effect: resolved, source, declared, hinted, trusted, conflict } = bound.resolved;
  return {
    tool: new McpTool(),
    origin: Object.freeze({ kind: 'mcp', server: bound.server, tool: listed.name, effect: resolved, source, declared, hinted, trusted, conflict }),
  };
}
