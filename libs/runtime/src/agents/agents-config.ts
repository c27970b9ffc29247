import { parseDocument } from 'yaml';
import type { AgentsConfigValidationOptions } from './agents-config-validation';
import { validateAgentsDocument } from './agents-config-validation';
import { AgentsConfigError } from './agents-config.error';
import { ConfigReader } from './config-reader';
import type { AgentsConfig } from './agents-config-document';

export type { AgentsConfig } from './agents-config-document';

/** Options of {@link parseAgentsConfig} and `loadAgentsConfig`. */
export type AgentsConfigOptions = AgentsConfigValidationOptions;

/**
 * How many YAML aliases a document may expand. A few are handy for shared
 * instructions; a "billion laughs" document is refused. @default 100
 */
export const AGENTS_CONFIG_MAX_ALIAS_COUNT = 100;

/**
 * Parses and validates an agents configuration, in YAML or JSON (JSON is
 * YAML). Every problem of the document is reported at once.
 *
 * Rules: a mapping with the key `agents`, a non-empty list, and optionally
 * `mcpServers`, a list of MCP server bindings (see
 * `validateMcpServerBindings`: names unique, a stdio or http transport,
 * the tools offered with their declared effects; relative paths from
 * `options.baseDir`), whose tools (`<server>.<tool>`, or `as`) are known
 * tools for the file's agents; agent names
 * unique and matching {@link AGENT_NAME_PATTERN}; non-empty `instructions`;
 * `tools` a list of unique tool names (@default `[]`); `maxIterations` an
 * integer from 1 to MAX_ITERATIONS (@default 20); `provider` chosen by `type`
 * (`scripted`: a non-empty `script` whose rounds each have exactly one of
 * `toolCalls` or `final`, calling only the agent's tools; `openai`: an http(s)
 * `baseUrl`, a `model`, optional `apiKeyEnv`, `timeoutSeconds`, `temperature`);
 * `approvals` optional (`preApproved`: a list of the agent's own tools, each at
 * most once, @default `[]`; `onDenial`: `tellModel` or `endRun`, @default
 * `endRun`), always present, with its defaults, in the returned definitions.
 * Unknown keys are refused everywhere, except inside a scripted call's
 * `arguments` (data for the tool) and a binding's `tools`, `env` and
 * `headers` (names); `effect`, `effects` and `toolEffects` are refused with
 * the reason: a tool's effect is declared in code. The one exception is an
 * MCP tool's `effect`, at `mcpServers[i].tools.<tool>.effect`: its code is
 * neither the product's nor a plugin's. Duplicate keys are refused.
 *
 * @param sourceName - where the text comes from (a path), for the error.
 * @returns the frozen configuration.
 * @throws {@link AgentsConfigError} listing every problem, each with its field path.
 */
export function parseAgentsConfig(text: string, sourceName: string, options: AgentsConfigOptions = {}): AgentsConfig {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true, schema: 'core' });
  if (document.errors.length > 0) {
    throw new AgentsConfigError(
      sourceName,
      document.errors.map((error) => ({ path: '', message: `is not valid YAML or JSON: ${error.message}` })),
    );
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: AGENTS_CONFIG_MAX_ALIAS_COUNT });
  } catch (error) {
    throw new AgentsConfigError(sourceName, [{ path: '', message: `cannot be read: ${(error as Error).message}` }], { cause: error });
  }
  const reader = new ConfigReader();
  const config = validateAgentsDocument(data, reader, { ...options, source: options.source ?? sourceName });
  if (config === undefined || reader.issues.length > 0) {
    throw new AgentsConfigError(sourceName, reader.issues);
  }
  return config;
}
