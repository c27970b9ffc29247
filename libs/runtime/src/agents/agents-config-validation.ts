import { MAX_ITERATIONS } from '@agent-ledger/domain';
import type { AgentApprovals } from './agent-approvals';
import { DEFAULT_AGENT_APPROVALS, ON_DENIAL_VALUES } from './agent-approvals';
import type { AgentDefinition } from './agent-definition';
import { AGENT_NAME_PATTERN } from './agent-limits';
import type { AgentsConfig } from './agents-config-document';
import { TOOL_NAME_PATTERN } from '../tools/tool-metadata';
import type { ConfigReader } from './config-reader';
import { EFFECT_KEY_MESSAGE, EFFECT_KEYS, joinPath } from './config-reader';
import { validateModelProviderConfig } from './model-provider-config-validation';
import { mcpToolNamesOf, validateMcpServerBindings } from '../mcp/mcp-bindings-validation';

const AGENT_KEYS = ['name', 'description', 'instructions', 'provider', 'tools', 'maxIterations', 'approvals'] as const;
const APPROVALS_KEYS = ['preApproved', 'onDenial'] as const;

/** What the validation knows besides the document. */
export interface AgentsConfigValidationOptions {
  /**
   * The names of the tools that exist (the tool registry). When given, an
   * agent offered a tool that does not exist is refused. When absent, only the
   * names' syntax is checked; the runtime refuses unknown tools when it wires
   * the agents to the registry.
   */
  readonly knownTools?: readonly string[];
  /**
   * The model provider types registered besides the built-in `scripted` and
   * `openai` (by plugins). An agent's `provider.type` must be one of the
   * built-in types or of these. @default none
   */
  readonly modelProviderTypes?: readonly string[];
  /**
   * Where the document was read from, for its MCP server bindings' `source`
   * (a file's path). @default '(agents document)'
   */
  readonly source?: string;
  /**
   * The folder the relative paths of the document's MCP server bindings
   * (`command`, `cwd`) are resolved from: the file's folder.
   * @default process.cwd()
   */
  readonly baseDir?: string;
}

/**
 * Validates a parsed agents document (`{ agents: [...], mcpServers?: [...] }`),
 * recording every problem in `reader` with its full path. The tools the
 * document's `mcpServers` bind are known tools for its agents. Returns the
 * frozen configuration when there is none, `undefined` otherwise.
 */
export function validateAgentsDocument(
  document: unknown,
  reader: ConfigReader,
  options: AgentsConfigValidationOptions = {},
): AgentsConfig | undefined {
  if (document === null || document === undefined) {
    reader.add('', 'is empty: expected a mapping with an agents list');
    return undefined;
  }
  const root = reader.object(document, '', 'the agents document', ['agents', 'mcpServers']);
  if (root === undefined) return undefined;
  const mcpServers = validateMcpServerBindings(root['mcpServers'], 'mcpServers', reader, {
    source: options.source ?? '(agents document)',
    baseDir: options.baseDir ?? process.cwd(),
  });
  const entries = reader.array(root['agents'], 'agents', { nonEmpty: true });
  if (entries === undefined) return undefined;
  if (options.knownTools !== undefined) {
    // Named as far as the bindings can be read, so that an agent is not also refused for a tool of a binding with a problem.
    const bound = mcpServers === undefined ? mcpToolNamesOf(root['mcpServers']) : mcpServers.flatMap((server) => server.tools.map((tool) => tool.name));
    options = { ...options, knownTools: [...options.knownTools, ...bound] };
  }

  const agents: AgentDefinition[] = [];
  const firstIndexByName = new Map<string, number>();
  let valid = true;
  entries.forEach((entry, index) => {
    const agent = validateAgent(entry, joinPath('agents', index), reader, options);
    if (agent === undefined) {
      valid = false;
      return;
    }
    const first = firstIndexByName.get(agent.name);
    if (first !== undefined) {
      reader.add(joinPath(joinPath('agents', index), 'name'), `${JSON.stringify(agent.name)} is already the name of agents[${first}]`);
      valid = false;
      return;
    }
    firstIndexByName.set(agent.name, index);
    agents.push(agent);
  });
  return valid && mcpServers !== undefined ? Object.freeze({ agents: Object.freeze(agents), mcpServers }) : undefined;
}

function validateAgent(
  value: unknown,
  path: string,
  reader: ConfigReader,
  options: AgentsConfigValidationOptions,
): AgentDefinition | undefined {
  const agent = reader.object(value, path, 'an agent', AGENT_KEYS);
  if (agent === undefined) return undefined;
  const name = reader.pattern(
    agent['name'],
    joinPath(path, 'name'),
    AGENT_NAME_PATTERN,
    'lower-case letters, digits and "-", starting with a letter or digit, at most 63 characters',
  );
  const description =
    agent['description'] === undefined ? undefined : reader.string(agent['description'], joinPath(path, 'description'));
  const instructions = reader.string(agent['instructions'], joinPath(path, 'instructions'), { nonEmpty: true });
  const tools = agent['tools'] === undefined ? [] : validateTools(agent['tools'], joinPath(path, 'tools'), reader, options);
  const maxIterations =
    agent['maxIterations'] === undefined
      ? MAX_ITERATIONS
      : reader.number(agent['maxIterations'], joinPath(path, 'maxIterations'), { min: 1, max: MAX_ITERATIONS, integer: true });
  const provider = validateModelProviderConfig(agent['provider'], joinPath(path, 'provider'), reader, tools, options.modelProviderTypes, name);
  const approvals = validateApprovals(agent['approvals'], joinPath(path, 'approvals'), reader, tools);
  if (
    name === undefined ||
    (agent['description'] !== undefined && description === undefined) ||
    instructions === undefined ||
    tools === undefined ||
    maxIterations === undefined ||
    provider === undefined ||
    approvals === undefined
  ) {
    return undefined;
  }
  return Object.freeze({
    name,
    ...(description === undefined ? {} : { description }),
    instructions,
    provider,
    tools: Object.freeze([...tools]),
    maxIterations,
    approvals,
  });
}

/**
 * An agent's `approvals` (optional): `preApproved`, a list of the agent's
 * own tools, each at most once (@default `[]`), and `onDenial`, `tellModel` or
 * `endRun` (@default `endRun`). Returns them with the defaults applied, frozen.
 * `tools` is `undefined` when the agent's tools are invalid: the entries'
 * membership is then not checked (the agent is refused anyway).
 */
function validateApprovals(
  value: unknown,
  path: string,
  reader: ConfigReader,
  tools: readonly string[] | undefined,
): AgentApprovals | undefined {
  if (value === undefined) return DEFAULT_AGENT_APPROVALS;
  const approvals = reader.object(value, path, 'the approvals of an agent', APPROVALS_KEYS);
  if (approvals === undefined) return undefined;
  const preApproved =
    approvals['preApproved'] === undefined
      ? DEFAULT_AGENT_APPROVALS.preApproved
      : validatePreApproved(approvals['preApproved'], joinPath(path, 'preApproved'), reader, tools);
  const onDenialPath = joinPath(path, 'onDenial');
  const onDenialValue = approvals['onDenial'];
  let onDenial: AgentApprovals['onDenial'] | undefined = DEFAULT_AGENT_APPROVALS.onDenial;
  if (onDenialValue !== undefined) {
    onDenial = ON_DENIAL_VALUES.find((candidate) => candidate === onDenialValue);
    if (onDenial === undefined) {
      reader.add(
        onDenialPath,
        `must be ${ON_DENIAL_VALUES.map((candidate) => JSON.stringify(candidate)).join(' or ')} (tellModel shows the model the call was denied; endRun ends the run APPROVAL_DENIED), not ${typeof onDenialValue === 'string' ? JSON.stringify(onDenialValue) : String(onDenialValue)}`,
      );
    }
  }
  if (preApproved === undefined || onDenial === undefined) return undefined;
  return Object.freeze({ preApproved: Object.freeze([...preApproved]), onDenial });
}

function validatePreApproved(
  value: unknown,
  path: string,
  reader: ConfigReader,
  tools: readonly string[] | undefined,
): readonly string[] | undefined {
  const entries = reader.array(value, path);
  if (entries === undefined) return undefined;
  const preApproved: string[] = [];
  const firstIndexByTool = new Map<string, number>();
  let valid = true;
  entries.forEach((entry, index) => {
    const at = joinPath(path, index);
    const tool = reader.string(entry, at);
    if (tool === undefined) {
      valid = false;
      return;
    }
    const first = firstIndexByTool.get(tool);
    if (first !== undefined) {
      reader.add(at, `${JSON.stringify(tool)} is listed twice (first at ${joinPath(path, first)})`);
      valid = false;
      return;
    }
    firstIndexByTool.set(tool, index);
    if (tools !== undefined && !tools.includes(tool)) {
      reader.add(at, `must be one of the agent's tools (${tools.join(', ') || 'none'}), not ${JSON.stringify(tool)}`);
      valid = false;
      return;
    }
    preApproved.push(tool);
  });
  return valid ? preApproved : undefined;
}

function validateTools(
  value: unknown,
  path: string,
  reader: ConfigReader,
  options: AgentsConfigValidationOptions,
): readonly string[] | undefined {
  const entries = reader.array(value, path);
  if (entries === undefined) return undefined;
  const tools: string[] = [];
  const firstIndexByTool = new Map<string, number>();
  let valid = true;
  entries.forEach((entry, index) => {
    const at = joinPath(path, index);
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      // `- { name: files.write, effect: READ_ONLY }`: say why an effect cannot be set here, not only that a string was expected.
      for (const key of Object.keys(entry)) {
        if (EFFECT_KEYS.includes(key)) reader.add(joinPath(at, key), EFFECT_KEY_MESSAGE);
      }
      reader.add(at, 'must be a tool name (a string); a tool is configured in code, not here');
      valid = false;
      return;
    }
    const tool = reader.pattern(entry, at, TOOL_NAME_PATTERN, 'a tool name (a letter, then letters, digits, ".", "_", "-"; at most 64 characters)');
    if (tool === undefined) {
      valid = false;
      return;
    }
    const first = firstIndexByTool.get(tool);
    if (first !== undefined) {
      reader.add(at, `${JSON.stringify(tool)} is listed twice (first at ${joinPath(path, first)})`);
      valid = false;
      return;
    }
    if (options.knownTools !== undefined && !options.knownTools.includes(tool)) {
      reader.add(at, `${JSON.stringify(tool)} is not a known tool (known: ${options.knownTools.join(', ') || 'none'})`);
      valid = false;
      return;
    }
    firstIndexByTool.set(tool, index);
    tools.push(tool);
  });
  return valid ? tools : undefined;
}
