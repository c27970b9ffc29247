/**
 * The environment variables of the HTTP verbs, in a module that imports
 * nothing: the help texts name them without loading the client.
 */

/** The environment variable of the service's base URL. */
export const URL_ENV = 'AGENT_LEDGER_URL';
/** The environment variable of the API key, sent as `Authorization: Bearer <key>`. Never read from the command line. */
export const API_KEY_ENV = 'AGENT_LEDGER_API_KEY';
