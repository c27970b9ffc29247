import type { AgentDefinition, LoadedPlugins } from '@agent-ledger/runtime';
import { BUILTIN_TOOL_NAMES, loadAgentsConfig, loadPlugins, mergePluginAgents } from '@agent-ledger/runtime';
import { TEST_LEDGER_TOOLS } from './crash-test/test-ledger.tools';
import type { ServiceConfig } from './service-config';

/** What the service runs besides its settings: its agents (the agents file's, then the plugins'), and the plugins' tools and model providers. */
export interface ServiceDefinitions {
  readonly agents: readonly AgentDefinition[];
  readonly plugins: LoadedPlugins;
}

/**
 * Loads the plugins of the configuration, then the agents file (whose agents
 * may use the plugins' tools and provider types), and checks them together:
 * every agent's tools exist (built-in, or a plugin's), agent names are
 * unique. Reads files only: `serve` and `worker` call it before they create
 * a folder or open a store, so that a refusal leaves nothing behind.
 *
 * @throws PluginError naming the plugin file and the tool, agent or provider type;
 *   AgentsConfigError naming the agents file and the field.
 */
export async function loadServiceDefinitions(config: Pick<ServiceConfig, 'plugins' | 'agentsConfigPath' | 'testLedgerPath'>): Promise<ServiceDefinitions> {
  const knownTools = [...BUILTIN_TOOL_NAMES, ...(config.testLedgerPath === null ? [] : TEST_LEDGER_TOOLS)];
  const plugins = await loadPlugins(config.plugins, { knownTools });
  const pluginTools = plugins.plugins.flatMap((plugin) => plugin.toolNames);
  if (config.agentsConfigPath === null) return { agents: mergePluginAgents([], '(none)', plugins), plugins };
  const file = await loadAgentsConfig(config.agentsConfigPath, {
    knownTools: [...knownTools, ...pluginTools],
    modelProviderTypes: Object.keys(plugins.modelProviders),
  });
  return { agents: mergePluginAgents(file.agents, config.agentsConfigPath, plugins), plugins };
}

/** `; plugins: a.js (2 tools, 1 agent)`, or nothing without plugins. */
export function pluginsNote(plugins: LoadedPlugins): string {
  if (plugins.plugins.length === 0) return '';
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `; plugins: ${plugins.plugins.map((p) => `${p.file} (${count(p.toolNames.length, 'tool')}, ${count(p.agents.length, 'agent')}, ${count(p.modelProviderTypes.length, 'model provider')})`).join(', ')}`;
}
