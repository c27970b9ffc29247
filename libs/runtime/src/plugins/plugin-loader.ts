import { dirname } from 'node:path';
import { isToolEffect, TOOL_EFFECTS } from '@agent-ledger/domain';
import type { AgentDefinition } from '../agents/agent-definition';
import { AGENT_NAME_PATTERN } from '../agents/agent-limits';
import { validateAgentsDocument } from '../agents/agents-config-validation';
import { formatConfigIssue } from '../agents/agents-config.error';
import { ConfigReader, isPlainObject } from '../agents/config-reader';
import { validateMcpServerBindings } from '../mcp/mcp-bindings-validation';
import type { McpServerBinding } from '../mcp/mcp-server-binding';
import type { ModelProviderFactories, ModelProviderFactory } from '../models/model-provider-factory';
import { isReservedModelProviderType } from '../models/model-provider-factory';
import { MODEL_PROVIDER_TYPES } from '../agents/model-provider-config-validation';
import { BUILTIN_TOOL_NAMES } from '../tools/builtin/builtin-tools';
import type { ToolClass } from '../tools/tool.decorator';
import { getToolMetadata } from '../tools/tool.decorator';
import { validateToolMetadata } from '../tools/tool-metadata-validation';
import { PLUGIN_KEYS } from './plugin';
import { pluginApi } from './plugin-api';
import type { PluginProblem } from './plugin.error';
import { PluginError } from './plugin.error';
import { loadPluginModule } from './plugin-module';

/** One plugin, loaded and checked. */
export interface LoadedPlugin {
  /** Its file (absolute). */
  readonly file: string;
  readonly tools: readonly ToolClass[];
  /** The names of its tools, in order. */
  readonly toolNames: readonly string[];
  /** Its agents, validated and frozen (as the agents file's). */
  readonly agents: readonly AgentDefinition[];
  /** The provider types it registers. */
  readonly modelProviderTypes: readonly string[];
  /** The MCP servers it binds, validated and frozen (`source`: `plugin <file>`). */
  readonly mcpServers: readonly McpServerBinding[];
}

/** Every plugin of the configuration, loaded and checked together. */
export interface LoadedPlugins {
  readonly plugins: readonly LoadedPlugin[];
  /** Every plugin's tool classes, for `ToolsModule.forRoot({ tools })`. */
  readonly tools: readonly ToolClass[];
  /** Every plugin's agents. */
  readonly agents: readonly AgentDefinition[];
  /** Every plugin's model provider factories, for `createModelProvider(..., { providers })`. */
  readonly modelProviders: ModelProviderFactories;
  /** Every plugin's MCP server bindings, in the plugins' order. */
  readonly mcpServers: readonly McpServerBinding[];
}

/** No plugin. */
export const NO_PLUGINS: LoadedPlugins = Object.freeze({ plugins: [], tools: [], agents: [], modelProviders: Object.freeze({}), mcpServers: [] });

/** What {@link loadPlugins} checks the plugins against. */
export interface PluginLoadOptions {
  /** Tool names no plugin may register. @default BUILTIN_TOOL_NAMES */
  readonly reservedToolNames?: readonly string[];
  /**
   * The tools that exist besides the plugins' (the built-in ones the host
   * provides, its own). When given, a plugin's agent offered a tool that
   * neither these nor any plugin provide is refused; when absent, the
   * runtime refuses it when it starts (`AgentToolsCheck`).
   */
  readonly knownTools?: readonly string[];
  /** Loads one file (tests replace it). @default loadPluginModule */
  readonly load?: (file: string) => Promise<unknown>;
}

/** The pattern of a provider type a plugin registers: like an agent's name. */
export const MODEL_PROVIDER_TYPE_PATTERN = AGENT_NAME_PATTERN;

interface Checked {
  readonly file: string;
  readonly tools: { readonly tool: ToolClass; readonly name: string }[];
  readonly agents: readonly unknown[];
  readonly modelProviders: [string, ModelProviderFactory][];
  readonly mcpServers: readonly McpServerBinding[];
}

/**
 * Loads the plugin files (absolute paths, in order) and checks them
 * together: every export is a plugin (an object with `tools`, `agents`,
 * `modelProviders`, `mcpServers`, or a function given {@link pluginApi} that
 * returns one);
 * each tool is a class decorated with `@Tool` that declares its effect with
 * `getEffect()`; tool names are unique across plugins and none is a reserved
 * (built-in) one; provider types are unique and not built-in; agents are
 * valid as in the agents file (their provider types may be the plugins',
 * their tools those the plugins' MCP servers bind), with names unique across
 * plugins; MCP server bindings are valid as in the agents file (relative
 * paths from the plugin file's folder), server names unique across plugins,
 * and no bound tool has the name of a reserved or a plugin's tool.
 *
 * @throws {@link PluginError} listing every problem, each naming its plugin
 *   file and the tool, agent, provider type or binding's field. Nothing is returned then.
 */
export async function loadPlugins(files: readonly string[], options: PluginLoadOptions = {}): Promise<LoadedPlugins> {
  if (files.length === 0) return NO_PLUGINS;
  const problems: PluginProblem[] = [];
  const load = options.load ?? loadPluginModule;
  const checked: Checked[] = [];
  const seenFiles = new Set<string>();
  for (const file of files) {
    if (seenFiles.has(file)) {
      problems.push({ file, message: 'is named twice in the configuration' });
      continue;
    }
    seenFiles.add(file);
    let exported: unknown;
    try {
      exported = await pluginOf(await load(file));
    } catch (error) {
      problems.push({ file, message: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const plugin = checkPlugin(file, exported, problems);
    if (plugin !== undefined) checked.push(plugin);
  }

  const reserved = new Set(options.reservedToolNames ?? BUILTIN_TOOL_NAMES);
  const toolOwner = new Map<string, string>();
  const typeOwner = new Map<string, string>();
  for (const plugin of checked) {
    for (const { name } of plugin.tools) {
      const owner = toolOwner.get(name);
      if (reserved.has(name)) problems.push({ file: plugin.file, message: `tool "${name}" collides with a built-in tool of the same name (built-in: ${[...reserved].join(', ')})` });
      else if (owner !== undefined) problems.push({ file: plugin.file, message: `tool "${name}" is also registered by plugin ${owner}: tool names must be unique` });
      else toolOwner.set(name, plugin.file);
    }
    for (const [type] of plugin.modelProviders) {
      const owner = typeOwner.get(type);
      if (isReservedModelProviderType(type)) {
        problems.push({ file: plugin.file, message: `model provider type "${type}" collides with a built-in type (${MODEL_PROVIDER_TYPES.join(', ')}; "plugin" is reserved)` });
      } else if (owner !== undefined) {
        problems.push({ file: plugin.file, message: `model provider type "${type}" is also registered by plugin ${owner}: provider types must be unique` });
      } else typeOwner.set(type, plugin.file);
    }
  }

  const serverOwner = new Map<string, string>();
  const boundTools: string[] = [];
  for (const plugin of checked) {
    for (const server of plugin.mcpServers) {
      const owner = serverOwner.get(server.name);
      if (owner !== undefined) {
        problems.push({ file: plugin.file, message: `MCP server "${server.name}" is also bound by plugin ${owner}: server names must be unique` });
        continue;
      }
      serverOwner.set(server.name, plugin.file);
      for (const { name } of server.tools) {
        const label = `MCP tool "${name}" (server "${server.name}")`;
        if (reserved.has(name)) problems.push({ file: plugin.file, message: `${label} collides with a built-in tool of the same name` });
        else if (toolOwner.has(name)) problems.push({ file: plugin.file, message: `${label} has the name of a tool of plugin ${toolOwner.get(name) as string}: tool names must be unique` });
        else boundTools.push(name);
      }
    }
  }

  const modelProviderTypes = [...typeOwner.keys()];
  const knownTools = options.knownTools === undefined ? undefined : [...options.knownTools, ...toolOwner.keys(), ...boundTools];
  const agentOwner = new Map<string, string>();
  const loaded: LoadedPlugin[] = [];
  for (const plugin of checked) {
    const agents = validatePluginAgents(plugin, { modelProviderTypes, ...(knownTools === undefined ? {} : { knownTools }) }, problems);
    // By the names given, valid or not, so that a collision is reported with the other problems.
    const names = new Set(plugin.agents.map((agent) => (agent as { name?: unknown } | null)?.name).filter((name): name is string => typeof name === 'string'));
    for (const name of names) {
      const owner = agentOwner.get(name);
      if (owner !== undefined) problems.push({ file: plugin.file, message: `agent "${name}" is also defined by plugin ${owner}: agent names must be unique` });
      else agentOwner.set(name, plugin.file);
    }
    loaded.push(
      Object.freeze({
        file: plugin.file,
        tools: Object.freeze(plugin.tools.map(({ tool }) => tool)),
        toolNames: Object.freeze(plugin.tools.map(({ name }) => name)),
        agents,
        modelProviderTypes: Object.freeze(plugin.modelProviders.map(([type]) => type)),
        mcpServers: plugin.mcpServers,
      }),
    );
  }
  if (problems.length > 0) throw new PluginError(problems);
  return Object.freeze({
    plugins: Object.freeze(loaded),
    tools: Object.freeze(loaded.flatMap((plugin) => plugin.tools)),
    agents: Object.freeze(loaded.flatMap((plugin) => plugin.agents)),
    modelProviders: Object.freeze(Object.fromEntries(checked.flatMap((plugin) => plugin.modelProviders))),
    mcpServers: Object.freeze(loaded.flatMap((plugin) => plugin.mcpServers)),
  });
}

/**
 * The agents of the agents file and of the plugins, in that order, refusing
 * an agent name defined twice.
 *
 * @throws {@link PluginError} naming the plugin file, the agent, and the agents file it collides with.
 */
export function mergePluginAgents(fileAgents: readonly AgentDefinition[], agentsFile: string, plugins: LoadedPlugins): readonly AgentDefinition[] {
  const fileNames = new Set(fileAgents.map((agent) => agent.name));
  const problems: PluginProblem[] = [];
  for (const plugin of plugins.plugins) {
    for (const agent of plugin.agents) {
      if (fileNames.has(agent.name)) problems.push({ file: plugin.file, message: `agent "${agent.name}" is also defined in the agents file ${agentsFile}: agent names must be unique` });
    }
  }
  if (problems.length > 0) throw new PluginError(problems);
  return Object.freeze([...fileAgents, ...plugins.agents]);
}

/**
 * What a module's exports hold as its plugin: the default export (ES module,
 * or CommonJS compiled from `export default`), else `module.exports` (or an
 * ES module's named exports); a function (not a class) is called with the
 * {@link pluginApi} and its result (awaited) is the plugin.
 */
async function pluginOf(moduleValue: unknown): Promise<unknown> {
  let value = moduleValue;
  if (typeof value === 'object' && value !== null) {
    const namespace = Object.prototype.toString.call(value) === '[object Module]';
    const fromEsm = namespace || (value as { __esModule?: unknown }).__esModule === true;
    if (fromEsm && (value as { default?: unknown }).default !== undefined) value = (value as { default: unknown }).default;
    else if (namespace) value = { ...(value as Record<string, unknown>) };
  }
  if (typeof value === 'function') {
    if (isClass(value)) throw new Error(`exports a class (${value.name || 'anonymous'}), not a plugin: export { tools: [${value.name || 'TheClass'}] }`);
    try {
      return await (value as (api: typeof pluginApi) => unknown)(pluginApi);
    } catch (error) {
      throw new Error(`exports a plugin function that failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  return value;
}

function checkPlugin(file: string, exported: unknown, problems: PluginProblem[]): Checked | undefined {
  const add = (message: string) => problems.push({ file, message });
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
    add(
      `exports ${describe(exported)}, not a plugin: export default definePlugin({ ${PLUGIN_KEYS.join(', ')} }) (or module.exports = ...), or a function (api) => plugin`,
    );
    return undefined;
  }
  const plugin = exported as Record<string, unknown>;
  const before = problems.length;
  const keys = Object.keys(plugin);
  for (const key of keys) {
    if (!(PLUGIN_KEYS as readonly string[]).includes(key)) add(`exports a plugin with the key "${key}", which is not a plugin key (known: ${PLUGIN_KEYS.join(', ')})`);
  }
  if (keys.length === 0 || keys.every((key) => plugin[key] === undefined)) {
    add(`exports a plugin with nothing in it (none of ${PLUGIN_KEYS.join(', ')})`);
  }
  const tools = checkTools(plugin['tools'], add);
  const agents = plugin['agents'] ?? [];
  if (!Array.isArray(agents)) add(`agents must be a list of agents (as in the agents file), not ${describe(agents)}`);
  const modelProviders = checkModelProviders(plugin['modelProviders'], add);
  const mcpServers = checkMcpServers(file, plugin['mcpServers'], add);
  if (problems.length > before || mcpServers === undefined) return undefined;
  return { file, tools, agents: Array.isArray(agents) ? agents : [], modelProviders, mcpServers };
}

function checkTools(value: unknown, add: (message: string) => void): { tool: ToolClass; name: string }[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    add(`tools must be a list of tool classes, not ${describe(value)}`);
    return [];
  }
  const tools: { tool: ToolClass; name: string }[] = [];
  const firstIndex = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const at = `tools[${index}]`;
    if (typeof entry !== 'function') {
      add(`${at} must be a tool class (decorated with @Tool), not ${describe(entry)}`);
      return;
    }
    const className = entry.name || 'an anonymous class';
    const declared = getToolMetadata(entry);
    if (declared === undefined) {
      add(
        `${at} (class ${className}) is not decorated with @Tool({ name, description, parameters }) ` +
          '(if it is, its @Tool came from a copy of @agent-ledger/runtime older than this service\'s: install the service\'s version, or use the function form (api) => plugin and api.Tool)',
      );
      return;
    }
    let name: string;
    try {
      name = validateToolMetadata(declared).name;
    } catch (error) {
      add(`${at} (class ${className}) has invalid @Tool metadata: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const label = `tool "${name}" (${at}, class ${className})`;
    const prototype = (entry as { prototype?: Record<string, unknown> }).prototype;
    if (typeof prototype?.['execute'] !== 'function') {
      add(`${label} has no execute(args, context) method`);
      return;
    }
    const effectProblem = effectProblemOf(prototype);
    if (effectProblem !== undefined) {
      add(`${label} ${effectProblem}`);
      return;
    }
    const first = firstIndex.get(name);
    if (first !== undefined) {
      add(`${label} has the name of tools[${first}]: tool names must be unique`);
      return;
    }
    firstIndex.set(name, index);
    tools.push({ tool: entry as ToolClass, name });
  });
  return tools;
}

/**
 * Why a tool class's effect declaration is refused, if it is. In a plugin the
 * effect is always declared (`getEffect()`), READ_ONLY too: a write whose
 * declaration was forgotten would otherwise run as a read, unfenced. It is
 * read here, before anything starts, from an object of the class that its
 * constructor did not set up: `getEffect()` must return a constant.
 */
function effectProblemOf(prototype: Record<string, unknown>): string | undefined {
  const expected = `one of ${TOOL_EFFECTS.map((effect) => `ToolEffect.${effect}`).join(', ')}`;
  if (typeof prototype['getEffect'] !== 'function') {
    return `declares no effect: implement getEffect() returning ${expected} (in a plugin, a read-only tool declares READ_ONLY too)`;
  }
  let effect: unknown;
  try {
    effect = (prototype['getEffect'] as () => unknown).call(Object.create(prototype));
  } catch (error) {
    return `declares its effect with a getEffect() that threw (${error instanceof Error ? error.message : String(error)}): it must return a constant, ${expected}`;
  }
  if (!isToolEffect(effect)) return `declares an invalid effect: getEffect() returned ${JSON.stringify(effect) ?? String(effect)}, not ${expected}`;
  return undefined;
}

function checkModelProviders(value: unknown, add: (message: string) => void): [string, ModelProviderFactory][] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) {
    add(`modelProviders must be an object of factories by provider type ({ "my-llm": (settings, context) => provider }), not ${describe(value)}`);
    return [];
  }
  const providers: [string, ModelProviderFactory][] = [];
  for (const [type, factory] of Object.entries(value)) {
    if (!MODEL_PROVIDER_TYPE_PATTERN.test(type)) {
      add(`model provider type "${type}" must be lower-case letters, digits and "-", starting with a letter or digit, at most 63 characters`);
    } else if (typeof factory !== 'function') {
      add(`model provider type "${type}" must be a factory (settings, context) => ModelProvider, not ${describe(factory)}`);
    } else {
      providers.push([type, factory as ModelProviderFactory]);
    }
  }
  return providers;
}

/** A plugin's MCP server bindings, validated as the agents file's (`source`: `plugin <file>`, relative paths from its folder); `undefined` when refused. */
function checkMcpServers(file: string, value: unknown, add: (message: string) => void): readonly McpServerBinding[] | undefined {
  const reader = new ConfigReader();
  const servers = validateMcpServerBindings(value, 'mcpServers', reader, { source: `plugin ${file}`, baseDir: dirname(file) });
  for (const issue of reader.issues) add(formatConfigIssue(issue));
  return reader.issues.length > 0 ? undefined : servers;
}

function validatePluginAgents(plugin: Checked, options: { modelProviderTypes: readonly string[]; knownTools?: readonly string[] }, problems: PluginProblem[]): readonly AgentDefinition[] {
  if (plugin.agents.length === 0) return Object.freeze([]);
  const reader = new ConfigReader();
  const validated = validateAgentsDocument({ agents: plugin.agents }, reader, options);
  for (const issue of reader.issues) {
    const index = /^agents\[(\d+)\]/.exec(issue.path)?.[1];
    const name = index === undefined ? undefined : (plugin.agents[Number(index)] as { name?: unknown } | undefined)?.name;
    problems.push({ file: plugin.file, message: `${typeof name === 'string' ? `agent "${name}": ` : ''}${formatConfigIssue(issue)}` });
  }
  return reader.issues.length > 0 || validated === undefined ? Object.freeze([]) : validated.agents;
}

function isClass(value: object): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(value));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return `a function (${value.name || 'anonymous'})`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === 'object') return isPlainObject(value) ? 'an object' : `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'an object'}`;
  return `${typeof value} ${String(value)}`;
}
