import { useEffect, useRef, useState } from 'preact/hooks';
import type { AgentLedgerApiError, EventStreamOptions, StreamedEvent } from '@agent-ledger/client';
import { followEvents } from '../api/live-events';
import { useSession } from '../auth/session';

/** The stream a page follows: every run's new events (`GET /events?from=now`), or one run's, history first (`GET /runs/{runId}/events`). */
export type LiveSource = 'allRuns' | { readonly runId: string };

/** Options of {@link useLiveRefresh}. */
export interface LiveRefreshOptions {
  /** How long a burst of events is gathered before one refresh. @default 250 */
  readonly debounceMs?: number;
  /** The second refresh after the last event, for the read models to catch up. @default 1000 */
  readonly settleMs?: number;
  /** The polling period without a stream. @default 3000 */
  readonly pollMs?: number;
  /** Refresh when the stream (re)connects. @default true; off where the stream's history drives the first read */
  readonly refreshOnConnect?: boolean;
  /** Each event, as it arrives. */
  readonly onEvent?: (event: StreamedEvent) => void;
  /** The stream was refused for good (e.g. `404 RUN_NOT_FOUND`). @default logs it */
  readonly onFatal?: (error: AgentLedgerApiError) => void;
}

/**
 * Calls `refresh` when an event arrives on the stream `source` (debounced by
 * `debounceMs`, so a burst of events costs one refresh), or every `pollMs`
 * when `source` is null (a key that may not open the stream). Returns whether
 * the stream is connected. The stream is the client's event iterator: a
 * dropped connection resumes after the last event received.
 *
 * The read models follow the store a few milliseconds behind the stream, so
 * a refresh right after the last event of a burst may still read the state
 * before it: a second refresh follows `settleMs` after the last event.
 */
export function useLiveRefresh(source: LiveSource | null, refresh: () => void, options: LiveRefreshOptions = {}): boolean {
  const { client } = useSession();
  const [live, setLive] = useState(false);
  const latest = useRef({ refresh, options });
  latest.current = { refresh, options };
  const refreshOnConnect = options.refreshOnConnect ?? true;
  const debounceMs = options.debounceMs ?? 250;
  const settleMs = options.settleMs ?? 1_000;
  const pollMs = options.pollMs ?? 3_000;
  const runId = source === null || source === 'allRuns' ? null : source.runId;
  const following = source !== null;

  useEffect(() => {
    if (!following) {
      const timer = setInterval(() => latest.current.refresh(), pollMs);
      return () => clearInterval(timer);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;
    const open = runId === null ? (o: EventStreamOptions) => client.events({ ...o, from: 'now' }) : (o: EventStreamOptions) => client.runEvents(runId, o);
    const stream = followEvents(open, {
      onEvent: (event) => {
        latest.current.options.onEvent?.(event);
        if (timer === undefined) {
          timer = setTimeout(() => {
            timer = undefined;
            latest.current.refresh();
          }, debounceMs);
        }
        clearTimeout(settleTimer);
        settleTimer = setTimeout(() => latest.current.refresh(), settleMs);
      },
      onLive: (connected) => {
        setLive(connected);
        // Whatever happened while the stream was down is read again.
        if (connected && refreshOnConnect) latest.current.refresh();
      },
      onFatal: (error) => {
        const onFatal = latest.current.options.onFatal;
        if (onFatal === undefined) console.error(`Event stream ${runId === null ? '/events' : `of run ${runId}`} refused: ${error.code}: ${error.apiMessage}`);
        else onFatal(error);
      },
    });
    return () => {
      stream.close();
      clearTimeout(timer);
      clearTimeout(settleTimer);
      setLive(false);
    };
  }, [client, following, runId, debounceMs, settleMs, pollMs, refreshOnConnect]);
  return live;
}
