import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import type { StreamedEventJson } from './event-format';
import { eventLine, SseParser, TERMINAL_EVENT_TYPES } from './event-format';
import type { ApiClient } from './http-client';
import { causeOf, RequestRefusedError, ServiceFailureError } from './http-client';
import { sleep } from './stop-signal';

/** `events follow` options. */
export interface FollowOptions {
  readonly runId: string;
  /** Start after this position (an SSE id printed before). */
  readonly after: string | undefined;
  readonly json: boolean;
  /** First reconnection delay; doubled after each failed attempt, up to {@link maxRetryDelayMs}. @default 250 */
  readonly retryDelayMs?: number;
  /** @default 5000 */
  readonly maxRetryDelayMs?: number;
  /** How long to keep reconnecting after the connection was lost before giving up (exit 3). @default 60000 */
  readonly giveUpAfterMs?: number;
}

/**
 * `events follow <runId> [--after <position>] [--json]`: prints the run's
 * events as they happen (history first), one line each, from
 * `GET /runs/{runId}/events` (Server-Sent Events).
 *
 * - A dropped connection is resumed with `Last-Event-ID` (the last position
 *   printed), after a back-off from 250 ms doubling to 5 s; nothing is
 *   printed twice or skipped. After 60 s without a connection it gives up
 *   (exit 3). The first connection is not retried: a service that cannot be
 *   reached at all is exit 3 at once.
 * - It ends when the run settles (`RunCompleted`: exit 0; `RunFailed`,
 *   `RunCancelled`: exit 1), or on `stop` (Ctrl-C: exit 0).
 */
export async function eventsFollow(client: ApiClient, options: FollowOptions, output: CliOutput, stop: AbortSignal): Promise<ExitCode> {
  const path = `/runs/${encodeURIComponent(options.runId)}/events`;
  const firstDelay = options.retryDelayMs ?? 250;
  const maxDelay = options.maxRetryDelayMs ?? 5000;
  const giveUpAfter = options.giveUpAfterMs ?? 60_000;
  let lastId = options.after;
  let delay = firstDelay;
  let connectedOnce = false;
  let lostAt = Date.now();
  while (!stop.aborted) {
    const connection = new AbortController();
    const onStop = () => connection.abort(stop.reason);
    stop.addEventListener('abort', onStop, { once: true });
    try {
      let response: Response;
      try {
        response = await client.stream(path, lastId === undefined ? {} : { 'last-event-id': lastId }, connection.signal);
      } catch (error) {
        if (stop.aborted) return ExitCode.OK;
        if (!(error instanceof ServiceFailureError) || !connectedOnce) throw error;
        if (Date.now() - lostAt >= giveUpAfter) throw new ServiceFailureError(`gave up following run ${options.runId} after ${Math.round(giveUpAfter / 1000)} s without a connection: ${error.message}`);
        output.err(`${error.message}; retrying in ${delay} ms`);
        await sleep(delay, stop);
        delay = Math.min(delay * 2, maxDelay);
        continue;
      }
      if (response.body === null) throw new ServiceFailureError(`GET ${client.url(path)} answered without a body`);
      connectedOnce = true;
      delay = firstDelay;
      const reader = response.body.getReader();
      // Stop reading at once on Ctrl-C, whatever the fetch does with its signal.
      connection.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
      const decoder = new TextDecoder();
      const parser = new SseParser();
      let settled: string | undefined;
      try {
        reading: for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          for (const frame of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            if (frame.event === 'error') {
              output.err(`The service reported a stream error: ${frame.data}`);
              break reading;
            }
            let event: StreamedEventJson;
            try {
              event = JSON.parse(frame.data) as StreamedEventJson;
            } catch {
              output.err(`Skipped a frame that is not JSON: ${frame.data.slice(0, 200)}`);
              continue;
            }
            lastId = frame.id ?? event.position;
            output.out(options.json ? JSON.stringify(event) : eventLine(event));
            if (TERMINAL_EVENT_TYPES.has(event.type)) {
              settled = event.type;
              break reading;
            }
          }
        }
      } catch (error) {
        if (stop.aborted) return ExitCode.OK;
        output.err(`The event stream broke off: ${causeOf(error)}`);
      } finally {
        connection.abort();
      }
      if (settled !== undefined) return settled === 'RunCompleted' ? ExitCode.OK : ExitCode.FINDINGS;
      if (stop.aborted) return ExitCode.OK;
      lostAt = Date.now();
      output.err(`The event stream ended; resuming${lastId === undefined ? '' : ` after ${lastId}`} in ${delay} ms`);
      await sleep(delay, stop);
    } catch (error) {
      if (stop.aborted && !(error instanceof RequestRefusedError)) return ExitCode.OK;
      throw error;
    } finally {
      stop.removeEventListener('abort', onStop);
    }
  }
  return ExitCode.OK;
}
