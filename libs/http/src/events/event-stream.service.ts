import type { ServerResponse } from 'node:http';
import type { OnModuleDestroy } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvalidFieldError, RunNotFoundError, StreamCategory } from '@agent-ledger/domain';
import type { EventStore, EventSubscription, Position } from '@agent-ledger/event-store';
import { categoryFilter, comparePositions, Direction, isEventStoreError, parsePosition } from '@agent-ledger/event-store';
import { RUN_EVENT_STORE, runStreamName } from '@agent-ledger/runtime';
import { HTTP_API_OPTIONS } from '../http-api-options';
import type { HttpApiOptions } from '../http-api-options';
import { sseComment, sseFrameOf } from './sse-frame';

/** Where a stream resumes: the `Last-Event-ID` header, else the `after` query parameter. */
export interface ResumeRequest {
  readonly lastEventId?: string;
  readonly after?: string;
}

/**
 * Server-Sent Events of the run store, on a plain HTTP response: history
 * first, then live, from the store's pull-based catch-up subscriptions (no
 * gap and no duplicate at the switch). Each frame's `id` is the event's
 * position, so a client that reconnects with `Last-Event-ID` resumes right
 * after the last event it received.
 *
 * Back-pressure: the next event is pulled from the store only once the
 * response has taken the previous one (`drain`), so a slow client slows its
 * own subscription down and never makes the process buffer.
 */
@Injectable()
export class EventStreamService implements OnModuleDestroy {
  private readonly logger = new Logger('EventStreams');
  private readonly open = new Set<AbortController>();

  constructor(
    @Inject(RUN_EVENT_STORE) private readonly store: EventStore,
    @Inject(HTTP_API_OPTIONS) private readonly config: HttpApiOptions,
  ) {}

  /**
   * The position to resume after, from `Last-Event-ID` (which wins: a browser
   * sends it on reconnection, with the original URL) or `?after=`.
   * @throws InvalidFieldError naming the header or the parameter when it is not a position
   */
  resumePoint(request: ResumeRequest): Position | undefined {
    const [field, token] =
      request.lastEventId !== undefined && request.lastEventId.trim() !== '' ? ['Last-Event-ID', request.lastEventId.trim()] : ['after', request.after];
    if (token === undefined) return undefined;
    try {
      return parsePosition(token);
    } catch (error) {
      if (isEventStoreError(error, 'INVALID_POSITION')) throw new InvalidFieldError(field, 'must be an event position (the id of an event sent by this API)');
      throw error;
    }
  }

  /**
   * Streams one run's events (`run-<runId>`), after `after` if given; with
   * `from: 'now'` and no `after`, only the events recorded after the request.
   *
   * The per-run stream is read through a stream subscription from its start;
   * events at or before `after` in the global order are skipped, which is how
   * a position is mapped back onto the stream (a run's stream is short).
   * @throws RunNotFoundError before anything is sent, if the run was never requested
   */
  async streamRun(runId: string, after: Position | undefined, response: ServerResponse, from: 'start' | 'now' = 'start'): Promise<void> {
    const name = runStreamName(runId);
    const first = await this.store.readStream(name, { maxCount: 1 });
    if (!first.streamExists) throw new RunNotFoundError(runId);
    const skipUntil = after ?? (from === 'now' ? await this.head() : undefined);
    await this.pump(response, `run ${runId}`, (signal) => this.store.subscribeToStream(name, { signal }), skipUntil);
  }

  /**
   * Streams the events of every run (the `run` category of `$all`), after
   * `after` if given; with `from: 'now'` and no `after`, only events recorded
   * after the store's current head (no history).
   */
  async streamAll(after: Position | undefined, response: ServerResponse, from: 'start' | 'now' = 'start'): Promise<void> {
    const start = after ?? (from === 'now' ? await this.head() : undefined);
    await this.pump(response, 'all runs', (signal) => this.store.subscribeToAll({ after: start, filter: categoryFilter(StreamCategory.RUN), signal }), undefined);
  }

  /** The position of the store's last event of any stream, or undefined for an empty store. */
  private async head(): Promise<Position | undefined> {
    for await (const event of this.store.readAll({ direction: Direction.BACKWARDS, fromPosition: 'end', maxCount: 1 })) return event.position;
    return undefined;
  }

  /** Ends every open stream (the application is shutting down, the store is about to close). */
  onModuleDestroy(): void {
    for (const controller of this.open) controller.abort();
  }

  private async pump(response: ServerResponse, label: string, subscribe: (signal: AbortSignal) => EventSubscription, skipUntil: Position | undefined): Promise<void> {
    const abort = new AbortController();
    this.open.add(abort);
    const onClose = () => abort.abort();
    response.on('close', onClose);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write(`retry: 1000\n${sseComment(`events of ${label}`)}`);
    response.flushHeaders();
    const heartbeat = setInterval(() => {
      if (!response.writableEnded && response.writableLength === 0) response.write(sseComment('heartbeat'));
    }, this.config.sseHeartbeatMs);
    let subscription: EventSubscription | undefined;
    try {
      subscription = subscribe(abort.signal);
      for await (const event of subscription) {
        if (abort.signal.aborted) break;
        if (skipUntil !== undefined && comparePositions(event.position, skipUntil) <= 0) continue;
        if (!response.write(sseFrameOf(event))) await drained(response, abort.signal);
      }
    } catch (error) {
      if (!abort.signal.aborted) {
        this.logger.warn(`The event stream of ${label} ended: ${error instanceof Error ? error.message : String(error)}`);
        const code = isEventStoreError(error) ? error.code : 'INTERNAL_ERROR';
        if (!response.writableEnded) response.write(`event: error\ndata: ${JSON.stringify({ code, message: 'The event stream ended; reconnect with Last-Event-ID' })}\n\n`);
      }
    } finally {
      clearInterval(heartbeat);
      response.off('close', onClose);
      this.open.delete(abort);
      await subscription?.close().catch(() => undefined);
      if (!response.writableEnded) response.end();
    }
  }
}

/** Resolves when the response can take more data, or when the stream is aborted. */
function drained(response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
