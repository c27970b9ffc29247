import { Logger } from '@nestjs/common';
import type { Decider, Decision, DomainEvent, JsonValue } from '@agent-ledger/domain';
import { canonicalJson, foldEvents, isAccepted } from '@agent-ledger/domain';
import type { EventData, EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import type { CausationContext } from './domain-event-codec';
import { toDomainEvents, toEventData } from './domain-event-codec';
import { DeciderFailedError } from './decider-failed.error';
import type { StreamSnapshot } from './stream-snapshot';
import { StreamStateCache } from './stream-state-cache';
import type { RuntimeCounter, RuntimeMetrics } from '../metrics/runtime-metrics';

/** What handling a command gave: the decision, and the stream as it stands after it. */
export interface CommandOutcome<State, Event, D> extends StreamSnapshot<State> {
  /** What the decider answered, on the state the events were appended at (after any lost race). */
  readonly decision: D;
  /** The events this call appended (none when not accepted, an idempotent repeat, or another caller's event under the same id). */
  readonly appended: readonly Event[];
}

/** How a {@link DeciderCommandHandler} handles the commands of one kind of stream. */
export interface DeciderCommandHandlerOptions<Command, State, Event, D> {
  /** Names the handler in its logs. */
  readonly name: string;
  readonly store: EventStore;
  readonly decider: Decider<Command, State, Event, D>;
  /** Whether a recorded event's type is one the decider folds (others are skipped). */
  readonly isEventType: (type: string) => boolean;
  /** How often a command is decided again after losing an expected-revision race, before the conflict is thrown. */
  readonly maxConflictRetries: number;
  readonly metrics: RuntimeMetrics;
  /** Counted on each lost race (the command is decided again). */
  readonly conflictCounter?: RuntimeCounter;
  /** Keep the state of this many recently written or read streams, trusted until the store refuses an append. */
  readonly cachedStreams?: number;
}

/** How one command is handled. */
export interface HandleOptions<State> {
  /** A snapshot the caller holds (its own last write): trusted until the store says the stream moved on. */
  readonly known?: StreamSnapshot<State>;
  readonly causation?: CausationContext;
  /**
   * Appends the decided event (exactly one) under this id instead of the
   * name-based one, so that any caller appending the same fact gets the same
   * id. The store then answers a concurrent caller's event under the id as if
   * it were this one's: what is stored is read back, and is in `appended`
   * only if it is this call's.
   */
  readonly eventId?: string;
}

/**
 * A command decided and its events encoded, not appended: one part of an
 * append the caller makes itself (several streams in one commit). Its events
 * go to `stream` at `expectedRevision`; once they are stored, the stream is
 * at `revision` with `state`.
 */
export interface DecidedCommand<Command, State, Event, D> extends StreamSnapshot<State> {
  readonly stream: string;
  readonly command: Command;
  readonly decision: D;
  /** The accepted events (none when the decision is not `accepted`). */
  readonly events: readonly Event[];
  /** The stream's revision they were decided at. */
  readonly expectedRevision: StreamSnapshot<State>['revision'];
  /** The events as the store takes them. */
  readonly data: readonly EventData[];
}

/**
 * The one command loop of the deciders: load the stream (or start from a
 * snapshot the caller holds, or the cache), decide, append the accepted
 * events with the expected revision they were decided at; when the store
 * refuses it (`WrongExpectedRevisionError`: someone appended first), read the
 * stream again and decide again, so the loser of a race sees what won.
 *
 * A decision other than `accepted` with events is returned as it is, and
 * nothing is appended. A decider that throws is a bug: it is logged, counted
 * (`deciderFailures`) and thrown as a {@link DeciderFailedError}, never
 * confused with a store's refusal. Store errors (unavailable, full, a conflict
 * after the last retry) are thrown as they are.
 */
export class DeciderCommandHandler<Command extends { readonly type: string }, State, Event extends DomainEvent, D extends Decision<Event, { readonly kind: string }>> {
  private readonly logger: Logger;
  private readonly cache: StreamStateCache<State> | undefined;

  constructor(private readonly options: DeciderCommandHandlerOptions<Command, State, Event, D>) {
    this.logger = new Logger(options.name);
    this.cache = options.cachedStreams === undefined ? undefined : new StreamStateCache(options.cachedStreams);
  }

  /** Reads a stream and folds it with the decider. */
  async load(stream: string): Promise<StreamSnapshot<State>> {
    const read = await this.options.store.readStream(stream);
    const snapshot: StreamSnapshot<State> = {
      state: foldEvents(this.options.decider, toDomainEvents<Event>(read.events, this.options.isEventType)),
      revision: read.streamExists ? read.currentRevision : ExpectedRevision.NO_STREAM,
    };
    this.cache?.remember(stream, snapshot);
    return snapshot;
  }

  /** Decides `command` on `stream` and appends what it decides. */
  async handle(stream: string, command: Command, options: HandleOptions<State> = {}): Promise<CommandOutcome<State, Event, D>> {
    const { store, maxConflictRetries, conflictCounter, metrics } = this.options;
    let snapshot = options.known ?? this.cache?.get(stream) ?? (await this.load(stream));
    for (let attempt = 0; ; attempt++) {
      const { decision, events, state } = this.decide(stream, command, snapshot);
      if (events.length === 0) return { ...snapshot, decision, appended: [] };
      const nextRevision = snapshot.revision === ExpectedRevision.NO_STREAM ? 0n : snapshot.revision + 1n;
      const data = this.encode(stream, nextRevision, events, options);
      try {
        const result = await store.append(stream, data, { expectedRevision: snapshot.revision });
        if (options.eventId !== undefined) return await this.readBack(stream, nextRevision, snapshot, data, { decision, events, state });
        const outcome: CommandOutcome<State, Event, D> = { state, revision: result.nextExpectedRevision, decision, appended: events };
        this.cache?.remember(stream, outcome);
        return outcome;
      } catch (error) {
        this.cache?.forget(stream);
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxConflictRetries) throw error;
        if (conflictCounter !== undefined) metrics.increment(conflictCounter);
        this.logger.debug(`${command.type} on ${stream} lost a race at ${String(snapshot.revision)}; deciding again`);
        snapshot = await this.load(stream);
      }
    }
  }

  /** The stream's state to decide the next command on: the cache's, else read. */
  async current(stream: string): Promise<StreamSnapshot<State>> {
    return this.cache?.get(stream) ?? (await this.load(stream));
  }

  /**
   * Decides `command` on `snapshot` and encodes what it decides, without
   * appending: the caller appends `data` (with other parts, in one commit)
   * and then tells {@link committed}, or, when the store refused it,
   * {@link forget}. A throw of the decider is its bug ({@link DeciderFailedError}),
   * logged and counted unless `failures` is `'leftToCaller'`: a caller that
   * then sends the same command through {@link handle} (which reports it)
   * would count one bug twice.
   */
  prepare(
    stream: string,
    command: Command,
    snapshot: StreamSnapshot<State>,
    causation: CausationContext = {},
    failures: 'reported' | 'leftToCaller' = 'reported',
  ): DecidedCommand<Command, State, Event, D> {
    const { decision, events, state } = this.decide(stream, command, snapshot, failures);
    if (events.length === 0) return { stream, command, decision, events, state: snapshot.state, revision: snapshot.revision, expectedRevision: snapshot.revision, data: [] };
    const nextRevision = snapshot.revision === ExpectedRevision.NO_STREAM ? 0n : snapshot.revision + 1n;
    const data = this.encode(stream, nextRevision, events, { causation });
    return { stream, command, decision, events, state, revision: nextRevision + BigInt(events.length - 1), expectedRevision: snapshot.revision, data };
  }

  /** The stream's state after the caller stored decided events: kept for the next command. */
  committed(stream: string, snapshot: StreamSnapshot<State>): void {
    this.cache?.remember(stream, snapshot);
  }

  /** Forgets what is known of `stream` (an append decided on it was refused): the next command reads it. */
  forget(stream: string): void {
    this.cache?.forget(stream);
  }

  /** The decision, its events to append (none unless accepted) and the state after them; a throw is the decider's bug. */
  private decide(stream: string, command: Command, snapshot: StreamSnapshot<State>, failures: 'reported' | 'leftToCaller' = 'reported'): { decision: D; events: readonly Event[]; state: State } {
    const { decider, metrics } = this.options;
    try {
      const decision = decider.decide(command, snapshot.state);
      const events: readonly Event[] = isAccepted<Event>(decision) ? decision.events : [];
      return { decision, events, state: events.reduce((state, event) => decider.evolve(state, event), snapshot.state) };
    } catch (error) {
      const failure = new DeciderFailedError(stream, command.type, error);
      if (failures === 'leftToCaller') throw failure;
      metrics.increment('deciderFailures');
      this.logger.error(`${failure.message}\n${error instanceof Error ? (error.stack ?? '') : ''}`);
      throw failure;
    }
  }

  private encode(stream: string, nextRevision: bigint, events: readonly Event[], options: HandleOptions<State>): EventData[] {
    const data = toEventData(stream, nextRevision, events, options.causation ?? {});
    if (options.eventId === undefined) return data;
    if (data.length !== 1) throw new Error(`An append under a given event id takes one event; ${stream} was decided ${data.length}`);
    return data.map((event) => ({ ...event, id: options.eventId as string }));
  }

  /**
   * After an append under a given id: the event stored at `revision` is ours,
   * or a concurrent caller's under the same id (the store took ours as its
   * repeat). The state folds whichever it is. A failed read leaves it counted
   * as ours (it is stored either way) and the stream out of the cache.
   */
  private async readBack(
    stream: string,
    revision: bigint,
    before: StreamSnapshot<State>,
    sent: readonly EventData[],
    ours: { decision: D; events: readonly Event[]; state: State },
  ): Promise<CommandOutcome<State, Event, D>> {
    const { store, decider, isEventType } = this.options;
    const asOurs: CommandOutcome<State, Event, D> = { state: ours.state, revision, decision: ours.decision, appended: ours.events };
    const stored = await store.readStream(stream, { fromRevision: revision, maxCount: 1 }).then(
      (read) => read.events[0],
      (error: unknown) => {
        this.logger.warn(`${stream}: the event appended under id ${sent[0]?.id ?? ''} could not be read back; counted as this call's: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    );
    if (stored === undefined) {
      this.cache?.forget(stream);
      return asOurs;
    }
    const outcome: CommandOutcome<State, Event, D> =
      canonicalJson(stored.data as JsonValue) === canonicalJson(sent[0]?.data as JsonValue)
        ? asOurs
        : { state: toDomainEvents<Event>([stored], isEventType).reduce((state, event) => decider.evolve(state, event), before.state), revision, decision: ours.decision, appended: [] };
    this.cache?.remember(stream, outcome);
    return outcome;
  }
}
