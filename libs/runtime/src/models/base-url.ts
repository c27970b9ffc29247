import { ConfigurationError } from '@agent-ledger/domain';
import { formatConfigIssue } from '../agents/agents-config.error';
import { ConfigReader } from '../agents/config-reader';
import { validateBaseUrl } from '../agents/model-provider-config-validation';

/**
 * The URL a provider calls: the value of the environment variable named by
 * `baseUrlEnv` when it is set (not blank), else `baseUrl`. Read once, at
 * construction; without a trailing slash.
 *
 * @param appended - the path the provider appends (`/v1/messages`), for messages.
 * @throws ConfigurationError naming the variable when its value is not an
 *   http(s) URL without query, fragment or credentials.
 */
export function effectiveBaseUrl(baseUrl: string, baseUrlEnv: string | undefined, env: NodeJS.ProcessEnv, appended: string): string {
  const override = baseUrlEnv === undefined ? undefined : env[baseUrlEnv]?.trim();
  if (override === undefined || override === '') return baseUrl.replace(/\/+$/, '');
  const reader = new ConfigReader();
  const valid = validateBaseUrl(override, `the environment variable ${baseUrlEnv} (provider.baseUrlEnv)`, reader, appended);
  if (valid === undefined) throw new ConfigurationError(reader.issues.map(formatConfigIssue).join('; '));
  return valid.replace(/\/+$/, '');
}
