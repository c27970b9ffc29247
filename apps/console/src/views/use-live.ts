import { useEffect, useRef, useState } from 'preact/hooks';
import type { StreamedEvent } from '../api/types';
import { useSession } from '../auth/session';

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
export function useLiveRefresh(path: string | null, refresh: () => void, options: { debounceMs?: number; settleMs?: number; pollMs?: number; onEvent?: (event: StreamedEvent) => void } = {}): boolean {
  const { client } = useSession();
  const [live, setLive] = useState(false);
  const latest = useRef({ refresh, onEvent: options.onEvent });
  latest.current = { refresh, onEvent: options.onEvent };
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
        latest.current.onEvent?.(event);
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
        if (connected) latest.current.refresh();
      },
      onFatal: (error) => console.error(`Event stream ${path} refused: ${error.code}: ${error.message}`),
    });
    return () => {
      stream.close();
      clearTimeout(timer);
      clearTimeout(settleTimer);
      setLive(false);
    };
  }, [client, path, debounceMs, settleMs, pollMs]);
  return live;
}
