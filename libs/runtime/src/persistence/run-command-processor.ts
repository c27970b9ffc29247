import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RunCommand, RunDecider, RunDecision, RunEvent, RunState } from '@agent-ledger/domain';
import { foldEvents, isRunEventType } from '@agent-ledger/domain';
import type { CurrentRevision, EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import type { CausationContext } from './domain-event-codec';
import { toDomainEvents, toEventData } from './domain-event-codec';
import { RUN_EVENT_STORE } from './event-store.tokens';
import { RUN_DECIDER } from './run-decider.token';
import { runStreamName } from './run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** A run's state as of a stream revision. */
export interface RunSnapshot {
  readonly state: RunState;
  readonly revision: CurrentRevision;
}

/** What processing a command gave: the decision, and the run as it stands after it. */
export interface RunCommandOutcome extends RunSnapshot {
  readonly decision: RunDecision;
  /** The events appended for this command (none when rejected, lost, or an idempotent repeat). */
  readonly appended: readonly RunEvent[];
}

/** How often a command is decided again after losing a concurrency race, before giving up. */
const MAX_CONFLICT_RETRIES = 8;

/**
 * The one writer of run streams: reads the stream (or starts from a snapshot
 * the caller holds), decides, and appends with the expected revision it
 * decided on. A concurrent append makes the store refuse ours; the command is
 * then decided again on the fresh stream, so the race's loser sees what won
 * (a reaper loses to a renewal, a second claim finds the run running).
 */
@Injectable()
export class RunCommandProcessor {
  private readonly logger = new Logger(RunCommandProcessor.name);

  constructor(
    @Inject(RUN_EVENT_STORE) private readonly store: EventStore,
    @Inject(RUN_DECIDER) private readonly decider: RunDecider,
    private readonly metrics: RuntimeMetrics,
  ) {}

  /** Reads a run's state from its stream. */
  async load(runId: string): Promise<RunSnapshot> {
    const result = await this.store.readStream(runStreamName(runId));
    const events = toDomainEvents<RunEvent>(result.events, isRunEventType);
    return { state: foldEvents(this.decider, events), revision: result.streamExists ? result.currentRevision : ExpectedRevision.NO_STREAM };
  }

  /**
   * Decides `command` and appends what it decides.
   *
   * @param known a snapshot the caller already holds (a segment's own last
   *   write); it is trusted until the store says the stream moved on.
   * @throws the store's errors other than a lost concurrency race (unavailable, full, ...).
   */
  async process(command: RunCommand, known?: RunSnapshot, causation: CausationContext = {}): Promise<RunCommandOutcome> {
    const stream = runStreamName(command.data.runId);
    let snapshot = known ?? (await this.load(command.data.runId));
    for (let attempt = 0; ; attempt++) {
      const decision = this.decider.decide(command, snapshot.state);
      if (decision.kind !== 'accepted' || decision.events.length === 0) {
        return { ...snapshot, decision, appended: [] };
      }
      const nextRevision = snapshot.revision === ExpectedRevision.NO_STREAM ? 0n : snapshot.revision + 1n;
      const data = toEventData(stream, nextRevision, decision.events, {
        correlationId: causation.correlationId ?? command.data.runId,
        causationId: causation.causationId,
      });
      try {
        const result = await this.store.append(stream, data, { expectedRevision: snapshot.revision });
        const state = decision.events.reduce((s, e) => this.decider.evolve(s, e), snapshot.state);
        return { state, revision: result.nextExpectedRevision, decision, appended: decision.events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
        this.metrics.increment('runCommandConflicts');
        this.logger.debug(`${command.type} on ${stream} lost a race at ${String(snapshot.revision)}; deciding again`);
        snapshot = await this.load(command.data.runId);
      }
    }
  }
}
