import { ApiError } from './api-error';
import { SseParser } from './sse-parser';
import type { StreamedEvent } from './types';

/** What an event stream tells its owner besides events. */
export interface EventStreamHandlers {
  onEvent(event: StreamedEvent): void;
  /** Connected (true) or lost and retrying (false). */
  onLive?(live: boolean): void;
  /** A refusal that retrying cannot cure (401, 403, 404): the stream stops. */
  onFatal?(error: ApiError): void;
}

/** A running event stream; `close()` ends it for good. */
export interface EventStreamHandle {
  close(): void;
}

const RETRY_MS = [500, 1_000, 2_000, 5_000] as const;

/**
 * The service's JSON API and event streams, with the signed-in key in the
 * `Authorization` header of every request. The key never goes into a URL,
 * which is why the event streams are read with `fetch` and not with
 * `EventSource` (that cannot send headers).
 */
export class ApiClient {
  /** `key`: the API key; '' in the development mode without authentication (no header is sent). */
  constructor(private readonly key: string) {}

  private authorization(): Record<string, string> {
    return this.key === '' ? {} : { authorization: `Bearer ${this.key}` };
  }

  /** `GET path`, the JSON answer; throws {@link ApiError} on anything but 2xx. */
  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.send<T>('GET', path, undefined, signal);
  }

  /** `POST path` with `body` as JSON. */
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  private async send<T>(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { ...this.authorization(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store' });
    const text = await response.text();
    if (!response.ok) throw ApiError.fromAnswer(response.status, text);
    return (text === '' ? null : JSON.parse(text)) as T;
  }

  /**
   * Follows an event stream (`/events` or `/runs/{runId}/events`): history,
   * then live events. A dropped connection is resumed after the last event
   * received (`Last-Event-ID`), so nothing is lost or repeated.
   */
  stream(path: string, handlers: EventStreamHandlers): EventStreamHandle {
    const abort = new AbortController();
    let lastId: string | undefined;
    let failures = 0;
    const connect = async (): Promise<void> => {
      while (!abort.signal.aborted) {
        try {
          const headers: Record<string, string> = { ...this.authorization(), accept: 'text/event-stream' };
          if (lastId !== undefined) headers['last-event-id'] = lastId;
          const response = await fetch(path, { headers, signal: abort.signal, cache: 'no-store' });
          if (!response.ok || response.body === null) {
            const error = ApiError.fromAnswer(response.status, await response.text());
            if ([400, 401, 403, 404].includes(response.status)) {
              handlers.onFatal?.(error);
              return;
            }
            throw error;
          }
          handlers.onLive?.(true);
          failures = 0;
          const parser = new SseParser();
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            for (const message of parser.push(value)) {
              if (message.event === 'error') throw new Error(`The event stream reported an error: ${message.data}`);
              lastId = message.id;
              handlers.onEvent(JSON.parse(message.data) as StreamedEvent);
            }
          }
        } catch (error) {
          if (abort.signal.aborted) return;
          console.warn(`Event stream ${path} lost, reconnecting`, error);
        }
        handlers.onLive?.(false);
        const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    };
    void connect();
    return { close: () => abort.abort() };
  }
}
