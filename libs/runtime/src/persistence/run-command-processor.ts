import { Inject, Injectable } from '@nestjs/common';
import type { SpanContext } from '@opentelemetry/api';
import type { RunCommand, RunDecider, RunDecision, RunEvent, RunState } from '@agent-ledger/domain';
import { isRunEventType } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { CommandOutcome, DecidedCommand } from './decider-command-handler';
import { DeciderCommandHandler } from './decider-command-handler';
import type { CausationContext } from './domain-event-codec';
import { RUN_EVENT_STORE } from './event-store.tokens';
import { RUN_DECIDER } from './run-decider.token';
import { runStreamName } from './run-streams';
import type { StreamSnapshot } from './stream-snapshot';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { activeTraceContext, storedTraceContext, tracingEnabled } from '../tracing/trace-context';

/** A run's state as of a stream revision. */
export type RunSnapshot = StreamSnapshot<RunState>;

/** What processing a command gave: the decision, and the run as it stands after it. */
export type RunCommandOutcome = CommandOutcome<RunState, RunEvent, RunDecision>;

/** How often a command is decided again after losing a concurrency race, before giving up. */
const MAX_CONFLICT_RETRIES = 8;

/**
 * The one writer of run streams: the run decider behind the generic
 * {@link DeciderCommandHandler} (read the stream or start from a snapshot the
 * caller holds, decide, append with the expected revision decided on, decide
 * again on a lost race), so the race's loser sees what won (a reaper loses to
 * a renewal, a second claim finds the run running).
 */
@Injectable()
export class RunCommandProcessor {
  private readonly handler: DeciderCommandHandler<RunCommand, RunState, RunEvent, RunDecision>;

  constructor(@Inject(RUN_EVENT_STORE) private readonly store: EventStore, @Inject(RUN_DECIDER) decider: RunDecider, metrics: RuntimeMetrics) {
    this.handler = new DeciderCommandHandler({
      name: RunCommandProcessor.name,
      store,
      decider,
      isEventType: isRunEventType,
      maxConflictRetries: MAX_CONFLICT_RETRIES,
      metrics,
      conflictCounter: 'runCommandConflicts',
    });
  }

  /** Reads a run's state from its stream. */
  load(runId: string): Promise<RunSnapshot> {
    return this.handler.load(runStreamName(runId));
  }

  /**
   * The span context of the run's trace: the one its first event was
   * appended in (the request or command that started it), read from that
   * event's metadata. Undefined when no tracer provider is registered (nothing
   * is read then), or the run started outside any trace (or before traces
   * were recorded).
   */
  async runTraceContext(runId: string): Promise<SpanContext | undefined> {
    if (!tracingEnabled()) return undefined;
    const read = await this.store.readStream(runStreamName(runId), { fromRevision: 0n, maxCount: 1 });
    return storedTraceContext(read.events[0]?.metadata);
  }

  /**
   * Decides `command` on `known` without appending (a step's one append,
   * `StepAppender`): the events are encoded as {@link process} would append
   * them, with the same causation.
   * @throws `DeciderFailedError` when the decider throws (a bug).
   */
  decide(command: RunCommand, known: RunSnapshot, causation: CausationContext = {}): DecidedCommand<RunCommand, RunState, RunEvent, RunDecision> {
    return this.handler.prepare(runStreamName(command.data.runId), command, known, this.causationOf(command, causation));
  }

  /** Forgets what is known of a run's stream (an append decided on it was refused). */
  forget(stream: string): void {
    this.handler.forget(stream);
  }

  /**
   * Decides `command` and appends what it decides. The events carry the
   * causation's trace context, or the active span's when it names none.
   *
   * @param known a snapshot the caller already holds (a segment's own last
   *   write); it is trusted until the store says the stream moved on.
   * @throws the store's errors other than a lost concurrency race (unavailable, full, ...),
   *   and `DeciderFailedError` when the decider throws (a bug).
   */
  process(command: RunCommand, known?: RunSnapshot, causation: CausationContext = {}): Promise<RunCommandOutcome> {
    return this.handler.handle(runStreamName(command.data.runId), command, { known, causation: this.causationOf(command, causation) });
  }

  /** The causation the events carry: the run as correlation, and the active span's trace context when none is named. */
  private causationOf(command: RunCommand, causation: CausationContext): CausationContext {
    return {
      correlationId: causation.correlationId ?? command.data.runId,
      causationId: causation.causationId,
      traceContext: causation.traceContext ?? activeTraceContext(),
    };
  }
}
