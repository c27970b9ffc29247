import { ConfigurationError } from '@agent-ledger/domain';
import type { AgentDefinition, LoadedPlugins, McpServerBinding } from '@agent-ledger/runtime';
import { BUILTIN_TOOL_NAMES, loadAgentsConfig, loadPlugins, mergePluginAgents } from '@agent-ledger/runtime';
import { TEST_LEDGER_TOOLS } from './crash-test/test-ledger.tools';
import type { ServiceConfig } from './service-config';

/** What the service runs besides its settings: its agents (the agents file's, then the plugins'), the plugins' tools and model providers, and the MCP servers bound. */
export interface ServiceDefinitions {
  readonly agents: readonly AgentDefinition[];
  readonly plugins: LoadedPlugins;
  /**
   * Every MCP server binding: the configuration file's, then the plugins'
   * (in the plugins' order), then the agents file's. Server names are unique
   * across them; each binding's `source` says where it was read.
   */
  readonly mcpServers: readonly McpServerBinding[];
}

/**
 * Loads the plugins of the configuration, then the agents file (whose agents
 * may use the plugins' tools and provider types), and checks them together:
 * every agent's tools exist (built-in, a plugin's, or bound from an MCP
 * server), agent names are unique. The MCP server bindings of the
 * configuration file (already validated in `config`), of the plugins and of
 * the agents file are checked together: server names unique across the
 * three, none the first word of a built-in tool's name (`files`, `clock`,
 * `user`), no bound tool named as a built-in or a plugin's tool. The
 * configuration file's bound tools are known to every agent, the plugins'
 * to the plugins' agents and the agents file's, the agents file's to its own.
 * Reads files only: `serve` and `worker` call it before they create a folder
 * or open a store, so that a refusal leaves nothing behind.
 *
 * @throws PluginError naming the plugin file and the tool, agent, provider type or binding's field;
 *   AgentsConfigError naming the agents file and the field;
 *   ConfigurationError listing every conflict between the bindings of two sources, naming both.
 */
export async function loadServiceDefinitions(config: Pick<ServiceConfig, 'plugins' | 'agentsConfigPath' | 'testLedgerPath' | 'mcpServers'>): Promise<ServiceDefinitions> {
  const hostTools = [...BUILTIN_TOOL_NAMES, ...(config.testLedgerPath === null ? [] : TEST_LEDGER_TOOLS)];
  const boundInFile = config.mcpServers.flatMap(boundToolNames);
  const plugins = await loadPlugins(config.plugins, { knownTools: [...hostTools, ...boundInFile] });
  const pluginTools = plugins.plugins.flatMap((plugin) => plugin.toolNames);
  if (config.agentsConfigPath === null) {
    const mcpServers = checkedBindings([...config.mcpServers, ...plugins.mcpServers], hostTools, plugins);
    return { agents: mergePluginAgents([], '(none)', plugins), plugins, mcpServers };
  }
  const file = await loadAgentsConfig(config.agentsConfigPath, {
    knownTools: [...hostTools, ...pluginTools, ...boundInFile, ...plugins.mcpServers.flatMap(boundToolNames)],
    modelProviderTypes: Object.keys(plugins.modelProviders),
  });
  const mcpServers = checkedBindings([...config.mcpServers, ...plugins.mcpServers, ...file.mcpServers], hostTools, plugins);
  return { agents: mergePluginAgents(file.agents, config.agentsConfigPath, plugins), plugins, mcpServers };
}

/** `; plugins: a.js (2 tools, 1 agent)`, or nothing without plugins. */
export function pluginsNote(plugins: LoadedPlugins): string {
  if (plugins.plugins.length === 0) return '';
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `; plugins: ${plugins.plugins.map((p) => `${p.file} (${count(p.toolNames.length, 'tool')}, ${count(p.agents.length, 'agent')}, ${count(p.modelProviderTypes.length, 'model provider')})`).join(', ')}`;
}

function boundToolNames(server: McpServerBinding): string[] {
  return server.tools.map((tool) => tool.name);
}

/**
 * The bindings of every source, in order, when no two conflict: a server
 * name bound twice, a server named as a built-in tool's prefix, a bound tool
 * named as a built-in, test or plugin tool.
 *
 * @throws ConfigurationError listing every conflict, naming both sources.
 */
function checkedBindings(servers: readonly McpServerBinding[], hostTools: readonly string[], plugins: LoadedPlugins): readonly McpServerBinding[] {
  const problems: string[] = [];
  const builtinPrefixes = [...new Set(BUILTIN_TOOL_NAMES.map((name) => name.split('.')[0] as string))];
  const toolOwner = new Map<string, string>([
    ...hostTools.map((name): [string, string] => [name, BUILTIN_TOOL_NAMES.includes(name) ? 'a built-in tool' : 'a test tool (AGENT_LEDGER_TEST_LEDGER)']),
    ...plugins.plugins.flatMap((plugin) => plugin.toolNames.map((name): [string, string] => [name, `a tool of plugin ${plugin.file}`])),
  ]);
  const serverSource = new Map<string, string>();
  for (const server of servers) {
    const label = `MCP server "${server.name}" (${server.source})`;
    if (builtinPrefixes.includes(server.name)) {
      const named = BUILTIN_TOOL_NAMES.filter((name) => name.startsWith(`${server.name}.`));
      problems.push(`${label}: "${server.name}" is the first word of built-in tools (${named.join(', ')}): name the server otherwise (reserved: ${builtinPrefixes.join(', ')})`);
      continue;
    }
    const first = serverSource.get(server.name);
    if (first !== undefined) {
      problems.push(`${label}: the name is also bound in ${first}: server names must be unique`);
      continue;
    }
    serverSource.set(server.name, server.source);
    for (const tool of server.tools) {
      const owner = toolOwner.get(tool.name);
      if (owner !== undefined) problems.push(`${label}: its tool ${tool.tool} is named "${tool.name}", the name of ${owner}: give it another with as`);
    }
  }
  if (problems.length > 0) {
    throw new ConfigurationError(
      `MCP server bindings refused (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
  }
  return Object.freeze([...servers]);
}
