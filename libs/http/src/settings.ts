/**
 * `@agent-ledger/http/settings`: what a configuration reader needs of the HTTP
 * API (the authentication modes, the API key entries, the built console's
 * folder), without the Nest module, Express or OpenAPI: a tool that reads the
 * service's settings but serves nothing (the CLI's store verbs) loads this
 * entry point only.
 */
export { AUTH_MODES } from './http-api-options';
export type { AuthMode, AuthSettings, HttpApiOptions } from './http-api-options';
export { parseApiKeyEntries } from './auth/api-keys';
export type { ApiKeyEntry } from './auth/api-keys';
export { builtConsoleDir } from './console/built-console-dir';
