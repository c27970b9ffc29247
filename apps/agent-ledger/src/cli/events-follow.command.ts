import type { AgentLedgerClient, EventStreamConnection } from '@agent-ledger/client';
import { AgentLedgerStreamEndedError, AgentLedgerStreamError } from '@agent-ledger/client';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { eventLine, TERMINAL_EVENT_TYPES } from './event-format';
import { causeOf, ServiceFailureError, serviceFailureOf } from './service-client';

/** `events follow`'s reconnection: the client's, with the CLI's timings. */
export interface FollowReconnect {
  /** First reconnection delay; doubled after each failed attempt, up to {@link maxRetryDelayMs}. @default 250 */
  readonly retryDelayMs?: number;
  /** @default 5000 */
  readonly maxRetryDelayMs?: number;
  /** Connections in a row that may fail (or drop without an event) before it gives up (exit 3). @default 16 (about a minute with the default delays) */
  readonly maxAttempts?: number;
}

/** `events follow` options. */
export interface FollowOptions extends FollowReconnect {
  readonly runId: string;
  /** Start after this position (an SSE id printed before). */
  readonly after: string | undefined;
  readonly json: boolean;
  /** `--full`: each tool's whole result, not its first 200 characters. */
  readonly full?: boolean;
  /** End (exit 0) once an event of this type is printed; a run that settles before it is exit 1. */
  readonly until?: string;
}

/**
 * `events follow <runId> [--after <position>] [--json] [--full]`: prints the
 * run's events as they happen (history first), one line each, from
 * `GET /runs/{runId}/events` (the client's event iterator). A tool's result
 * shows its first 200 characters, and how long it is, unless `--full`.
 *
 * - A dropped connection is resumed with `Last-Event-ID` (the last position
 *   printed), after a back-off from 250 ms doubling to 5 s, each said on
 *   standard error; nothing is printed twice or skipped. After 16
 *   connections in a row without an event (about a minute) it gives up
 *   (exit 3). The first connection is not retried: a service that cannot
 *   be reached at all is exit 3 at once.
 * - It ends when the run settles (`RunCompleted`: exit 0; `RunFailed`,
 *   `RunCancelled`: exit 1), or on `stop` (Ctrl-C: exit 0).
 * - With `until`, it ends (exit 0) once an event of that type is printed,
 *   from the history or live; a run that settles before one is exit 1, said
 *   on standard error.
 */
export async function eventsFollow(client: AgentLedgerClient, baseUrl: string, options: FollowOptions, output: CliOutput, stop: AbortSignal): Promise<ExitCode> {
  let opened = false;
  const onConnection = (change: EventStreamConnection): void => {
    if (change.state === 'open') {
      opened = true;
      return;
    }
    // Never connected: the URL or the service is wrong; waiting would only delay saying so.
    if (!opened) throw change.cause;
    const resume = change.lastEventId === null ? '' : ` after ${change.lastEventId}`;
    output.err(`${lossOf(change.cause, baseUrl)}; resuming${resume} in ${change.retryInMs} ms`);
  };
  const events = client.runEvents(options.runId, {
    signal: stop,
    ...(options.after === undefined ? {} : { lastEventId: options.after }),
    reconnect: { initialDelayMs: options.retryDelayMs ?? 250, maxDelayMs: options.maxRetryDelayMs ?? 5000, maxAttempts: options.maxAttempts ?? 16 },
    onConnection,
  });
  try {
    for await (const event of events) {
      output.out(options.json ? JSON.stringify(event) : eventLine(event, { full: options.full === true }));
      if (options.until !== undefined && event.type === options.until) return ExitCode.OK;
      if (TERMINAL_EVENT_TYPES.has(event.type)) {
        if (options.until !== undefined) {
          output.err(`Run ${options.runId} settled (${event.type}) before any ${options.until} event.`);
          return ExitCode.FINDINGS;
        }
        return event.type === 'RunCompleted' ? ExitCode.OK : ExitCode.FINDINGS;
      }
    }
  } catch (error) {
    if (error instanceof AgentLedgerStreamError) {
      throw new ServiceFailureError(`gave up following run ${options.runId} after ${error.attempts} connections in a row without an event: ${lossOf(error.cause, baseUrl)}`);
    }
    throw error;
  }
  // The iteration ends on its own only when `stop` aborts it (Ctrl-C).
  return ExitCode.OK;
}

/** Why a connection was lost, for a person. */
function lossOf(cause: unknown, baseUrl: string): string {
  if (cause instanceof AgentLedgerStreamEndedError) return cause.frame === null ? 'The event stream ended' : `The service reported a stream error: ${cause.frame.code}: ${cause.frame.message}`;
  return serviceFailureOf(cause, baseUrl)?.message ?? `The event stream broke off: ${causeOf(cause)}`;
}
