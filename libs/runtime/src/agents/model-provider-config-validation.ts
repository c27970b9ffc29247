import { isAbsolute } from 'node:path';
import type { ApiKeySource, BuiltinModelProviderConfig, ModelProviderConfig, ScriptedRound } from './agent-definition';
import {
  ENV_VAR_NAME_PATTERN,
  MAX_ANTHROPIC_MAX_TOKENS,
  MAX_ANTHROPIC_TEMPERATURE,
  MAX_MODEL_TIMEOUT_SECONDS,
  MAX_TEMPERATURE,
} from './agent-limits';
import { TOOL_NAME_PATTERN } from '../tools/tool-metadata';
import type { ConfigReader } from './config-reader';
import { isPlainObject, joinPath } from './config-reader';
import { deepFreeze } from './deep-freeze';
import { scriptTemplateIssues } from '../models/scripted/script-template';

/** The provider types built into the runtime; plugins may register more (`modelProviders`), but not these nor `plugin`. */
export const MODEL_PROVIDER_TYPES: readonly BuiltinModelProviderConfig['type'][] = Object.freeze(['scripted', 'openai', 'anthropic']);

const PLUGIN_API_KEY_HINT =
  'is refused: never put an API key in the configuration; put it in an environment variable and name that variable in apiKeyEnv';
const PLUGIN_API_KEY_HINTS: Readonly<Record<string, string>> = { apiKey: PLUGIN_API_KEY_HINT, api_key: PLUGIN_API_KEY_HINT, key: PLUGIN_API_KEY_HINT };
const API_KEY_HINT =
  'is refused: never put an API key in the configuration; name the environment variable that holds it in apiKeyEnv, or the file that holds it in apiKeyFile';
const API_KEY_HINTS: Readonly<Record<string, string>> = { apiKey: API_KEY_HINT, api_key: API_KEY_HINT, key: API_KEY_HINT };
const SCRIPTED_KEYS = ['type', 'script'] as const;
/** The answers a final round may give instead of `final`, after a denial or a failure. */
const ALTERNATIVE_FINALS = ['finalIfDenied', 'finalIfFailed'] as const;
const OPENAI_KEYS = ['type', 'baseUrl', 'baseUrlEnv', 'model', 'apiKeyEnv', 'apiKeyFile', 'timeoutSeconds', 'temperature'] as const;
const ANTHROPIC_KEYS = ['type', 'baseUrl', 'baseUrlEnv', 'model', 'apiKeyEnv', 'apiKeyFile', 'maxTokens', 'timeoutSeconds', 'temperature'] as const;

/**
 * Validates one provider configuration (`agents[i].provider`), recording every
 * problem in `reader` under `path`. Returns a fresh, frozen copy when it is
 * valid, `undefined` otherwise.
 *
 * @param agentTools - the tools the agent is offered; a scripted tool call of
 *   any other tool is refused (the runtime would refuse it at run time anyway).
 *   `undefined` skips that check (the agent's tool list was itself invalid).
 * @param pluginTypes - the provider types registered besides the built-in
 *   ones (by plugins): such a provider's other keys are its `settings`, JSON
 *   data for the plugin's factory. @default none
 * @param agentName - the agent's name, for the messages about a script's placeholders.
 */
export function validateModelProviderConfig(
  value: unknown,
  path: string,
  reader: ConfigReader,
  agentTools: readonly string[] | undefined,
  pluginTypes: readonly string[] = [],
  agentName?: string,
): ModelProviderConfig | undefined {
  const types = [...MODEL_PROVIDER_TYPES, ...pluginTypes];
  if (value === undefined) {
    reader.add(path, `is required (a mapping with a type: ${types.join(', ')})`);
    return undefined;
  }
  if (!isPlainObject(value)) {
    reader.object(value, path, 'a provider', []);
    return undefined;
  }
  const type = value['type'];
  if (type === 'scripted') {
    return validateScripted(value, path, reader, agentTools, agentName);
  }
  if (type === 'openai') {
    return validateOpenAi(value, path, reader);
  }
  if (type === 'anthropic') {
    return validateAnthropic(value, path, reader);
  }
  if (typeof type === 'string' && pluginTypes.includes(type)) {
    return validatePluginProvider(value, type, path, reader);
  }
  reader.object(value, path, 'a provider', [...new Set([...SCRIPTED_KEYS, ...OPENAI_KEYS, ...ANTHROPIC_KEYS])], API_KEY_HINTS);
  reader.add(
    joinPath(path, 'type'),
    type === undefined ? `is required (one of ${types.join(', ')})` : `must be one of ${types.join(', ')}, not ${JSON.stringify(type)}`,
  );
  return undefined;
}

/** A provider of a plugin's type: every key but `type` is a setting (JSON data), an API key refused. */
function validatePluginProvider(value: Readonly<Record<string, unknown>>, type: string, path: string, reader: ConfigReader): ModelProviderConfig | undefined {
  const before = reader.issues.length;
  const rest: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(value)) {
    if (key === 'type') continue;
    const hint = Object.hasOwn(PLUGIN_API_KEY_HINTS, key) ? PLUGIN_API_KEY_HINTS[key] : undefined;
    if (hint !== undefined) reader.add(joinPath(path, key), hint);
    else rest[key] = setting;
  }
  const settings = reader.jsonObject(rest, path);
  if (settings === undefined || reader.issues.length > before) return undefined;
  return Object.freeze({ type: 'plugin' as const, pluginType: type, settings: deepFreeze(structuredClone(settings)) });
}

/**
 * Validates an `openai` provider configuration alone (what the provider's
 * constructor checks when it is built without the configuration file).
 */
export function validateOpenAiProviderConfig(value: unknown, path: string, reader: ConfigReader): ModelProviderConfig | undefined {
  return validateOpenAi(value, path, reader);
}

/**
 * Validates an `anthropic` provider configuration alone (what the provider's
 * constructor checks when it is built without the configuration file).
 */
export function validateAnthropicProviderConfig(value: unknown, path: string, reader: ConfigReader): ModelProviderConfig | undefined {
  return validateAnthropic(value, path, reader);
}

function validateScripted(
  value: unknown,
  path: string,
  reader: ConfigReader,
  agentTools: readonly string[] | undefined,
  agentName: string | undefined,
): ModelProviderConfig | undefined {
  // Re-read with the keys of this type only, so that `baseUrl` on a scripted provider is refused.
  const provider = reader.object(value, path, 'a scripted provider', SCRIPTED_KEYS);
  if (provider === undefined) return undefined;
  const scriptPath = joinPath(path, 'script');
  const script = reader.array(provider['script'], scriptPath, { nonEmpty: true });
  if (script === undefined) return undefined;
  const rounds: ScriptedRound[] = [];
  let valid = true;
  let finalAt: number | undefined;
  script.forEach((entry, index) => {
    const roundPath = joinPath(scriptPath, index);
    if (finalAt !== undefined) {
      reader.add(roundPath, `can never be reached: round ${finalAt} before it is a final answer, which ends the run`);
      valid = false;
      return;
    }
    const round = validateRound(entry, roundPath, reader, agentTools);
    if (round === undefined) {
      valid = false;
      return;
    }
    if ('final' in round) finalAt = index;
    rounds.push(round);
  });
  if (!valid) return undefined;
  // The placeholders, once every round is known: a reference reaches back to earlier rounds.
  const issues = scriptTemplateIssues(rounds);
  const agent = agentName === undefined ? '' : `agent ${agentName}, `;
  for (const issue of issues) reader.add(`${scriptPath}${issue.path}`, `${issue.message} (${agent}round ${issue.round})`);
  return issues.length === 0 ? Object.freeze({ type: 'scripted' as const, script: Object.freeze(rounds) }) : undefined;
}

function validateRound(
  value: unknown,
  path: string,
  reader: ConfigReader,
  agentTools: readonly string[] | undefined,
): ScriptedRound | undefined {
  const round = reader.object(value, path, 'a scripted round', ['toolCalls', 'final', ...ALTERNATIVE_FINALS]);
  if (round === undefined) return undefined;
  const hasCalls = round['toolCalls'] !== undefined;
  const hasFinal = round['final'] !== undefined;
  if (hasCalls === hasFinal) {
    reader.add(path, `must have exactly one of toolCalls or final, not ${hasCalls ? 'both' : 'neither'}`);
    return undefined;
  }
  if (hasFinal) {
    const final = reader.string(round['final'], joinPath(path, 'final'), { nonEmpty: true });
    let valid = final !== undefined;
    const alternatives: Partial<Record<(typeof ALTERNATIVE_FINALS)[number], string>> = {};
    for (const key of ALTERNATIVE_FINALS) {
      if (round[key] === undefined) continue;
      const text = reader.string(round[key], joinPath(path, key), { nonEmpty: true });
      if (text === undefined) valid = false;
      else alternatives[key] = text;
    }
    return valid && final !== undefined ? Object.freeze({ final, ...alternatives }) : undefined;
  }
  for (const key of ALTERNATIVE_FINALS) {
    if (round[key] !== undefined) reader.add(joinPath(path, key), 'is an alternative final answer: it belongs in a round with final, not toolCalls');
  }
  if (ALTERNATIVE_FINALS.some((key) => round[key] !== undefined)) return undefined;
  const callsPath = joinPath(path, 'toolCalls');
  const calls = reader.array(round['toolCalls'], callsPath, { nonEmpty: true });
  if (calls === undefined) return undefined;
  const toolCalls: { tool: string; arguments: Readonly<Record<string, unknown>> }[] = [];
  let valid = true;
  calls.forEach((entry, index) => {
    const callPath = joinPath(callsPath, index);
    const call = reader.object(entry, callPath, 'a scripted tool call', ['tool', 'arguments']);
    if (call === undefined) {
      valid = false;
      return;
    }
    const toolPath = joinPath(callPath, 'tool');
    let tool = reader.pattern(call['tool'], toolPath, TOOL_NAME_PATTERN, 'a tool name (a letter, then letters, digits, ".", "_", "-"; at most 64 characters)');
    if (tool !== undefined && agentTools !== undefined && !agentTools.includes(tool)) {
      reader.add(toolPath, `names ${JSON.stringify(tool)}, which is not among the agent's tools (${agentTools.join(', ') || 'none'})`);
      tool = undefined;
    }
    const args = call['arguments'] === undefined ? {} : reader.jsonObject(call['arguments'], joinPath(callPath, 'arguments'));
    if (tool === undefined || args === undefined) {
      valid = false;
      return;
    }
    toolCalls.push(Object.freeze({ tool, arguments: deepFreeze(structuredClone(args)) }));
  });
  return valid ? Object.freeze({ toolCalls: Object.freeze(toolCalls) }) : undefined;
}

function validateOpenAi(value: unknown, path: string, reader: ConfigReader): ModelProviderConfig | undefined {
  const provider = reader.object(value, path, 'an openai provider', OPENAI_KEYS, API_KEY_HINTS);
  if (provider === undefined) return undefined;
  const before = reader.issues.length;
  if (provider['type'] !== 'openai') {
    reader.add(joinPath(path, 'type'), `must be openai, not ${JSON.stringify(provider['type'])}`);
  }
  const baseUrl = validateBaseUrl(provider['baseUrl'], joinPath(path, 'baseUrl'), reader, '/chat/completions');
  const model = reader.string(provider['model'], joinPath(path, 'model'), { nonEmpty: true });
  const common = validateHttpProviderCommon(provider, path, reader, { maxTemperature: MAX_TEMPERATURE, keyEnv: 'OPENAI_API_KEY', urlEnv: 'OPENAI_BASE_URL' });
  if (reader.issues.length > before || baseUrl === undefined || model === undefined) return undefined;
  return Object.freeze({ type: 'openai' as const, baseUrl, model, ...common });
}

function validateAnthropic(value: unknown, path: string, reader: ConfigReader): ModelProviderConfig | undefined {
  const provider = reader.object(value, path, 'an anthropic provider', ANTHROPIC_KEYS, API_KEY_HINTS);
  if (provider === undefined) return undefined;
  const before = reader.issues.length;
  if (provider['type'] !== 'anthropic') {
    reader.add(joinPath(path, 'type'), `must be anthropic, not ${JSON.stringify(provider['type'])}`);
  }
  const baseUrl = provider['baseUrl'] === undefined ? undefined : validateBaseUrl(provider['baseUrl'], joinPath(path, 'baseUrl'), reader, '/v1/messages');
  const model = reader.string(provider['model'], joinPath(path, 'model'), { nonEmpty: true });
  const maxTokens =
    provider['maxTokens'] === undefined
      ? undefined
      : reader.number(provider['maxTokens'], joinPath(path, 'maxTokens'), { min: 1, max: MAX_ANTHROPIC_MAX_TOKENS, integer: true });
  const common = validateHttpProviderCommon(provider, path, reader, {
    maxTemperature: MAX_ANTHROPIC_TEMPERATURE,
    keyEnv: 'ANTHROPIC_API_KEY',
    urlEnv: 'ANTHROPIC_BASE_URL',
  });
  if (reader.issues.length > before || model === undefined) return undefined;
  return Object.freeze({
    type: 'anthropic' as const,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    model,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...common,
  });
}

/** The optional settings an `openai` and an `anthropic` provider share: where the key and the URL come from, the timeout, the temperature. */
interface HttpProviderCommon extends ApiKeySource {
  readonly baseUrlEnv?: string;
  readonly timeoutSeconds?: number;
  readonly temperature?: number;
}

function validateHttpProviderCommon(
  provider: Readonly<Record<string, unknown>>,
  path: string,
  reader: ConfigReader,
  rules: { readonly maxTemperature: number; readonly keyEnv: string; readonly urlEnv: string },
): HttpProviderCommon {
  const apiKeyEnv =
    provider['apiKeyEnv'] === undefined
      ? undefined
      : reader.pattern(provider['apiKeyEnv'], joinPath(path, 'apiKeyEnv'), ENV_VAR_NAME_PATTERN, `the name of an environment variable (e.g. ${rules.keyEnv}), never the key itself`, {
          secret: true,
        });
  const apiKeyFile = provider['apiKeyFile'] === undefined ? undefined : validateApiKeyFile(provider['apiKeyFile'], joinPath(path, 'apiKeyFile'), reader);
  if (provider['apiKeyEnv'] !== undefined && provider['apiKeyFile'] !== undefined) {
    reader.add(joinPath(path, 'apiKeyFile'), 'cannot be given with apiKeyEnv: name one place the key comes from');
  }
  const baseUrlEnv =
    provider['baseUrlEnv'] === undefined
      ? undefined
      : reader.pattern(provider['baseUrlEnv'], joinPath(path, 'baseUrlEnv'), ENV_VAR_NAME_PATTERN, `the name of an environment variable (e.g. ${rules.urlEnv})`);
  const timeoutSeconds =
    provider['timeoutSeconds'] === undefined
      ? undefined
      : reader.number(provider['timeoutSeconds'], joinPath(path, 'timeoutSeconds'), {
          min: 0,
          exclusiveMin: true,
          max: MAX_MODEL_TIMEOUT_SECONDS,
        });
  const temperature =
    provider['temperature'] === undefined
      ? undefined
      : reader.number(provider['temperature'], joinPath(path, 'temperature'), { min: 0, max: rules.maxTemperature });
  return {
    ...(baseUrlEnv === undefined ? {} : { baseUrlEnv }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    ...(apiKeyFile === undefined ? {} : { apiKeyFile }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(temperature === undefined ? {} : { temperature }),
  };
}

/**
 * `apiKeyFile` must be an absolute path: a container secret's path is, a
 * relative one would depend on the working folder, and a pasted key never is
 * (so a wrong value is not echoed: it may be the key).
 */
function validateApiKeyFile(value: unknown, path: string, reader: ConfigReader): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || !isAbsolute(value) || /[\r\n]/.test(value)) {
    reader.add(path, 'must be the absolute path of a file that holds the key (e.g. /run/secrets/openai_key), never the key itself');
    return undefined;
  }
  return value;
}

/** An http(s) URL without query, fragment or credentials; `appended` is the path the provider appends to it. */
export function validateBaseUrl(value: unknown, path: string, reader: ConfigReader, appended: string): string | undefined {
  const text = reader.string(value, path, { nonEmpty: true });
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    reader.add(path, `must be an http(s) URL, not ${JSON.stringify(text)}`);
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    reader.add(path, `must be an http(s) URL, not ${JSON.stringify(text)}`);
    return undefined;
  }
  if (url.search !== '' || url.hash !== '') {
    reader.add(path, `must not have a query or a fragment (${appended} is appended to it), not ${JSON.stringify(text)}`);
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    reader.add(path, 'must not carry credentials; name an environment variable in apiKeyEnv (or a file in apiKeyFile) instead');
    return undefined;
  }
  return text;
}
