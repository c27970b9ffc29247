import { readFileSync } from 'node:fs';
import { ConfigurationError } from '@agent-ledger/domain';
import type { ApiKeySource } from '../agents/agent-definition';

/** Where {@link readApiKey} looks: the provider's settings, and the default variable of its type. */
export interface ApiKeyLookup {
  readonly source: ApiKeySource;
  /**
   * The variable read when the settings name neither `apiKeyEnv` nor
   * `apiKeyFile` (e.g. `ANTHROPIC_API_KEY`); `undefined`: then no key is sent.
   */
  readonly defaultEnv: string | undefined;
  /** The provider's type, for messages (`anthropic`). */
  readonly provider: string;
  /** The server the key is for, for messages. */
  readonly url: string;
}

/**
 * Reads a provider's API key once, at construction: from the environment
 * variable named by `apiKeyEnv` (or the type's default), or from the file
 * named by `apiKeyFile`, trimmed. The key itself is never in a message.
 *
 * @returns the key, or `undefined` when nothing names one (a local server).
 * @throws ConfigurationError naming the variable or the file when it is not
 *   set, cannot be read, or is blank.
 */
export function readApiKey(lookup: ApiKeyLookup, env: NodeJS.ProcessEnv): string | undefined {
  const { source, defaultEnv, provider, url } = lookup;
  if (source.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(source.apiKeyFile, 'utf8');
    } catch (error) {
      const reason = (error as { code?: unknown }).code ?? (error instanceof Error ? error.message : String(error));
      throw new ConfigurationError(
        `The API key file ${source.apiKeyFile} (provider.apiKeyFile) of the ${provider} provider cannot be read (${String(reason)}): it must hold the API key of ${url}`,
        { cause: error },
      );
    }
    const key = text.trim();
    if (key === '') throw new ConfigurationError(`The API key file ${source.apiKeyFile} (provider.apiKeyFile) of the ${provider} provider is empty: it must hold the API key of ${url}`);
    return headerSafe(key, `The API key in the file ${source.apiKeyFile} (provider.apiKeyFile)`);
  }
  const name = source.apiKeyEnv ?? defaultEnv;
  if (name === undefined) return undefined;
  const key = env[name]?.trim();
  if (key === undefined || key === '') {
    const which = source.apiKeyEnv === undefined ? `the default of provider.apiKeyEnv for type ${provider}` : 'provider.apiKeyEnv';
    throw new ConfigurationError(
      `The environment variable ${name} (${which}) is not set: it must hold the API key of ${url} (or name a file that holds it in provider.apiKeyFile)`,
    );
  }
  return headerSafe(key, `The API key in the environment variable ${name}`);
}

/**
 * Refuses a key an HTTP header cannot carry. fetch would refuse it at each
 * call with a message that quotes the whole header, key included, and that
 * message would be recorded as the run's failure.
 */
function headerSafe(key: string, what: string): string {
  const at = key.search(/[^\x21-\x7e]/);
  if (at >= 0) {
    throw new ConfigurationError(
      `${what} has a character an HTTP header cannot carry (a space, a line break or a non-ASCII character) at position ${at + 1}: set the key again, as the vendor gave it`,
    );
  }
  return key;
}

/** What stands in for a key found in a text that is kept or shown (an error body the server echoed it in). */
export const REDACTED = '[redacted]';

/** `text` with every occurrence of `secret` replaced by {@link REDACTED}; `text` as it is without a secret. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret === undefined || secret === '' ? text : text.split(secret).join(REDACTED);
}
