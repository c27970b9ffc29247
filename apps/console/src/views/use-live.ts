import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/api-error';
import type { StreamedEvent } from '../api/types';
import { useSession } from '../auth/session';

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
  readonly onFatal?: (error: ApiError) => void;
}

/**
 * Calls `refresh` when an event arrives on the stream `path` (debounced by
 * `debounceMs`, so a burst of events costs one refresh), or every `pollMs`
 * when `path` is null (a key that may not open the stream). Returns whether
 * the stream is connected.
 *
 * The read models follow the store a few milliseconds behind the stream, so
 * a refresh right after the last event of a burst may still read the state
 * before it: a second refresh follows `settleMs` after the last event.
 */
export function useLiveRefresh(path: string | null, refresh: () => void, options: LiveRefreshOptions = {}): boolean {
  const { client } = useSession();
  const [live, setLive] = useState(false);
  const latest = useRef({ refresh, options });
  latest.current = { refresh, options };
  const refreshOnConnect = options.refreshOnConnect ?? true;
  const debounceMs = options.debounceMs ?? 250;
  const settleMs = options.settleMs ?? 1_000;
  const pollMs = options.pollMs ?? 3_000;

  useEffect(() => {
    if (path === null) {
      const timer = setInterval(() => latest.current.refresh(), pollMs);
      return () => clearInterval(timer);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;
    const stream = client.stream(path, {
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
        if (onFatal === undefined) console.error(`Event stream ${path} refused: ${error.code}: ${error.message}`);
        else onFatal(error);
      },
    });
    return () => {
      stream.close();
      clearTimeout(timer);
      clearTimeout(settleTimer);
      setLive(false);
    };
  }, [client, path, debounceMs, settleMs, pollMs, refreshOnConnect]);
  return live;
}
