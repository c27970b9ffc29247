import { isAbsolute, resolve, sep } from 'node:path';
import type { ToolEffect } from '@agent-ledger/domain';
import { isToolEffect, TOOL_EFFECTS } from '@agent-ledger/domain';
import type { ConfigReader } from '../agents/config-reader';
import { describeConfigValue, EFFECT_KEYS, isPlainObject, joinPath } from '../agents/config-reader';
import type { ToolDataClass } from '../tools/tool-metadata';
import { TOOL_DATA_CLASSES, TOOL_NAME_PATTERN } from '../tools/tool-metadata';
import type {
  McpHttpTransportBinding,
  McpRestartPolicy,
  McpServerBinding,
  McpStdioTransportBinding,
  McpToolBinding,
  McpTransportBinding,
  McpValueSource,
} from './mcp-server-binding';
import { MCP_BINDING_DEFAULTS, MCP_SERVER_NAME_PATTERN } from './mcp-server-binding';

/** The pattern of an MCP tool's name on its server, as a binding's `tools` keys name it. */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The bounds of a binding's numbers, each an integer. */
export const MCP_BINDING_LIMITS = Object.freeze({
  startTimeoutSeconds: Object.freeze({ min: 1, max: 600 }),
  maxInlineBytes: Object.freeze({ min: 1_024, max: 16_777_216 }),
  maxResultBytes: Object.freeze({ min: 1_024, max: 16_777_216 }),
  operationDeadlineSeconds: Object.freeze({ min: 1, max: 86_400 }),
  restartDelayMs: Object.freeze({ min: 1, max: 3_600_000 }),
});

/**
 * A header's or an environment variable's name that looks like it holds a
 * secret (case-insensitive): its value may not be a literal in a binding.
 */
export const MCP_SECRET_NAME_PATTERN = /authorization|token|key|secret|password|cookie/i;

/** Where a binding is read from: for its `source`, and the folder its relative paths are resolved from. */
export interface McpBindingsContext {
  /** The binding's file path, or `plugin <file>`. */
  readonly source: string;
  /** The folder of that file (absolute). */
  readonly baseDir: string;
}

const SERVER_KEYS = ['name', 'transport', 'trustHints', 'startTimeoutSeconds', 'maxInlineBytes', 'maxResultBytes', 'restart', 'tools'] as const;
const STDIO_KEYS = ['type', 'command', 'args', 'cwd', 'env'] as const;
const HTTP_KEYS = ['type', 'url', 'headers'] as const;
const RESTART_KEYS = ['initialDelayMs', 'maxDelayMs'] as const;
const TOOL_KEYS = ['effect', 'operationDeadlineSeconds', 'dataClass', 'requiresApproval', 'as'] as const;
const VALUE_SOURCE_KEYS = ['fromEnv', 'fromFile', 'prefix'] as const;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** RFC 9110's token: the characters of a header's name. */
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TOOL_NAME_RULE = 'a letter, then letters, digits, ".", "_", "-"; at most 64 characters';
const EFFECT_VALUES = TOOL_EFFECTS.join(', ');

/**
 * Validates the `mcpServers` list of a configuration (the agents file, the
 * service's configuration file, a plugin), recording every problem in
 * `reader` with its path under `path` (`mcpServers[0].transport.url`).
 *
 * Rules: a list of mappings (absent or `null`: none). Each server has a
 * unique `name` matching {@link MCP_SERVER_NAME_PATTERN}; a `transport`
 * chosen by `type`: `stdio` (`command`, required; `args`, a list of strings;
 * `cwd`; `env`, variables by name) or `http` (`url`, http or https, without
 * `user:password@` nor a query parameter named like a secret; `headers`);
 * `trustHints` (boolean); `startTimeoutSeconds`, `maxInlineBytes`, `maxResultBytes` and
 * `restart` (`initialDelayMs` at most `maxDelayMs`) within
 * {@link MCP_BINDING_LIMITS}; `tools`, a non-empty mapping of MCP tool
 * names ({@link MCP_TOOL_NAME_PATTERN}) to settings (`{}` or `null` for
 * none): `effect`, `operationDeadlineSeconds`, `dataClass`,
 * `requiresApproval`, and `as`, the agent-ledger name (`<server>.<name>`)
 * when `<server>.<tool>` is no valid tool name; names unique in the server.
 *
 * `effect` is accepted only there, at `mcpServers[i].tools.<tool>.effect`:
 * an MCP tool's code is neither the product's nor a plugin's. `effect`,
 * `effects` and `toolEffects` stay refused at every other path.
 *
 * An `env` or `headers` value is a literal string or `{ fromEnv: NAME }` /
 * `{ fromFile: path }` with an optional `prefix`, read when the server is
 * started (`resolveMcpValue`), not here. A literal is refused where the
 * name looks like a secret ({@link MCP_SECRET_NAME_PATTERN}). No message
 * quotes a value that may be a secret.
 *
 * Defaults come from {@link MCP_BINDING_DEFAULTS}. A `cwd` is resolved from
 * `context.baseDir` (@default that folder), as is a `command` given as a
 * relative path (with a `/`); a bare `command` (`node`) is looked up on the
 * server's `PATH`.
 *
 * What one document cannot see is checked where the bindings of every
 * source meet (the service's `loadServiceDefinitions`, `loadPlugins`): server
 * names unique across sources, none the prefix of a built-in tool, no bound
 * name another tool's.
 *
 * @returns the frozen bindings (`[]` for none), or `undefined` when a problem was recorded.
 */
export function validateMcpServerBindings(
  value: unknown,
  path: string,
  reader: ConfigReader,
  context: McpBindingsContext,
): readonly McpServerBinding[] | undefined {
  if (value === undefined || value === null) return Object.freeze([]);
  // An unknown key is recorded without making its mapping unreadable: any new issue refuses the bindings.
  const issuesBefore = reader.issues.length;
  const entries = reader.array(value, path);
  if (entries === undefined) return undefined;
  const servers: McpServerBinding[] = [];
  const firstIndexByName = new Map<string, number>();
  let valid = true;
  entries.forEach((entry, index) => {
    const at = joinPath(path, index);
    const server = readServer(entry, at, reader, context);
    if (server === undefined) valid = false;
    // By the name given, valid or not, so that a duplicate is reported with the other problems.
    const name = isPlainObject(entry) ? entry['name'] : undefined;
    if (typeof name !== 'string' || !MCP_SERVER_NAME_PATTERN.test(name)) return;
    const first = firstIndexByName.get(name);
    if (first !== undefined) {
      reader.add(joinPath(at, 'name'), `${JSON.stringify(name)} is already the name of ${joinPath(path, first)}: server names must be unique`);
      valid = false;
      return;
    }
    firstIndexByName.set(name, index);
    if (server !== undefined) servers.push(server);
  });
  return valid && reader.issues.length === issuesBefore ? Object.freeze(servers) : undefined;
}

/**
 * The agent-ledger tool names an `mcpServers` value gives, as far as they
 * can be read (`<server>.<tool>`, or `as`), whether or not the bindings are
 * valid: the agents beside bindings that have a problem are checked against
 * these, so that they are not also refused for naming a tool the bindings
 * would give.
 */
export function mcpToolNamesOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const entry of value) {
    if (!isPlainObject(entry) || typeof entry['name'] !== 'string' || !isPlainObject(entry['tools'])) continue;
    for (const [tool, settings] of Object.entries(entry['tools'])) {
      const as = isPlainObject(settings) ? settings['as'] : undefined;
      names.push(typeof as === 'string' ? as : `${entry['name']}.${tool}`);
    }
  }
  return names;
}

function readServer(value: unknown, path: string, reader: ConfigReader, context: McpBindingsContext): McpServerBinding | undefined {
  const server = reader.object(value, path, 'an MCP server binding', SERVER_KEYS, effectHints(path));
  if (server === undefined) return undefined;
  const namePath = joinPath(path, 'name');
  const name = reader.pattern(server['name'], namePath, MCP_SERVER_NAME_PATTERN, 'a server name (a lower-case letter, then lower-case letters, digits and "-"; at most 31 characters)');
  const transport = readTransport(server['transport'], joinPath(path, 'transport'), reader, context.baseDir, path);
  const trustHints = server['trustHints'] === undefined ? MCP_BINDING_DEFAULTS.trustHints : readBoolean(server['trustHints'], joinPath(path, 'trustHints'), reader);
  const startTimeoutSeconds =
    server['startTimeoutSeconds'] === undefined
      ? MCP_BINDING_DEFAULTS.startTimeoutSeconds
      : reader.number(server['startTimeoutSeconds'], joinPath(path, 'startTimeoutSeconds'), { ...MCP_BINDING_LIMITS.startTimeoutSeconds, integer: true });
  const maxInlineBytes =
    server['maxInlineBytes'] === undefined
      ? MCP_BINDING_DEFAULTS.maxInlineBytes
      : reader.number(server['maxInlineBytes'], joinPath(path, 'maxInlineBytes'), { ...MCP_BINDING_LIMITS.maxInlineBytes, integer: true });
  const maxResultBytes =
    server['maxResultBytes'] === undefined
      ? MCP_BINDING_DEFAULTS.maxResultBytes
      : reader.number(server['maxResultBytes'], joinPath(path, 'maxResultBytes'), { ...MCP_BINDING_LIMITS.maxResultBytes, integer: true });
  const restart = readRestart(server['restart'], joinPath(path, 'restart'), reader, path);
  const tools = readTools(server['tools'], joinPath(path, 'tools'), reader, name);
  if (
    name === undefined ||
    transport === undefined ||
    trustHints === undefined ||
    startTimeoutSeconds === undefined ||
    maxInlineBytes === undefined ||
    maxResultBytes === undefined ||
    restart === undefined ||
    tools === undefined
  ) {
    return undefined;
  }
  return Object.freeze({ name, transport, trustHints, startTimeoutSeconds, maxInlineBytes, maxResultBytes, restart, tools, source: context.source, baseDir: context.baseDir });
}

function readTransport(value: unknown, path: string, reader: ConfigReader, baseDir: string, serverPath: string): McpTransportBinding | undefined {
  if (value === undefined) {
    reader.add(path, 'is required: { type: stdio, command } for a server the service starts, or { type: http, url } for one it connects to');
    return undefined;
  }
  const hints = { ...effectHints(serverPath), restart: `belongs to the server, not its transport: ${joinPath(serverPath, 'restart')}`, tools: `belong to the server, not its transport: ${joinPath(serverPath, 'tools')}` };
  const type = isPlainObject(value) ? value['type'] : undefined;
  if (type === 'stdio') return readStdio(reader.object(value, path, 'a stdio transport', STDIO_KEYS, hints), path, reader, baseDir);
  if (type === 'http') return readHttp(reader.object(value, path, 'an http transport', HTTP_KEYS, hints), path, reader);
  const transport = reader.object(value, path, 'a transport', [...new Set([...STDIO_KEYS, ...HTTP_KEYS])], hints);
  if (transport !== undefined) {
    reader.add(
      joinPath(path, 'type'),
      type === undefined
        ? 'is required: stdio (a command the service starts) or http (a Streamable HTTP endpoint)'
        : `must be stdio or http, not ${describeConfigValue(type)}`,
    );
  }
  return undefined;
}

function readStdio(transport: Readonly<Record<string, unknown>> | undefined, path: string, reader: ConfigReader, baseDir: string): McpStdioTransportBinding | undefined {
  if (transport === undefined) return undefined;
  const command = reader.string(transport['command'], joinPath(path, 'command'), { nonEmpty: true });
  const args = transport['args'] === undefined ? [] : readStrings(transport['args'], joinPath(path, 'args'), reader);
  const cwd = transport['cwd'] === undefined ? baseDir : reader.string(transport['cwd'], joinPath(path, 'cwd'), { nonEmpty: true });
  const env = readValueSources(transport['env'], joinPath(path, 'env'), reader, 'variable');
  if (command === undefined || args === undefined || cwd === undefined || env === undefined) return undefined;
  const isPath = command.includes('/') || command.includes(sep);
  return Object.freeze({
    type: 'stdio',
    command: isPath && !isAbsolute(command) ? resolve(baseDir, command) : command,
    args: Object.freeze(args),
    cwd: resolve(baseDir, cwd),
    env,
  });
}

function readHttp(transport: Readonly<Record<string, unknown>> | undefined, path: string, reader: ConfigReader): McpHttpTransportBinding | undefined {
  if (transport === undefined) return undefined;
  const url = readUrl(transport['url'], joinPath(path, 'url'), reader);
  const headers = readValueSources(transport['headers'], joinPath(path, 'headers'), reader, 'header');
  if (url === undefined || headers === undefined) return undefined;
  return Object.freeze({ type: 'http', url, headers });
}

/** An http(s) URL; no message quotes it, as it may hold a secret. */
function readUrl(value: unknown, path: string, reader: ConfigReader): string | undefined {
  const text = reader.string(value, path, { nonEmpty: true });
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    reader.add(path, 'must be an http(s) URL (https://host/path)');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    reader.add(path, `must be an http(s) URL, not a ${url.protocol} one`);
    return undefined;
  }
  const inHeader = 'send it in a header from the environment or a file, e.g. Authorization: { fromEnv: NAME, prefix: "Bearer " }';
  if (url.username !== '' || url.password !== '') {
    reader.add(path, `must not carry credentials (user:password@): ${inHeader}`);
    return undefined;
  }
  const secret = [...url.searchParams.keys()].find((name) => MCP_SECRET_NAME_PATTERN.test(name));
  if (secret !== undefined) {
    reader.add(path, `must not carry a secret in its query (${secret}=...): ${inHeader}`);
    return undefined;
  }
  return text.trim();
}

function readRestart(value: unknown, path: string, reader: ConfigReader, serverPath: string): McpRestartPolicy | undefined {
  if (value === undefined) return MCP_BINDING_DEFAULTS.restart;
  const restart = reader.object(value, path, 'a restart policy', RESTART_KEYS, effectHints(serverPath));
  if (restart === undefined) return undefined;
  const delay = (key: 'initialDelayMs' | 'maxDelayMs'): number | undefined =>
    restart[key] === undefined ? MCP_BINDING_DEFAULTS.restart[key] : reader.number(restart[key], joinPath(path, key), { ...MCP_BINDING_LIMITS.restartDelayMs, integer: true });
  const initialDelayMs = delay('initialDelayMs');
  const maxDelayMs = delay('maxDelayMs');
  if (initialDelayMs === undefined || maxDelayMs === undefined) return undefined;
  if (initialDelayMs > maxDelayMs) {
    const at = joinPath(path, restart['maxDelayMs'] === undefined ? 'initialDelayMs' : 'maxDelayMs');
    const shown = (key: 'initialDelayMs' | 'maxDelayMs', n: number) => `${n}${restart[key] === undefined ? ', the default' : ''}`;
    reader.add(at, `must keep initialDelayMs (${shown('initialDelayMs', initialDelayMs)}) at most maxDelayMs (${shown('maxDelayMs', maxDelayMs)})`);
    return undefined;
  }
  return Object.freeze({ initialDelayMs, maxDelayMs });
}

function readTools(value: unknown, path: string, reader: ConfigReader, server: string | undefined): readonly McpToolBinding[] | undefined {
  if (value === undefined) {
    reader.add(path, 'is required: the tools offered to agents, each with its settings (read_file: { effect: READ_ONLY }); a tool not listed is not offered');
    return undefined;
  }
  if (!isPlainObject(value)) {
    reader.add(path, `must be a mapping of the server's tool names to their settings (read_file: { effect: READ_ONLY }), not ${describeConfigValue(value)}`);
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) {
    reader.add(path, 'must not be empty: list the tools offered to agents (a tool not listed is not offered)');
    return undefined;
  }
  const tools: McpToolBinding[] = [];
  const toolByName = new Map<string, string>();
  let valid = true;
  for (const [tool, settings] of entries) {
    const binding = readTool(tool, settings, joinPath(path, tool), reader, server);
    if (binding === undefined) {
      valid = false;
      continue;
    }
    const other = toolByName.get(binding.name);
    if (other !== undefined) {
      reader.add(joinPath(path, tool), `gives the tool name ${JSON.stringify(binding.name)}, as ${joinPath(path, other)} does: names must be unique (give one of them another with as)`);
      valid = false;
      continue;
    }
    toolByName.set(binding.name, tool);
    tools.push(binding);
  }
  return valid ? Object.freeze(tools) : undefined;
}

function readTool(tool: string, value: unknown, path: string, reader: ConfigReader, server: string | undefined): McpToolBinding | undefined {
  if (!MCP_TOOL_NAME_PATTERN.test(tool)) {
    reader.add(path, 'is not an MCP tool name (1 to 128 letters, digits, "_", "." or "-")');
    return undefined;
  }
  if (isToolEffect(value)) {
    reader.add(path, `must be the tool's settings (a mapping), not the effect alone: write { effect: ${value} }`);
    return undefined;
  }
  const settings = reader.object(value ?? {}, path, "an MCP tool's settings", TOOL_KEYS, TOOL_HINTS, { declaresToolEffect: true });
  if (settings === undefined) return undefined;
  let effect: ToolEffect | undefined;
  if (settings['effect'] !== undefined) {
    if (isToolEffect(settings['effect'])) effect = settings['effect'];
    else reader.add(joinPath(path, 'effect'), `must be one of ${EFFECT_VALUES}, not ${describeConfigValue(settings['effect'])}`);
  }
  const operationDeadlineSeconds =
    settings['operationDeadlineSeconds'] === undefined
      ? undefined
      : reader.number(settings['operationDeadlineSeconds'], joinPath(path, 'operationDeadlineSeconds'), { ...MCP_BINDING_LIMITS.operationDeadlineSeconds, integer: true });
  let dataClass: ToolDataClass | undefined;
  if (settings['dataClass'] !== undefined) {
    dataClass = TOOL_DATA_CLASSES.find((candidate) => candidate === settings['dataClass']);
    if (dataClass === undefined) reader.add(joinPath(path, 'dataClass'), `must be one of ${TOOL_DATA_CLASSES.join(', ')}, not ${describeConfigValue(settings['dataClass'])}`);
  }
  const requiresApproval = settings['requiresApproval'] === undefined ? undefined : readBoolean(settings['requiresApproval'], joinPath(path, 'requiresApproval'), reader);
  const name = readToolName(tool, settings['as'], path, reader, server);
  if (
    (settings['effect'] !== undefined && effect === undefined) ||
    (settings['operationDeadlineSeconds'] !== undefined && operationDeadlineSeconds === undefined) ||
    (settings['dataClass'] !== undefined && dataClass === undefined) ||
    (settings['requiresApproval'] !== undefined && requiresApproval === undefined) ||
    name === undefined
  ) {
    return undefined;
  }
  return Object.freeze({
    tool,
    name,
    ...(effect === undefined ? {} : { effect }),
    ...(operationDeadlineSeconds === undefined ? {} : { operationDeadlineSeconds }),
    ...(dataClass === undefined ? {} : { dataClass }),
    ...(requiresApproval === undefined ? {} : { requiresApproval }),
  });
}

/** The agent-ledger name of a bound tool: its `as`, else `<server>.<tool>`; `undefined` (a problem recorded, or the server's name invalid) when there is none. */
function readToolName(tool: string, as: unknown, path: string, reader: ConfigReader, server: string | undefined): string | undefined {
  if (as !== undefined) {
    const name = reader.pattern(as, joinPath(path, 'as'), TOOL_NAME_PATTERN, `a tool name (${TOOL_NAME_RULE})`);
    if (name === undefined || server === undefined) return undefined;
    if (!name.startsWith(`${server}.`)) {
      reader.add(joinPath(path, 'as'), `must start with "${server}." (the server's name), not ${JSON.stringify(name)}: an MCP tool is named <server>.<name>`);
      return undefined;
    }
    return name;
  }
  if (server === undefined) return undefined;
  const name = `${server}.${tool}`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    reader.add(path, `gives the tool name ${JSON.stringify(name)}, which is not one (${TOOL_NAME_RULE}): name it with as: ${server}.<name>`);
    return undefined;
  }
  return name;
}

/** A map of names (variables or headers) to {@link McpValueSource}s; absent: none. */
function readValueSources(value: unknown, path: string, reader: ConfigReader, kind: 'variable' | 'header'): Readonly<Record<string, McpValueSource>> | undefined {
  if (value === undefined) return Object.freeze({});
  if (!isPlainObject(value)) {
    reader.add(path, `must be a mapping of ${kind} names to values, not ${describeConfigValue(value)}`);
    return undefined;
  }
  const sources: Record<string, McpValueSource> = {};
  let valid = true;
  for (const [name, entry] of Object.entries(value)) {
    const at = joinPath(path, name);
    const pattern = kind === 'variable' ? ENV_NAME_PATTERN : HEADER_NAME_PATTERN;
    if (!pattern.test(name)) {
      reader.add(at, kind === 'variable' ? 'is not a variable name (letters, digits and "_", not starting with a digit)' : "is not a header name (letters, digits and !#$%&'*+.^_`|~-)");
      valid = false;
      continue;
    }
    const source = readValueSource(entry, at, name, reader);
    if (source === undefined) valid = false;
    else sources[name] = source;
  }
  return valid ? Object.freeze(sources) : undefined;
}

function readValueSource(value: unknown, path: string, name: string, reader: ConfigReader): McpValueSource | undefined {
  const shapes = '{ fromEnv: NAME } (an environment variable of the service) or { fromFile: path }, each with an optional prefix';
  if (typeof value === 'string') {
    const secret = MCP_SECRET_NAME_PATTERN.exec(name)?.[0];
    if (secret === undefined) return value;
    // The value is not quoted: it is likely the secret itself.
    reader.add(path, `looks like a secret (its name has "${secret.toLowerCase()}") and must not be written in a file: use ${shapes}`);
    return undefined;
  }
  if (!isPlainObject(value)) {
    const quote = typeof value === 'number' || typeof value === 'boolean' ? ` (quote it to pass it as text: "${String(value)}")` : '';
    reader.add(path, `must be a string or ${shapes}, not ${describeConfigValue(value)}${quote}`);
    return undefined;
  }
  const source = reader.object(value, path, 'a value from the environment or a file', VALUE_SOURCE_KEYS);
  if (source === undefined) return undefined;
  const hasEnv = source['fromEnv'] !== undefined;
  const hasFile = source['fromFile'] !== undefined;
  if (hasEnv === hasFile) {
    reader.add(path, hasEnv ? 'must have fromEnv or fromFile, not both' : `must have fromEnv or fromFile: ${shapes}`);
    return undefined;
  }
  const prefix = source['prefix'] === undefined ? undefined : reader.string(source['prefix'], joinPath(path, 'prefix'));
  if (source['prefix'] !== undefined && prefix === undefined) return undefined;
  const withPrefix = prefix === undefined ? {} : { prefix };
  if (hasEnv) {
    const fromEnv = reader.pattern(source['fromEnv'], joinPath(path, 'fromEnv'), ENV_NAME_PATTERN, 'a variable name (letters, digits and "_", not starting with a digit)');
    return fromEnv === undefined ? undefined : Object.freeze({ fromEnv, ...withPrefix });
  }
  const fromFile = reader.string(source['fromFile'], joinPath(path, 'fromFile'), { nonEmpty: true });
  return fromFile === undefined ? undefined : Object.freeze({ fromFile, ...withPrefix });
}

function readStrings(value: unknown, path: string, reader: ConfigReader): string[] | undefined {
  const entries = reader.array(value, path);
  if (entries === undefined) return undefined;
  let valid = true;
  entries.forEach((entry, index) => {
    if (typeof entry === 'string') return;
    const quote = typeof entry === 'number' || typeof entry === 'boolean' ? ` (quote it: "${String(entry)}")` : '';
    reader.add(joinPath(path, index), `must be a string, not ${describeConfigValue(entry)}${quote}`);
    valid = false;
  });
  return valid ? (entries as string[]) : undefined;
}

function readBoolean(value: unknown, path: string, reader: ConfigReader): boolean | undefined {
  if (typeof value === 'boolean') return value;
  reader.add(path, `must be true or false, not ${describeConfigValue(value)}`);
  return undefined;
}

/** The message for an effect key anywhere in a server's binding but a tool's `effect`. */
function effectHints(serverPath: string): Record<string, string> {
  const message = `is refused here: an MCP tool's effect is declared per tool, at ${joinPath(serverPath, 'tools')}.<tool>.effect (${EFFECT_VALUES})`;
  return Object.fromEntries(EFFECT_KEYS.map((key) => [key, message]));
}

const TOOL_HINTS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(EFFECT_KEYS.filter((key) => key !== 'effect').map((key) => [key, `is refused: an MCP tool declares its effect with the key effect (${EFFECT_VALUES})`])),
);
