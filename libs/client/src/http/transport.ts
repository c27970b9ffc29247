import { AgentLedgerError } from '../errors/agent-ledger-error';
import { AgentLedgerConnectionError } from '../errors/connection-error';
import { apiErrorOf, isJson } from './error-mapping';

/** The `fetch` the client calls: the global one by default (Node 20, browsers), or one given (a test's, a proxy agent's). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** How to reach the service. */
export interface TransportOptions {
  /** The service's URL: `http://127.0.0.1:3000` (a path prefix behind a proxy is kept: `https://host/ledger`). */
  readonly baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`; none in the service's development mode. */
  readonly apiKey?: string;
  readonly fetch?: FetchLike;
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A default bound on each JSON request, answer read included; none by default. */
  readonly timeoutMs?: number;
}

/** Per-call options of every method. */
export interface RequestOptions {
  /** Aborts the request: it rejects with {@link AgentLedgerConnectionError} `aborted`. */
  readonly signal?: AbortSignal;
  /** Bounds this request, answer read included: it rejects with {@link AgentLedgerConnectionError} `timeout`. */
  readonly timeoutMs?: number;
}

/** A request to send. */
export interface OutgoingRequest extends RequestOptions {
  readonly method: 'GET' | 'POST';
  /** The path and query: `/runs?limit=5`. */
  readonly path: string;
  /** A JSON body (`undefined`: none). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON (or text) answer read whole. */
export interface Answer<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/**
 * Sends requests to the service: the key, JSON bodies, abort and timeout,
 * and the mapping of failures to typed errors (an error status:
 * {@link AgentLedgerApiError}; no answer: {@link AgentLedgerConnectionError}).
 */
export class HttpTransport {
  private readonly baseUrl: string;
  private readonly fetch: FetchLike;

  constructor(private readonly options: TransportOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
      throw new TypeError(`baseUrl must be an http(s) URL (got ${JSON.stringify(options.baseUrl)})`);
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const given = options.fetch;
    // The global fetch is called unbound in browsers at its peril ("Illegal invocation"): wrap it.
    this.fetch = given ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sends a request, answered JSON with one of `okStatuses`; any other status rejects with the API's error. */
  async json<T>(request: OutgoingRequest, okStatuses: readonly number[]): Promise<Answer<T>> {
    return this.exchange(request, 'application/json', async (response, name) => {
      const text = await response.text();
      if (!okStatuses.includes(response.status)) throw apiErrorOf(describe(response, text), name);
      if (!isJson(response.headers.get('content-type'))) {
        throw apiErrorOf(describe(response, text), `${name} (expected a JSON answer, got ${response.headers.get('content-type') ?? 'no Content-Type'})`);
      }
      return { status: response.status, headers: response.headers, body: JSON.parse(text) as T };
    });
  }

  /** Sends a request answered with text (`/metrics`). */
  async text(request: OutgoingRequest): Promise<Answer<string>> {
    return this.exchange(request, 'text/plain', async (response, name) => {
      const text = await response.text();
      if (!response.ok) throw apiErrorOf(describe(response, text), name);
      return { status: response.status, headers: response.headers, body: text };
    });
  }

  /**
   * Opens a stream (`text/event-stream`): resolves with the response once its
   * headers are in (2xx only; an error status rejects with the API's error).
   * The signal, not a timeout, ends it.
   */
  async stream(request: OutgoingRequest & { readonly signal: AbortSignal }): Promise<Response> {
    const name = `${request.method} ${request.path}`;
    let response: Response;
    try {
      response = await this.fetch(this.url(request.path), this.init(request, 'text/event-stream', request.signal));
    } catch (error) {
      throw new AgentLedgerConnectionError(request.signal.aborted ? 'aborted' : 'network', name, { cause: error, detail: messageOf(error) });
    }
    if (response.ok && response.body !== null) return response;
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new AgentLedgerConnectionError(request.signal.aborted ? 'aborted' : 'network', name, { cause: error, detail: messageOf(error) });
    }
    throw apiErrorOf(describe(response, text), name);
  }

  private async exchange<T>(request: OutgoingRequest, accept: string, read: (response: Response, name: string) => Promise<T>): Promise<T> {
    const name = `${request.method} ${request.path}`;
    const controller = new AbortController();
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    let timedOut = false;
    const onAbort = (): void => controller.abort(request.signal?.reason);
    if (request.signal?.aborted === true) throw new AgentLedgerConnectionError('aborted', name, { cause: request.signal.reason });
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs);
    try {
      let response: Response;
      try {
        response = await this.fetch(this.url(request.path), this.init(request, accept, controller.signal));
        return await read(response, name);
      } catch (error) {
        if (error instanceof AgentLedgerError) throw error;
        const reason = timedOut ? 'timeout' : isAborted(request.signal) ? 'aborted' : 'network';
        throw new AgentLedgerConnectionError(reason, name, { cause: error, detail: reason === 'timeout' ? `${timeoutMs} ms` : messageOf(error) });
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  private url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  private init(request: OutgoingRequest, accept: string, signal: AbortSignal): RequestInit {
    const headers: Record<string, string> = { accept, ...this.options.headers, ...request.headers };
    if (this.options.apiKey !== undefined) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    return {
      method: request.method,
      headers,
      signal,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    };
  }
}

function describe(response: Response, text: string) {
  return { status: response.status, text, contentType: response.headers.get('content-type'), retryAfter: response.headers.get('retry-after') };
}

/** Read through a function: the compiler would keep a narrowing of `signal.aborted` across an `await`. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== '' ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
