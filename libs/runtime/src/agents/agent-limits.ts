/** What an agent's name may be: lower-case letters, digits and `-`, starting with a letter or digit, at most 63 characters. */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** What `apiKeyEnv` may be: the name of an environment variable. */
export const ENV_VAR_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How long one model call may take when the provider says nothing, in seconds. @default 60 */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = 60;

/**
 * The longest timeout a provider may set, in seconds. It stays well below the
 * lease (LEASE_SECONDS, 900), which is renewed at step boundaries only: a model
 * call that outlived the lease would let the reaper take the run mid-call.
 */
export const MAX_MODEL_TIMEOUT_SECONDS = 600;

/** The sampling temperature when the provider says nothing: deterministic as far as the server allows. @default 0 */
export const DEFAULT_TEMPERATURE = 0;

/** The highest temperature OpenAI-compatible servers accept. */
export const MAX_TEMPERATURE = 2;

/** The highest temperature Anthropic's Messages API accepts. */
export const MAX_ANTHROPIC_TEMPERATURE = 1;

/** Where an `anthropic` provider sends its requests when it names no `baseUrl`. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The `max_tokens` of an `anthropic` provider that names no `maxTokens` (every current model allows it). @default 4096 */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** The largest `maxTokens` an `anthropic` provider may set. */
export const MAX_ANTHROPIC_MAX_TOKENS = 128_000;
