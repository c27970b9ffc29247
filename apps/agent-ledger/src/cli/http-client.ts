/**
 * The CLI's client of the service's HTTP API: the base URL and the API key
 * from the environment, JSON requests, and the two ways a request can go
 * wrong (refused by the service, or the service could not answer).
 */
import { readServiceConfig } from '../config/service-config';

/** What the client needs from the outside world: injected so that verbs can be tested without a service. */
export interface HttpDeps {
  readonly fetch: typeof fetch;
}

/** The environment variable of the service's base URL. */
export const URL_ENV = 'AGENT_LEDGER_URL';
/** The environment variable of the API key, sent as `Authorization: Bearer <key>`. Never read from the command line. */
export const API_KEY_ENV = 'AGENT_LEDGER_API_KEY';

/**
 * The service's base URL: `--url`, else `AGENT_LEDGER_URL`, else
 * `http://127.0.0.1:<port>` with the port of the service's configuration
 * (`PORT` or `AGENT_LEDGER_CONFIG`'s file; 3000 when unset, 0 or unreadable).
 *
 * @throws {@link UsageError} when the URL is not an http(s) URL.
 */
export function baseUrlOf(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const given = option ?? nonEmpty(env[URL_ENV]);
  if (given === undefined) return `http://127.0.0.1:${configuredPort(env)}`;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`${option === undefined ? URL_ENV : '--url'} is not a URL: "${given}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${option === undefined ? URL_ENV : '--url'} must be an http:// or https:// URL (got "${given}")`);
  return given.replace(/\/+$/, '');
}

/** The service's port as its configuration says (`PORT`, or the configuration file's), 3000 when it is 0 or cannot be read. */
function configuredPort(env: NodeJS.ProcessEnv): number {
  try {
    const { port } = readServiceConfig(env);
    return port === 0 ? 3000 : port;
  } catch {
    return 3000;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** A command line that cannot be carried out as written (exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The error body of the API (`code` always, `field`/`rule` for a refused input). */
export interface ApiErrorBody {
  readonly statusCode?: number;
  readonly code?: string;
  readonly message?: string;
  readonly field?: string;
  readonly rule?: string;
  readonly [detail: string]: unknown;
}

/** The service answered with a 4xx: it refused the request (exit 4). */
export class RequestRefusedError extends Error {
  override readonly name = 'RequestRefusedError';
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(describeApiError(status, body));
  }
}

/** The service could not be reached, or answered with a 5xx or something that is not the API (exit 3). */
export class ServiceFailureError extends Error {
  override readonly name = 'ServiceFailureError';
}

/** `409 RUN_ALREADY_SETTLED: Run r1 is already settled (field: runId)`. */
export function describeApiError(status: number, body: ApiErrorBody): string {
  const code = typeof body.code === 'string' ? body.code : 'ERROR';
  const message = typeof body.message === 'string' ? body.message : '(no message)';
  const field = typeof body.field === 'string' ? ` (field: ${body.field}${typeof body.rule === 'string' ? `, rule: ${body.rule}` : ''})` : '';
  return `${status} ${code}: ${message}${field}`;
}

/** An answer of the API. */
export interface ApiAnswer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** A client of one service. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly deps: HttpDeps,
    private readonly timeoutMs: number | undefined,
  ) {}

  /** Builds a client from `--url` and the environment. */
  static from(urlOption: string | undefined, env: NodeJS.ProcessEnv, deps: HttpDeps, timeoutMs?: number): ApiClient {
    return new ApiClient(baseUrlOf(urlOption, env), nonEmpty(env[API_KEY_ENV]), deps, timeoutMs);
  }

  /** The headers every request carries: the API key when set. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.apiKey === undefined ? extra : { ...extra, authorization: `Bearer ${this.apiKey}` };
  }

  /**
   * Sends a JSON request and parses the answer.
   *
   * @throws {@link RequestRefusedError} on a 4xx, {@link ServiceFailureError} when the service cannot be reached or fails.
   */
  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer<T>> {
    const response = await this.send(path, {
      method,
      headers: this.headers(body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: this.timeoutMs === undefined ? undefined : AbortSignal.timeout(this.timeoutMs),
    });
    const text = await readText(response, this.url(path));
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ServiceFailureError(`${method} ${this.url(path)} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (response.status >= 400) throw errorOf(response.status, parsed, `${method} ${this.url(path)}`);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  /** Opens a request whose body the caller streams (Server-Sent Events). Throws as {@link json} does for an error status. */
  async stream(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    const response = await this.send(path, { method: 'GET', headers: this.headers({ accept: 'text/event-stream', ...headers }), signal }, signal);
    if (response.status >= 400) {
      const text = await readText(response, this.url(path));
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { message: text.slice(0, 200) };
      }
      throw errorOf(response.status, parsed, `GET ${this.url(path)}`);
    }
    return response;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  private async send(path: string, init: RequestInit, stop?: AbortSignal): Promise<Response> {
    try {
      return await this.deps.fetch(this.url(path), init);
    } catch (error) {
      // Stopped by the caller (Ctrl-C): not a failure of the service; the caller knows what to do.
      if (stop?.aborted === true) throw error;
      throw new ServiceFailureError(`cannot reach the service at ${this.baseUrl}: ${causeOf(error)}`);
    }
  }
}

async function readText(response: Response, url: string): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw new ServiceFailureError(`the answer of ${url} broke off: ${causeOf(error)}`);
  }
}

function errorOf(status: number, body: unknown, what: string): Error {
  const apiBody: ApiErrorBody = typeof body === 'object' && body !== null ? (body as ApiErrorBody) : { message: String(body) };
  if (status >= 400 && status < 500) return new RequestRefusedError(status, apiBody);
  return new ServiceFailureError(`${what} failed: ${describeApiError(status, apiBody)}`);
}

/** Whether an error is an abort (Ctrl-C, or a timeout). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
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
