import { ConfigurationError, DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS, resolveExternalToolEffect } from '@agent-ledger/domain';
import type { ExternalToolEffect } from '@agent-ledger/domain';
import { MCP_BINDING_DEFAULTS, ToolRegistry } from '@agent-ledger/runtime';
import type { McpServerBinding } from '@agent-ledger/runtime';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServerConnection, deadlineOf, describe } from './mcp-connection';
import { McpCounters } from './mcp-counters';
import type { McpCounterSink } from './mcp-counters';
import type { BoundMcpTool, McpServerState } from './mcp-connection';
import type { McpLogger } from './mcp-logger';
import { nestMcpLogger } from './mcp-logger';
import { defineMcpTool } from './mcp-tool-class';
import type { McpToolRegistration } from './mcp-tool-class';
import { contractOf } from './mcp-tool-contract';
import type { McpListedTool } from './mcp-tool-contract';
import { nearestName } from './near-miss';

/** Options of {@link startMcpServers}. */
export interface McpServersOptions {
  /** Where the connections log (start, conflicts, stderr lines, exits, list changes). @default Nest's `Logger('Mcp')` */
  readonly logger?: McpLogger;
  /** The environment the bindings' `fromEnv` secrets are read from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The client's name and version sent in `initialize`. @default { name: 'agent-ledger', version: '0.0.0' } */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

/**
 * The bound MCP servers of a process, started and checked: their tools,
 * ready to register, and their connections, supervised until
 * {@link McpServers.close}.
 */
export interface McpServers {
  /** Every bound tool, in the bindings' order: the instance to register and its origin. */
  readonly tools: readonly McpToolRegistration[];
  /** Registers every bound tool in `registry` (`registerExternal`); before the agents' tools are checked (`AgentToolsCheck`). */
  registerInto(registry: ToolRegistry): void;
  /** Each server's connection: up, down or starting, its pid, restarts and dropped stderr lines. */
  states(): McpServerState[];
  /**
   * Counts restarts (`mcpServerRestarts`) and dropped stderr lines
   * (`mcpStderrLinesDropped`) in the application's `RuntimeMetrics` (or any
   * sink with its `increment`): those since the servers started, then each
   * as it happens. Call it once the application is built.
   */
  countInto(metrics: McpCounterSink): void;
  /** Stops every restart, then closes every connection (stdio servers: stdin closed, then SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void>;
}

class StartedMcpServers implements McpServers {
  private closed: Promise<void> | null = null;

  constructor(
    private readonly connections: readonly McpServerConnection[],
    readonly tools: readonly McpToolRegistration[],
    private readonly counters: McpCounters,
  ) {}

  countInto(metrics: McpCounterSink): void {
    this.counters.attach(metrics);
  }

  registerInto(registry: ToolRegistry): void {
    for (const { tool, origin } of this.tools) registry.registerExternal(tool, origin);
  }

  states(): McpServerState[] {
    return this.connections.map((connection) => connection.state());
  }

  close(): Promise<void> {
    this.closed ??= Promise.all(this.connections.map((connection) => connection.close())).then(() => undefined);
    return this.closed;
  }
}

/**
 * Starts (stdio) or connects to (HTTP) every bound MCP server, in parallel,
 * each within its `startTimeoutSeconds`, lists its tools (every page), and
 * checks each binding against what the server offers. Usable before Nest
 * (the service checks its bindings before it opens its stores).
 *
 * Refused, together, in one {@link ConfigurationError} naming the server
 * (and the tool) of each problem: a server that does not start, connect,
 * initialise or list its tools in time (or answers with what is not JSON-RPC);
 * a server without the `tools` capability; a bound tool the server does not
 * offer (with the nearest name it offers); a tool that requires task-based
 * execution; a tool whose input schema cannot be used even leniently; two
 * tools of one name. Every server started is closed before it throws.
 *
 * A binding whose declared effect and the server's hints disagree is not
 * refused: the effect is resolved by `resolveExternalToolEffect` (stricter
 * wins unless the binding trusts the server) and one warn line is logged for
 * each such tool.
 *
 * @throws ConfigurationError listing every problem
 */
export async function startMcpServers(bindings: readonly McpServerBinding[], options: McpServersOptions = {}): Promise<McpServers> {
  const logger = options.logger ?? nestMcpLogger();
  const counters = new McpCounters();
  const connectionOptions = { logger, counters, env: options.env ?? process.env, clientInfo: options.clientInfo ?? { name: 'agent-ledger', version: '0.0.0' } };
  const connections = bindings.map((binding) => new McpServerConnection(binding, connectionOptions));
  const started = await Promise.all(connections.map(async (connection) => startOne(connection)));
  const problems = started.flatMap((outcome) => outcome.problems);
  const scratch = new ToolRegistry();
  const registrations: McpToolRegistration[] = [];
  for (const [index, outcome] of started.entries()) {
    const connection = connections[index] as McpServerConnection;
    for (const bound of outcome.bound) {
      try {
        const registration = defineMcpTool(connection, bound);
        // The registry's own checks (metadata, the lenient compile of the schema, a unique name), on a registry of its own.
        scratch.registerExternal(registration.tool, registration.origin);
        registrations.push(registration);
        connection.bind(bound.listed);
      } catch (error) {
        problems.push(`${label(connection.binding)}: tool "${bound.listed.name}" cannot be offered as ${bound.binding.name}: ${describe(error)}`);
      }
    }
  }
  if (problems.length > 0) {
    await Promise.all(connections.map((connection) => connection.close()));
    throw new ConfigurationError(`MCP bindings refused (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
  for (const outcome of started) for (const bound of outcome.bound) if (bound.resolved.conflict) logger.warn(conflictLine(bound.server, bound));
  for (const connection of connections) {
    const state = connection.state();
    const count = registrations.filter((registration) => registration.origin.server === connection.name).length;
    logger.log(`MCP server ${connection.name} (${state.transport}${state.pid === null ? '' : `, pid ${state.pid}`}): ${count} tool${count === 1 ? '' : 's'} bound of ${connection.tools.length} offered`);
  }
  return new StartedMcpServers(connections, registrations, counters);
}

interface Started {
  readonly problems: string[];
  readonly bound: BoundMcpTool[];
}

/** One warn line for a bound tool whose declared effect and server hints disagree (not a refusal). */
function conflictLine(server: string, bound: BoundMcpTool): string {
  const { resolved, contract } = bound;
  const hints = (['readOnlyHint', 'idempotentHint', 'destructiveHint'] as const)
    .filter((key) => contract.hints[key] !== undefined)
    .map((key) => `${key} ${String(contract.hints[key])}`)
    .join(', ');
  return `MCP tool ${bound.binding.name} (${server}.${bound.listed.name}): the binding declares ${resolved.declared ?? 'nothing'}, the server's hints say ${resolved.hinted ?? 'nothing'} (${hints}); ${resolved.trusted ? 'trusted' : 'untrusted'} hints: ${resolved.effect} is used`;
}

async function startOne(connection: McpServerConnection): Promise<Started> {
  const { binding } = connection;
  try {
    await connection.start();
  } catch (error) {
    return { problems: [`${label(binding)}: could not ${startVerb(binding)}: ${startFailure(error)}`], bound: [] };
  }
  if (!connection.hasToolsCapability()) return { problems: [`${label(binding)}: the server does not offer tools (no tools capability in its initialize answer)`], bound: [] };
  const missing = () => binding.tools.filter((tool) => !connection.tools.some((listed) => listed.name === tool.tool)).map((tool) => tool.tool);
  await connection.settle(missing());
  const problems: string[] = [];
  const bound: BoundMcpTool[] = [];
  const offered = new Map(connection.tools.map((tool) => [tool.name, tool]));
  for (const toolBinding of binding.tools) {
    const listed = offered.get(toolBinding.tool);
    if (listed === undefined) {
      const names = [...offered.keys()].sort();
      const nearest = nearestName(toolBinding.tool, names);
      problems.push(
        `${label(binding)}: tool "${toolBinding.tool}" is not offered by the server (it offers: ${names.join(', ') || 'none'}${nearest === undefined ? '' : `; did you mean ${nearest}?`})`,
      );
      continue;
    }
    const contract = contractOf(listed);
    if (contract.taskSupport === 'required') {
      problems.push(`${label(binding)}: tool "${toolBinding.tool}" requires task-based execution (execution.taskSupport: required), which agent-ledger does not support`);
      continue;
    }
    const resolved: ExternalToolEffect = resolveExternalToolEffect(toolBinding.effect, contract.hints, binding.trustHints);
    bound.push({
      binding: toolBinding,
      server: binding.name,
      listed: listed as McpListedTool,
      contract,
      resolved,
      deadlineSeconds: deadlineOf(toolBinding, resolved.effect, MCP_BINDING_DEFAULTS.readOperationDeadlineSeconds, DEFAULT_WRITE_OPERATION_DEADLINE_SECONDS),
      maxInlineBytes: binding.maxInlineBytes,
      maxResultBytes: binding.maxResultBytes,
    });
  }
  return { problems, bound };
}

function label(binding: McpServerBinding): string {
  return `mcpServers "${binding.name}" (${binding.source})`;
}

function startVerb(binding: McpServerBinding): string {
  const { transport } = binding;
  return transport.type === 'stdio' ? `start ${[transport.command, ...transport.args].join(' ')}` : `connect to ${transport.url}`;
}

function startFailure(error: unknown): string {
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400) {
    return `HTTP ${error.code}${error.code === 401 || error.code === 403 ? ' (the credentials were refused: check its headers)' : ''}: ${error.message}`;
  }
  return describe(error);
}
