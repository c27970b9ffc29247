import type { EventStreamOptions, StreamedEvent } from '@agent-ledger/client';
import { AgentLedgerApiError } from '@agent-ledger/client';

/** What a followed event stream tells its owner besides events. */
export interface LiveEventHandlers {
  onEvent(event: StreamedEvent): void;
  /** Connected (true), or lost and about to reconnect (false). */
  onLive?(live: boolean): void;
  /** A refusal that reconnecting cannot cure (a 4xx: 401, 403, 404): the stream stops. */
  onFatal?(error: AgentLedgerApiError): void;
  /** The stream stopped on any other error (a frame that is not JSON). */
  onError?(error: unknown): void;
}

/** A followed event stream; `close()` ends it for good. */
export interface LiveEvents {
  close(): void;
}

/** How the console reconnects: at once and then up to every 5 s, for as long as the page is open. */
const RECONNECT = { initialDelayMs: 500, maxDelayMs: 5_000, maxAttempts: Number.POSITIVE_INFINITY } as const;

/**
 * Follows one of the client's event iterators (`client.events(...)`,
 * `client.runEvents(...)`) with callbacks, as the pages need it: each event,
 * whether the stream is connected, and a refusal that ends it. The client
 * resumes a dropped connection after the last event received
 * (`Last-Event-ID`), so nothing is lost or repeated; the console never gives
 * up while the page is open.
 */
export function followEvents(open: (options: EventStreamOptions) => AsyncIterableIterator<StreamedEvent>, handlers: LiveEventHandlers): LiveEvents {
  const stop = new AbortController();
  const events = open({
    signal: stop.signal,
    reconnect: RECONNECT,
    onConnection: (change) => {
      if (change.state === 'lost') console.warn('Event stream lost, reconnecting', change.cause);
      handlers.onLive?.(change.state === 'open');
    },
  });
  void (async () => {
    try {
      for await (const event of events) handlers.onEvent(event);
    } catch (error) {
      handlers.onLive?.(false);
      if (error instanceof AgentLedgerApiError) {
        if (handlers.onFatal === undefined) console.error(`Event stream refused: ${error.code}: ${error.apiMessage}`);
        else handlers.onFatal(error);
      } else if (handlers.onError === undefined) {
        console.error('Event stream stopped', error);
      } else {
        handlers.onError(error);
      }
    }
  })();
  return { close: () => stop.abort() };
}
