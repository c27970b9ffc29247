import type { StreamedEvent, StreamError } from '../contract/streamed-event';
import { AgentLedgerError } from '../errors/agent-ledger-error';
import { AgentLedgerApiError } from '../errors/api-error';
import { AgentLedgerStreamError } from '../errors/stream-error';
import type { HttpTransport } from '../http/transport';
import { queryString } from '../http/query-string';
import { sleep } from './sleep';
import { readSseFrames } from './sse-reader';

/** How an event stream reconnects after a dropped connection. */
export interface ReconnectOptions {
  /** Connections in a row that may fail (or drop) without delivering an event before the iteration gives up. @default 5 */
  readonly maxAttempts?: number;
  /** The wait before the first reconnection, doubled at each failure in a row. @default 500 */
  readonly initialDelayMs?: number;
  /** The longest wait between two reconnections. @default 10000 */
  readonly maxDelayMs?: number;
}

/** Options of `runEvents` and `events`. */
export interface EventStreamOptions {
  /** Ends the iteration (quietly) and closes the connection. */
  readonly signal?: AbortSignal;
  /** Start right after this event (the `id` of an event received earlier): nothing lost, nothing repeated. */
  readonly lastEventId?: string;
  /**
   * `start` (default): the history, then live events. `now`: only events
   * recorded after the request. A resumption (`lastEventId`, or a
   * reconnection after an event) always continues after the last event.
   */
  readonly from?: 'start' | 'now';
  readonly reconnect?: ReconnectOptions;
  /**
   * Told of each change of the connection: `open` when a connection is
   * answered (events follow), `lost` when one failed or ended and the
   * iterator waits `retryInMs` before the next (not when it gives up: it
   * throws then). For a "live" indicator, or a line on a terminal. A hook
   * that throws ends the iteration with its error.
   */
  readonly onConnection?: (change: EventStreamConnection) => void;
}

/**
 * Options of `followRun`: those of `runEvents` except `from` and
 * `lastEventId`. The iteration always reads the run from its first event:
 * its history is what tells whether the run has settled already.
 */
export type FollowRunOptions = Omit<EventStreamOptions, 'from' | 'lastEventId'>;

/** A change of an event stream's connection (see {@link EventStreamOptions.onConnection}). */
export type EventStreamConnection =
  | { readonly state: 'open'; readonly lastEventId: string | null }
  | {
      readonly state: 'lost';
      /** Why: an {@link AgentLedgerConnectionError}, an {@link AgentLedgerApiError} of a 5xx, an {@link AgentLedgerStreamEndedError}, or the error that broke the body. */
      readonly cause: unknown;
      /** Connections in a row without an event so far (1 for the first loss). */
      readonly attempt: number;
      readonly retryInMs: number;
      /** Where the next connection resumes (`Last-Event-ID`), null before the first event. */
      readonly lastEventId: string | null;
    };

/** The server ended the stream (its `event: error` frame, or the end of the body): the iteration reconnects. */
export class AgentLedgerStreamEndedError extends AgentLedgerError {
  constructor(
    readonly path: string,
    /** The server's `event: error` frame, if it sent one. */
    readonly frame: StreamError | null,
  ) {
    super(frame === null ? `The server ended the event stream ${path}` : `The event stream ${path} ended: ${frame.code}: ${frame.message}`);
  }
}

/**
 * The events of an SSE route (`/runs/{runId}/events` or `/events`), as an
 * async iterator: history then live, reconnecting with `Last-Event-ID` (the
 * id of the last event yielded) after a dropped connection or an `event:
 * error` frame, so that the sequence yielded has no gap and no duplicate.
 * Comments and heartbeats are skipped. It never ends on its own (the
 * server's streams do not), unless `ending.endAfter` says an event is the
 * last: `break`, `return()` or the signal ends it and closes the connection. After `maxAttempts` failed connections in a row it
 * throws {@link AgentLedgerStreamError}; an error answer of the route that a
 * retry cannot change (a 4xx: bad id, no such run, no key) is thrown at once
 * as {@link AgentLedgerApiError}.
 */
export function eventStream(
  transport: HttpTransport,
  path: string,
  options: EventStreamOptions = {},
  ending: EventStreamEnding = {},
): AsyncIterableIterator<StreamedEvent> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (options.signal?.aborted === true) stop.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const maxAttempts = options.reconnect?.maxAttempts ?? 5;
  const initialDelayMs = options.reconnect?.initialDelayMs ?? 500;
  const maxDelayMs = options.reconnect?.maxDelayMs ?? 10_000;

  // Inside a connection's try: an error of the hook is carried past the reconnection logic.
  const tell = (change: EventStreamConnection): void => {
    try {
      options.onConnection?.(change);
    } catch (error) {
      throw new HookFailure(error);
    }
  };

  async function* follow(): AsyncGenerator<StreamedEvent, void, undefined> {
    let lastEventId = options.lastEventId ?? null;
    let failures = 0;
    try {
      for (;;) {
        if (stop.signal.aborted) return;
        const connection = new AbortController();
        const closeConnection = (): void => connection.abort();
        stop.signal.addEventListener('abort', closeConnection, { once: true });
        let failure: unknown;
        try {
          const query = queryString({ from: lastEventId === null ? options.from : undefined });
          const response = await transport.stream({
            method: 'GET',
            path: `${path}${query}`,
            headers: lastEventId === null ? {} : { 'last-event-id': lastEventId },
            signal: connection.signal,
          });
          tell({ state: 'open', lastEventId });
          failure = new AgentLedgerStreamEndedError(path, null);
          for await (const frame of readSseFrames(response.body as ReadableStream<Uint8Array>)) {
            if (frame.event === 'error') {
              failure = new AgentLedgerStreamEndedError(path, parseFrame<StreamError>(frame.data, path));
              break;
            }
            const event = parseFrame<StreamedEvent>(frame.data, path);
            lastEventId = frame.id ?? event.position;
            failures = 0;
            if (ending.endAfter?.(event) === true) {
              // The last event: the connection is closed before it is handed over, and the iteration ends after it.
              connection.abort();
              yield event;
              return;
            }
            yield event;
          }
        } catch (error) {
          if (error instanceof HookFailure) throw error.error;
          if (stop.signal.aborted) return;
          if (error instanceof AgentLedgerApiError && error.status < 500 && error.status !== 408 && error.status !== 429) throw error;
          if (error instanceof MalformedFrameError) throw error;
          failure = error;
        } finally {
          stop.signal.removeEventListener('abort', closeConnection);
          connection.abort();
        }
        if (stop.signal.aborted) return;
        failures += 1;
        if (failures > maxAttempts) throw new AgentLedgerStreamError(failures, lastEventId, { cause: failure });
        const retryInMs = Math.min(maxDelayMs, initialDelayMs * 2 ** (failures - 1));
        // Outside the connection's try: an error of the hook reaches the caller as it is.
        options.onConnection?.({ state: 'lost', cause: failure, attempt: failures, retryInMs, lastEventId });
        const waited = await sleep(retryInMs, stop.signal);
        if (!waited) return;
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  const inner = follow();
  const iterator: AsyncIterableIterator<StreamedEvent> = {
    next: () => inner.next(),
    // Ends a read in progress too: an async generator alone would wait for its next event (or heartbeat) before it returns.
    return: async () => {
      stop.abort();
      return inner.return(undefined);
    },
    throw: (error?: unknown) => {
      stop.abort();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** When an {@link eventStream} ends on its own (by default never). */
export interface EventStreamEnding {
  /** Whether `event` is the last one: the iteration yields it, closes its connection and ends. */
  readonly endAfter?: (event: StreamedEvent) => boolean;
}

/** An error thrown by the `onConnection` hook: carried past the reconnection logic to the caller as it was thrown. */
class HookFailure {
  constructor(readonly error: unknown) {}
}

/** A frame whose `data:` is not JSON: the server broke the protocol; reconnecting would not help. */
export class MalformedFrameError extends AgentLedgerError {}

function parseFrame<T>(data: string, path: string): T {
  try {
    return JSON.parse(data) as T;
  } catch (error) {
    throw new MalformedFrameError(`The event stream ${path} sent a frame whose data is not JSON: ${data.slice(0, 200)}`, { cause: error });
  }
}
