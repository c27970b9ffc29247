import type { ServerWritableStream } from '@grpc/grpc-js';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { ReadReq } from '@eventstore/db-client/generated/streams_pb';

import type { EventFilter } from './event-filter';
import type { EventLog } from './event-log';
import type { OpenCalls } from './open-calls';
import { abortCall } from './open-calls';
import { toReadEventResponse } from './read-event-message';
import type { RecordedEvent } from './recorded-event';
import { streamDeletedError } from './rpc-errors';
import type { UuidFormat } from './uuid';

/** Default `maxSearchWindow` of a filtered subscription (`DefaultReadBatchSize`). */
export const DEFAULT_MAX_SEARCH_WINDOW = 32;

/** What a catch-up subscription follows and where it starts. Start points are exclusive. */
export type SubscriptionTarget =
  | { readonly kind: 'stream'; readonly streamName: string; readonly from: 'start' | 'end' | bigint }
  | {
      readonly kind: 'all';
      readonly from: 'start' | 'end' | bigint;
      readonly filter?: EventFilter;
      /** `maxSearchWindow × checkpointIntervalMultiplier`: events considered between two checkpoints. */
      readonly checkpointInterval?: number;
    };

type Call = ServerWritableStream<ReadReq, ReadResp>;

/**
 * One catch-up subscription (`Streams.Read` with `subscription` set), following EventStoreDB's
 * order of messages: `confirmation`, the historical events after the (exclusive) start point,
 * for filtered `$all` a `checkpoint` at the last position considered, then `caught_up`, then
 * live events as they are written.
 *
 * Catch-up and live reading share one cursor over the same in-memory log, so there is neither
 * a gap nor a duplicate at the switch. Filtered `$all` subscriptions also send a `checkpoint`
 * every `checkpointInterval` events considered (matching or not), so that a consumer with a
 * selective filter can still record progress.
 */
export class CatchUpSubscription {
  private closed = false;
  /** Set by every write to the log, so a change made while the pump was busy is not lost. */
  private pendingChange = false;
  private wake: (() => void) | undefined;
  private readonly unsubscribeFromLog: () => void;
  private readonly unregister: () => void;

  constructor(
    private readonly log: EventLog,
    private readonly call: Call,
    private readonly target: SubscriptionTarget,
    private readonly uuidFormat: UuidFormat,
    openCalls: OpenCalls,
    private readonly resolveLinks = false,
  ) {
    this.unsubscribeFromLog = log.onChange(() => this.signal());
    this.unregister = openCalls.add({
      abort: (error) => {
        this.close();
        return abortCall(call, error);
      },
    });
    call.on('cancelled', () => this.close());
    call.on('error', () => this.close());
  }

  /** Starts pumping messages; errors end the call with the matching status. */
  start(): void {
    this.run().catch((error: unknown) => {
      this.close();
      if (!this.call.writableFinished) this.call.emit('error', toServiceError(error));
    });
  }

  /** Stops the pump (client cancellation or server stop); idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribeFromLog();
    this.unregister();
    this.signal();
  }

  private async run(): Promise<void> {
    const confirmation = new ReadResp.SubscriptionConfirmation();
    confirmation.setSubscriptionId(globalThis.crypto.randomUUID());
    const confirmed = new ReadResp();
    confirmed.setConfirmation(confirmation);
    await this.send(confirmed);
    if (this.target.kind === 'stream') await this.runStream(this.target.streamName, this.target.from);
    else await this.runAll(this.target);
  }

  private async runStream(streamName: string, from: 'start' | 'end' | bigint): Promise<void> {
    const initial = this.log.streamEvents(streamName);
    let index = from === 'start' ? 0 : from === 'end' ? initial.length : firstIndexAfterRevision(initial, from);
    let caughtUp = false;
    while (!this.closed) {
      const status = this.log.streamStatus(streamName);
      if (status.tombstoned) {
        this.close();
        await abortCall(this.call, streamDeletedError(streamName));
        return;
      }
      const event = this.log.streamEvents(streamName)[index];
      if (event !== undefined) {
        index += 1;
        if (this.log.isVisible(event, status)) await this.send(this.eventResponse(event));
        continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        await this.sendCaughtUp();
      }
      await this.waitForChange();
    }
  }

  private async runAll(target: Extract<SubscriptionTarget, { kind: 'all' }>): Promise<void> {
    const from = target.from;
    let index = from === 'start' ? 0 : from === 'end' ? this.log.length : this.log.indexAfter(from);
    const filter = target.filter;
    const interval = target.checkpointInterval ?? DEFAULT_MAX_SEARCH_WINDOW;
    let considered = 0;
    let lastConsidered: RecordedEvent | undefined;
    let lastCheckpoint = -1n;
    let caughtUp = false;
    const checkpoint = async (position: bigint): Promise<void> => {
      if (position <= lastCheckpoint) return;
      lastCheckpoint = position;
      const message = new ReadResp.Checkpoint();
      message.setCommitPosition(position.toString(10));
      message.setPreparePosition(position.toString(10));
      const response = new ReadResp();
      response.setCheckpoint(message);
      await this.send(response);
    };
    while (!this.closed) {
      const record = this.log.recordAt(index);
      if (record !== undefined) {
        index += 1;
        lastConsidered = record;
        if (filter === undefined || filter.matches(record)) await this.send(this.eventResponse(record));
        if (filter !== undefined && ++considered >= interval) {
          considered %= interval;
          await checkpoint(record.position);
        }
        continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        // The real server issues a checkpoint when a filtered subscription goes live, so that at
        // least one is sent per interval even when the filter matched nothing.
        if (filter !== undefined && lastConsidered !== undefined) await checkpoint(lastConsidered.position);
        await this.sendCaughtUp();
      }
      await this.waitForChange();
    }
  }

  private eventResponse(record: RecordedEvent): ReadResp {
    return toReadEventResponse(record, this.uuidFormat, this.resolveLinks ? this.log.resolve(record) : undefined);
  }

  private async sendCaughtUp(): Promise<void> {
    const response = new ReadResp();
    response.setCaughtUp(new ReadResp.CaughtUp());
    await this.send(response);
  }

  private async send(response: ReadResp): Promise<void> {
    if (this.closed || this.call.writableFinished || this.call.cancelled) return;
    if (this.call.write(response)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.call.off('drain', done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      this.call.on('drain', done);
      this.wake = done;
    });
  }

  private waitForChange(): Promise<void> {
    if (this.pendingChange || this.closed) {
      this.pendingChange = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        if (this.wake === done) this.wake = undefined;
        this.pendingChange = false;
        resolve();
      };
      this.wake = done;
    });
  }

  private signal(): void {
    this.pendingChange = true;
    this.wake?.();
  }
}

function firstIndexAfterRevision(events: readonly RecordedEvent[], revision: bigint): number {
  const index = events.findIndex((event) => event.revision > revision);
  return index < 0 ? events.length : index;
}

function toServiceError(error: unknown): Error & { code: number; details: string } {
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(message), { code: 2, details: message });
}
