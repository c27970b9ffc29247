import type { ServerErrorResponse } from '@grpc/grpc-js';
import { SubscriptionInfo } from '@eventstore/db-client/generated/persistent_pb';
import type { ReadResp } from '@eventstore/db-client/generated/persistent_pb';

import { createConsumerStrategy } from './consumer-strategy';
import type { ConsumerStrategy, StrategyMember } from './consumer-strategy';
import { LINK_EVENT_TYPE } from './event-log';
import type { EventLog } from './event-log';
import type { GroupSettings, GroupSource } from './persistent-subscription-settings';
import { formatAllPosition, formatStart, sourceName } from './persistent-subscription-settings';
import { toConfirmationResponse, toPersistentReadResponse } from './persistent-read-event-message';
import type { RecordedEvent } from './recorded-event';
import type { UuidFormat } from './uuid';

/** What defines a group: where it reads, its name and its settings. Survives server restarts. */
export interface GroupConfig {
  readonly source: GroupSource;
  readonly groupName: string;
  readonly settings: GroupSettings;
}

/** The transport side of a member: where its deliveries go and how it is ended. */
export interface MemberChannel {
  write(response: ReadResp): void;
  /** Ends the member's call with `error`. */
  drop(error: ServerErrorResponse): void;
  /** `host:port` of the peer, for statistics. */
  readonly from: string;
  readonly connectionName: string;
  readonly uuidFormat: UuidFormat;
}

/** The nack actions of `ReadReq.Nack.Action`. */
export type NackAction = 'unknown' | 'park' | 'retry' | 'skip' | 'stop';

/** One connected consumer of a group (one `Read` call). */
export class GroupMember implements StrategyMember {
  readonly id = globalThis.crypto.randomUUID();
  /** Ids of the messages sent to this member and not yet acked, nacked or timed out. */
  readonly inFlight = new Set<string>();
  totalItems = 0;

  constructor(
    readonly channel: MemberChannel,
    readonly bufferSize: number,
  ) {}

  hasCapacity(): boolean {
    return this.inFlight.size < this.bufferSize;
  }
}

/** One delivery unit: an event read from the source (or replayed from the parked stream). */
interface GroupMessage {
  /** The original event's id (the link's, for an event reached through a link): the ack key. */
  readonly id: string;
  readonly event: RecordedEvent | undefined;
  readonly link: RecordedEvent | undefined;
  /** The record read from the source. */
  readonly original: RecordedEvent;
  readonly retryCount: number;
  /** Order of reading from the source; `undefined` for a replayed parked message (not checkpointed). */
  readonly ordinal: number | undefined;
}

interface Outstanding {
  readonly message: GroupMessage;
  readonly member: GroupMember;
  readonly expiresAt: number;
}

/** Event type of a checkpoint, written to `$persistentsubscription-<source>::<group>-checkpoint`. */
export const CHECKPOINT_EVENT_TYPE = '$SubscriptionCheckpoint';

/** The stream holding a group's checkpoints. */
export function checkpointStreamOf(source: GroupSource, groupName: string): string {
  return `$persistentsubscription-${sourceName(source)}::${groupName}-checkpoint`;
}

/** The stream holding a group's parked messages (links to the events). */
export function parkedStreamOf(source: GroupSource, groupName: string): string {
  return `$persistentsubscription-${sourceName(source)}::${groupName}-parked`;
}

/**
 * The live state of one persistent subscription group for one server incarnation, following
 * EventStoreDB's `PersistentSubscription`: it reads its source lazily (in order, from its
 * checkpoint or its start point), hands each message to one member chosen by the consumer
 * strategy (retries first), tracks in-flight messages with their deadline, retries on nack or
 * timeout with `retryCount + 1`, parks a message once it was retried `maxRetryCount` times,
 * and writes a checkpoint (the last position below which every message was processed) when
 * `maxCheckPointCount` messages were processed, or at a clock tick once `checkPointAfter`
 * passed and at least `minCheckPointCount` were.
 */
export class PersistentSubscriptionGroup {
  readonly members: GroupMember[] = [];
  private readonly strategy: ConsumerStrategy<GroupMember>;
  private cursor = 0;
  /** Read from the source, not yet sent (the strategy may skip a message for a while). */
  private readonly buffer: GroupMessage[] = [];
  /** Messages to deliver again, in source order, replays of parked messages last. */
  private readonly retries: GroupMessage[] = [];
  private readonly outstanding = new Map<string, Outstanding>();
  private nextOrdinal = 0;
  /** Highest ordinal at or below which every message was processed; -1 when none. */
  private frontier = -1;
  private frontierPosition: bigint | undefined;
  private readonly processedAhead = new Set<number>();
  private readonly positions = new Map<number, bigint>();
  private lastCheckpointedOrdinal = -1;
  private lastCheckpointTime = Number.NEGATIVE_INFINITY;
  private lastCheckpoint: bigint | undefined;
  private lastKnown: bigint | undefined;
  private totalItems = 0;
  private pumping = false;
  private pumpAgain = false;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    readonly config: GroupConfig,
    private readonly clock: () => number,
  ) {
    this.strategy = createConsumerStrategy(config.settings.consumerStrategy);
    this.load();
  }

  /** `<source>::<group>`: the subscription id of the confirmation and the key of the group. */
  get subscriptionId(): string {
    return `${sourceName(this.config.source)}::${this.config.groupName}`;
  }

  get hasReachedMaxSubscribers(): boolean {
    const max = this.config.settings.maxSubscriberCount;
    return max !== 0 && this.members.length >= max;
  }

  /** Adds a member, confirms it and starts delivering to it. */
  join(member: GroupMember): void {
    this.members.push(member);
    member.channel.write(toConfirmationResponse(this.subscriptionId));
    this.pump();
  }

  /** A member left (cancelled, disconnected): its in-flight messages are retried by the others. */
  leave(member: GroupMember): void {
    const index = this.members.indexOf(member);
    if (index < 0) return;
    this.members.splice(index, 1);
    this.strategy.removed(member);
    const lost = [...this.outstanding.values()].filter((entry) => entry.member === member).map((entry) => entry.message);
    for (const message of lost) {
      this.forget(message.id);
      this.addRetry({ ...message, retryCount: message.retryCount + 1 });
    }
    this.pump();
  }

  ack(ids: readonly string[]): void {
    for (const id of ids) {
      const entry = this.outstanding.get(id);
      if (entry === undefined) continue;
      this.forget(id);
      this.markProcessed(entry.message);
    }
    this.tryCheckpoint(false);
    this.pump();
  }

  nack(ids: readonly string[], action: NackAction, reason: string): void {
    for (const id of ids) {
      const entry = this.outstanding.get(id);
      if (entry === undefined) continue;
      switch (action) {
        case 'retry':
        case 'unknown':
          this.retryOrPark(entry.message);
          break;
        case 'park':
          this.park(entry.message, `Client explicitly NAK'ed message.\n${reason}`);
          break;
        case 'skip':
        case 'stop':
          // The real server's `stop` is a no-op besides removing the message from processing.
          this.forget(id);
          this.markProcessed(entry.message);
          break;
      }
    }
    this.tryCheckpoint(false);
    this.pump();
  }

  /** Clock tick: expired messages are retried (or parked), then a timed checkpoint may be written. */
  tick(): void {
    const now = this.clock();
    for (const entry of [...this.outstanding.values()]) {
      if (entry.expiresAt <= now && this.outstanding.get(entry.message.id) === entry) this.retryOrPark(entry.message);
    }
    this.pump();
    this.tryCheckpoint(true);
  }

  /**
   * Replays the parked messages (up to the parked stream's revision `stopAt`, exclusive) as
   * retries with a retry count of 0, then truncates the parked stream (`$tb`) past them.
   */
  replayParked(stopAt: bigint | undefined): void {
    const stream = parkedStreamOf(this.config.source, this.config.groupName);
    let end: bigint | undefined;
    for (const link of this.parkedLinks()) {
      if (stopAt !== undefined && link.revision >= stopAt) break;
      const resolved = this.log.resolve(link);
      this.retries.push({ id: link.id, event: resolved.event, link, original: link, retryCount: 0, ordinal: undefined });
      end = link.revision + 1n;
    }
    if (end !== undefined) this.writeJson(`$$${stream}`, '$metadata', `{"$tb":${end.toString(10)}}`);
    this.pump();
  }

  /** Delivers whatever can be delivered now (after a write to the log, an ack, a new member...). */
  pump(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.pushAvailable();
      } while (this.pumpAgain && !this.closed);
    } finally {
      this.pumping = false;
    }
  }

  /** Stops the group: every member's call ends with `error`. */
  shutdown(error: (group: PersistentSubscriptionGroup) => ServerErrorResponse): void {
    this.closed = true;
    const members = this.members.splice(0);
    for (const member of members) member.channel.drop(error(this));
  }

  /** Stops the group without a word to its members (their calls are ended by the server stop). */
  discard(): void {
    this.closed = true;
    this.members.splice(0);
  }

  /** `SubscriptionInfo` of `GetInfo` and `List`. */
  info(): SubscriptionInfo {
    const settings = this.config.settings;
    const source = this.config.source;
    const info = new SubscriptionInfo();
    info.setEventSource(sourceName(source));
    info.setGroupName(this.config.groupName);
    info.setStatus(this.isLive() ? 'Live' : 'Behind');
    info.setConnectionsList(this.members.map((member) => this.connectionInfo(member)));
    info.setAveragePerSecond(0);
    info.setTotalItems(this.totalItems.toString(10));
    info.setCountSinceLastMeasurement('0');
    info.setLastCheckpointedEventPosition(this.formatPosition(this.lastCheckpoint));
    info.setLastKnownEventPosition(this.formatPosition(this.lastKnown));
    info.setResolveLinkTos(settings.resolveLinkTos);
    info.setStartFrom(formatStart(source, settings.start));
    info.setMessageTimeoutMilliseconds(settings.messageTimeoutMs);
    info.setExtraStatistics(settings.extraStatistics);
    info.setMaxRetryCount(settings.maxRetryCount);
    info.setLiveBufferSize(settings.liveBufferSize);
    info.setBufferSize(settings.historyBufferSize);
    info.setReadBatchSize(settings.readBatchSize);
    info.setCheckPointAfterMilliseconds(settings.checkPointAfterMs);
    info.setMinCheckPointCount(settings.minCheckPointCount);
    info.setMaxCheckPointCount(settings.maxCheckPointCount);
    info.setReadBufferCount(this.buffer.length);
    info.setLiveBufferCount('0');
    info.setRetryBufferCount(this.retries.length);
    info.setTotalInFlightMessages(this.outstanding.size);
    info.setOutstandingMessagesCount(this.outstanding.size);
    info.setNamedConsumerStrategy(settings.consumerStrategy);
    info.setMaxSubscriberCount(settings.maxSubscriberCount);
    info.setParkedMessageCount(this.parkedCount().toString(10));
    return info;
  }

  private connectionInfo(member: GroupMember): SubscriptionInfo.ConnectionInfo {
    const connection = new SubscriptionInfo.ConnectionInfo();
    connection.setFrom(member.channel.from);
    connection.setUsername('');
    connection.setAverageItemsPerSecond(0);
    connection.setTotalItems(member.totalItems.toString(10));
    connection.setCountSinceLastMeasurement('0');
    connection.setAvailableSlots(member.bufferSize - member.inFlight.size);
    connection.setInFlightMessages(member.inFlight.size);
    connection.setConnectionName(member.channel.connectionName);
    return connection;
  }

  /** Reads the checkpoint stream: resume after the checkpoint, or from the start point. */
  private load(): void {
    const source = this.config.source;
    const checkpoint = this.readCheckpoint();
    if (source.kind === 'stream') {
      const start = this.config.settings.start;
      const length = this.log.streamEvents(source.streamName).length;
      if (checkpoint !== undefined) this.cursor = Number(checkpoint) + 1;
      else this.cursor = start === 'start' ? 0 : start === 'end' ? length : Number(start);
    } else {
      const start = this.config.settings.start;
      if (checkpoint !== undefined) this.cursor = this.log.indexAfter(checkpoint);
      else this.cursor = start === 'start' ? 0 : start === 'end' ? this.log.length : this.log.indexAfter(start - 1n);
    }
    this.lastCheckpoint = checkpoint;
  }

  private readCheckpoint(): bigint | undefined {
    const stream = checkpointStreamOf(this.config.source, this.config.groupName);
    const outcome = this.log.readStream(stream, { direction: 'backwards', from: 'end', maxCount: 1n });
    if (outcome.kind !== 'events') return undefined;
    const last = outcome.events[0];
    if (last === undefined) return undefined;
    const text: unknown = JSON.parse(Buffer.from(last.data).toString('utf8'));
    if (typeof text !== 'string') return undefined;
    const match = /^C:(\d+)\/P:\d+$/.exec(text);
    return BigInt(match?.[1] ?? text);
  }

  /** Retries first, then the buffer, then the source, while some member has room. */
  private pushAvailable(): void {
    if (this.members.length === 0) return;
    if (!this.dispatch(this.retries, () => undefined)) return;
    const limit = Math.max(1, this.config.settings.historyBufferSize);
    this.dispatch(this.buffer, () => (this.buffer.length >= limit ? undefined : this.readNext()));
  }

  /**
   * Offers the messages of `queue` in order, then those `more` reads into it; a message the
   * strategy skips stays in place. `false` once no member has a free slot.
   */
  private dispatch(queue: GroupMessage[], more: () => GroupMessage | undefined): boolean {
    for (let i = 0; ; ) {
      if (i >= queue.length) {
        const next = more();
        if (next === undefined) return true;
        queue.push(next);
      }
      const message = queue[i] as GroupMessage;
      const choice = this.strategy.choose(this.members, message.original.streamName);
      if (choice.kind === 'no-capacity') return false;
      if (choice.kind === 'skipped') {
        i += 1;
        continue;
      }
      queue.splice(i, 1);
      this.send(message, choice.member);
    }
  }

  private readNext(): GroupMessage | undefined {
    const source = this.config.source;
    for (;;) {
      let record: RecordedEvent | undefined;
      if (source.kind === 'stream') {
        record = this.log.streamEvents(source.streamName)[this.cursor];
        if (record === undefined) return undefined;
        this.cursor += 1;
        const status = this.log.streamStatus(source.streamName);
        if (status.tombstoned || !this.log.isVisible(record, status)) continue;
      } else {
        record = this.log.recordAt(this.cursor);
        if (record === undefined) return undefined;
        this.cursor += 1;
        if (source.filter !== undefined && !source.filter.matches(record)) continue;
      }
      const resolved = this.config.settings.resolveLinkTos ? this.log.resolve(record) : { event: record, link: undefined };
      const ordinal = this.nextOrdinal++;
      const position = this.positionOf(record);
      this.positions.set(ordinal, position);
      this.lastKnown = position;
      return { id: record.id, event: resolved.event, link: resolved.link, original: record, retryCount: 0, ordinal };
    }
  }

  private send(message: GroupMessage, member: GroupMember): void {
    this.outstanding.set(message.id, { message, member, expiresAt: this.clock() + this.config.settings.messageTimeoutMs });
    member.inFlight.add(message.id);
    member.totalItems += 1;
    this.totalItems += 1;
    member.channel.write(toPersistentReadResponse(message.event, message.link, message.retryCount, member.channel.uuidFormat));
  }

  private forget(id: string): void {
    const entry = this.outstanding.get(id);
    if (entry === undefined) return;
    this.outstanding.delete(id);
    entry.member.inFlight.delete(id);
  }

  private retryOrPark(message: GroupMessage): void {
    this.forget(message.id);
    if (message.retryCount >= this.config.settings.maxRetryCount) {
      this.park(message, `Reached retry count of ${this.config.settings.maxRetryCount}`);
      return;
    }
    this.addRetry({ ...message, retryCount: message.retryCount + 1 });
  }

  private addRetry(message: GroupMessage): void {
    const ordinal = message.ordinal;
    const at = ordinal === undefined ? -1 : this.retries.findIndex((other) => other.ordinal === undefined || other.ordinal > ordinal);
    if (at < 0) this.retries.push(message);
    else this.retries.splice(at, 0, message);
  }

  /** Writes a link to the event in the parked stream, then counts the message as processed. */
  private park(message: GroupMessage, reason: string): void {
    this.forget(message.id);
    const target = message.ordinal === undefined && message.event !== undefined ? message.event : message.original;
    this.log.append(parkedStreamOf(this.config.source, this.config.groupName), { kind: 'any' }, [
      {
        id: globalThis.crypto.randomUUID(),
        type: LINK_EVENT_TYPE,
        contentType: 'application/octet-stream',
        data: Buffer.from(`${target.revision.toString(10)}@${target.streamName}`, 'utf8'),
        customMetadata: Buffer.from(JSON.stringify({ added: new Date(this.clock()).toISOString(), reason }), 'utf8'),
      },
    ]);
    this.markProcessed(message);
  }

  private markProcessed(message: GroupMessage): void {
    if (message.ordinal === undefined) return;
    this.processedAhead.add(message.ordinal);
    while (this.processedAhead.delete(this.frontier + 1)) {
      this.frontier += 1;
      this.frontierPosition = this.positions.get(this.frontier);
      this.positions.delete(this.frontier);
    }
  }

  private tryCheckpoint(isTimeCheck: boolean): void {
    const position = this.frontierPosition;
    if (this.frontier < 0 || position === undefined) return;
    const settings = this.config.settings;
    const difference = this.frontier - this.lastCheckpointedOrdinal;
    if (difference <= 0) return;
    const now = this.clock();
    if (now - this.lastCheckpointTime < settings.checkPointAfterMs && difference < settings.maxCheckPointCount) return;
    if (!((difference >= settings.minCheckPointCount && isTimeCheck) || difference >= settings.maxCheckPointCount)) return;
    this.lastCheckpointTime = now;
    this.lastCheckpointedOrdinal = this.frontier;
    this.lastCheckpoint = position;
    const stream = checkpointStreamOf(this.config.source, this.config.groupName);
    if (this.log.streamStatus(stream).lastRevision < 0n) this.writeJson(`$$${stream}`, '$metadata', '{"$maxCount":1}');
    const text = this.config.source.kind === 'stream' ? position.toString(10) : formatAllPosition(position);
    this.writeJson(stream, CHECKPOINT_EVENT_TYPE, JSON.stringify(text));
  }

  private writeJson(stream: string, type: string, json: string): void {
    this.log.append(stream, { kind: 'any' }, [
      { id: globalThis.crypto.randomUUID(), type, contentType: 'application/json', data: Buffer.from(json, 'utf8'), customMetadata: new Uint8Array() },
    ]);
  }

  private positionOf(record: RecordedEvent): bigint {
    return this.config.source.kind === 'stream' ? record.revision : record.position;
  }

  private formatPosition(position: bigint | undefined): string {
    if (position === undefined) return '';
    return this.config.source.kind === 'stream' ? position.toString(10) : formatAllPosition(position);
  }

  private isLive(): boolean {
    const source = this.config.source;
    const end = source.kind === 'stream' ? this.log.streamEvents(source.streamName).length : this.log.length;
    return this.cursor >= end && this.buffer.length === 0;
  }

  /** The parked links not yet replayed (the parked stream past its `$tb`). */
  private parkedLinks(): readonly RecordedEvent[] {
    const outcome = this.log.readStream(parkedStreamOf(this.config.source, this.config.groupName), {
      direction: 'forwards',
      from: 'start',
      maxCount: BigInt(Number.MAX_SAFE_INTEGER),
    });
    return outcome.kind === 'events' ? outcome.events : [];
  }

  private parkedCount(): number {
    return this.parkedLinks().length;
  }
}
