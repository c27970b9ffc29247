import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AgentsConfig, AgentsConfigOptions } from './agents-config';
import { parseAgentsConfig } from './agents-config';
import { AgentsConfigError } from './agents-config.error';

/**
 * Reads and validates the agents configuration file at `path` (YAML or JSON).
 * See {@link parseAgentsConfig} for the rules. Its MCP server bindings have
 * the file's path as their `source`, and their relative paths are resolved
 * from the file's folder.
 *
 * @throws {@link AgentsConfigError} (with `source` = `path`) when the file cannot be read or is invalid.
 */
export async function loadAgentsConfig(path: string, options: AgentsConfigOptions = {}): Promise<AgentsConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new AgentsConfigError(
      path,
      [{ path: '', message: `cannot be read${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message}` }],
      { cause: error },
    );
  }
  return parseAgentsConfig(text, path, { ...options, source: path, baseDir: dirname(resolve(path)) });
}
