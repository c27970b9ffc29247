/**
 * How the CLI reaches the service: the base URL and the API key from the
 * environment, a typed client of the API (`@agent-ledger/client`), and how
 * the client's errors read on a terminal (refused by the service: exit 4;
 * the service could not answer: exit 3).
 */
import type { FetchLike } from '@agent-ledger/client';
import { AgentLedgerApiError, AgentLedgerClient, AgentLedgerConnectionError, AgentLedgerStreamError } from '@agent-ledger/client';
import { resolve } from 'node:path';
import { UsageError } from './cli-errors';
import { clip } from './event-format';
import { API_KEY_ENV, URL_ENV } from './service-env';

export { ServiceFailureError, UsageError } from './cli-errors';
export { API_KEY_ENV, URL_ENV } from './service-env';

/**
 * The service's base URL: `--url`, else `AGENT_LEDGER_URL`, else
 * `http://127.0.0.1:<port>` with the port of the service's configuration
 * (`PORT` or `AGENT_LEDGER_CONFIG`'s file; 3000 when unset, 0 or unreadable).
 *
 * @throws {@link UsageError} when the URL is not an http(s) URL.
 */
export async function baseUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const given = option ?? nonEmpty(env[URL_ENV]);
  if (given === undefined) return `http://127.0.0.1:${await configuredPort(env)}`;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`${option === undefined ? URL_ENV : '--url'} is not a URL: "${given}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${option === undefined ? URL_ENV : '--url'} must be an http:// or https:// URL (got "${given}")`);
  return given.replace(/\/+$/, '');
}

/**
 * The client of the service at `baseUrl`, with `AGENT_LEDGER_API_KEY` when
 * set; `timeoutMs` bounds each JSON request (none: no bound).
 */
export function serviceClient(baseUrl: string, env: NodeJS.ProcessEnv, fetch: FetchLike, timeoutMs: number | undefined): AgentLedgerClient {
  const apiKey = nonEmpty(env[API_KEY_ENV]);
  return new AgentLedgerClient({ baseUrl, fetch, ...(apiKey === undefined ? {} : { apiKey }), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
}

/**
 * The service's port as its configuration says (`PORT`, else the
 * configuration file's `server.port`), 3000 when it is 0, not a port or
 * cannot be read. Read without the service's whole configuration, whose
 * checks load the stores' and the runtime's packages, and the file's reader
 * (and its YAML parser) only when there is a file to read: the HTTP verbs
 * start fast.
 */
async function configuredPort(env: NodeJS.ProcessEnv): Promise<number> {
  const portOf = (value: unknown): number | undefined => {
    const port = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    return Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : undefined;
  };
  const portOfFile = async (file: string): Promise<number | undefined> => {
    const { readConfigFile } = await import('../config/config-file');
    try {
      return portOf(readConfigFile(resolve(file)).values.get('server.port'));
    } catch {
      return undefined; // an unreadable file: the default, as the service would refuse to start on it anyway
    }
  };
  const fromEnv = nonEmpty(env.PORT);
  const file = nonEmpty(env.AGENT_LEDGER_CONFIG);
  const port = fromEnv !== undefined ? portOf(fromEnv) : file !== undefined ? await portOfFile(file) : undefined;
  return port === undefined || port === 0 ? 3000 : port;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** `409 RUN_ALREADY_SETTLED: Run r1 is already settled (field: runId)`. */
export function describeApiError(error: AgentLedgerApiError): string {
  const field = error.field === undefined ? '' : ` (field: ${error.field}${error.rule === undefined ? '' : `, rule: ${error.rule}`})`;
  return `${error.status} ${error.code}: ${error.apiMessage}${field}`;
}

/** How an error of the client reads on the terminal, and whether the service refused (exit 4) or failed (exit 3). */
export interface ServiceFailure {
  readonly refused: boolean;
  readonly message: string;
}

/**
 * Reads an error of the client for a person: a refusal of the service (a
 * 4xx with the API's error body) as its status, code, message and field; a
 * 5xx, an answer that is not the API's (a proxy's page), no answer, a
 * stream that could not be resumed as a failure naming the service's URL.
 * Null for an error that is not the client's.
 */
export function serviceFailureOf(error: unknown, baseUrl: string): ServiceFailure | null {
  if (error instanceof AgentLedgerApiError) {
    const request = requestAt(error.request, baseUrl);
    if (error.code === `HTTP_${error.status}`) {
      // The client's code for a body that is not the API's error body: the service did not answer it, something in between did.
      return { refused: false, message: `${request} answered ${error.status} with a body that is not JSON from the service: ${clip(error.apiMessage, 200)}` };
    }
    if (error.status === 401) return { refused: true, message: `${describeApiError(error)}. ${API_KEY_HINT}` };
    if (error.status >= 400 && error.status < 500) return { refused: true, message: describeApiError(error) };
    return { refused: false, message: `${request} failed: ${describeApiError(error)}` };
  }
  if (error instanceof AgentLedgerConnectionError) {
    if (error.reason === 'timeout') return { refused: false, message: `${requestAt(error.request, baseUrl)}: no answer in time (--timeout)` };
    if (error.reason === 'aborted') return { refused: false, message: `${requestAt(error.request, baseUrl)}: aborted` };
    return { refused: false, message: `cannot reach the service at ${baseUrl}: ${causeOf(error.cause)}` };
  }
  if (error instanceof AgentLedgerStreamError) {
    return { refused: false, message: `the event stream could not be resumed after ${error.attempts} attempts: ${serviceFailureOf(error.cause, baseUrl)?.message ?? causeOf(error.cause)}` };
  }
  return null;
}

/** How the CLI sends a key, told with a 401: the environment variable, never an option. */
const API_KEY_HINT = `The CLI sends the API key of ${API_KEY_ENV} (as "Authorization: Bearer <key>"): set ${API_KEY_ENV} to a key the service knows`;

/** `GET http://127.0.0.1:3000/runs/r1` for the client's `GET /runs/r1`. */
function requestAt(request: string, baseUrl: string): string {
  const space = request.indexOf(' ');
  return space < 0 ? request : `${request.slice(0, space)} ${baseUrl}${request.slice(space + 1)}`;
}

/** The most telling message of a fetch failure: `ECONNREFUSED 127.0.0.1:3000` rather than `fetch failed`. */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'no answer in time (timeout)';
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return error.message;
}
