import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigurationError } from '@agent-ledger/domain';
import type { McpValueSource } from './mcp-server-binding';

/**
 * The value an {@link McpValueSource} stands for: the literal; the
 * environment variable it names (trimmed); or the file it names (trimmed;
 * relative: from `baseDir`), each with its `prefix`. The secret itself is
 * never in a message.
 *
 * @param field - the binding's field, for messages (`mcpServers[0].transport.headers.Authorization`).
 * @throws ConfigurationError naming the field and the variable or file when it is not set, cannot be read, or is blank.
 */
export function resolveMcpValue(source: McpValueSource, field: string, baseDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (typeof source === 'string') return source;
  const prefix = source.prefix ?? '';
  if ('fromEnv' in source) {
    const value = env[source.fromEnv]?.trim();
    if (value === undefined || value === '') {
      throw new ConfigurationError(`The environment variable ${source.fromEnv} (${field}.fromEnv) is not set`);
    }
    return prefix + value;
  }
  const path = isAbsolute(source.fromFile) ? source.fromFile : resolve(baseDir, source.fromFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as { code?: unknown }).code ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigurationError(`The file ${path} (${field}.fromFile) cannot be read (${String(reason)})`, { cause: error });
  }
  const value = text.trim();
  if (value === '') throw new ConfigurationError(`The file ${path} (${field}.fromFile) is empty`);
  return prefix + value;
}
