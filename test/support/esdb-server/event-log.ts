import type { ExpectedRevision } from './expected-revision';
import type { EventFilter } from './event-filter';
import type { ProposedEvent, RecordedEvent } from './recorded-event';
import { unixMillisToTicks } from './ticks';

/** `long.MaxValue`: the revision of a tombstone and the `$tb` of a soft-deleted stream. */
export const MAX_REVISION = 2n ** 63n - 1n;
/** No stream: the "current revision" of a stream that never had an event. */
export const NO_STREAM_REVISION = -1n;
/** Position of the first record: a fresh EventStoreDB log never has a user event at 0. */
const FIRST_POSITION = 1_024n;
/** Fixed per-record overhead added to payload sizes to make positions byte-like. */
const RECORD_OVERHEAD = 96n;
/** 100 ns ticks in a second (`$maxAge` is in seconds). */
const TICKS_PER_SECOND = 10_000_000n;

/** Outcome of a write (append, soft delete, tombstone): EventStoreDB's `OperationResult`, as data. */
export type WriteOutcome =
  | {
      readonly kind: 'success';
      /** Last revision of the stream after the write; -1 when the stream still has none. */
      readonly currentRevision: bigint;
      /** Position of the last record written (or matched, for an idempotent retry). */
      readonly position: bigint | undefined;
    }
  | {
      readonly kind: 'wrong-expected-version';
      /** -1 when the stream does not exist. */
      readonly currentRevision: bigint;
      readonly expected: ExpectedRevision;
    }
  | { readonly kind: 'stream-deleted' };

/** Type of a link event, whose data is `<revision>@<stream>`. */
export const LINK_EVENT_TYPE = '$>';

/** An event as a reader with `resolveLinkTos` receives it: the target, and the link it came through. */
export interface ResolvedRecord {
  readonly event: RecordedEvent | undefined;
  readonly link: RecordedEvent | undefined;
}

/** Outcome of reading one stream. */
export type StreamReadOutcome =
  | { readonly kind: 'events'; readonly events: readonly RecordedEvent[] }
  | { readonly kind: 'stream-not-found' }
  | { readonly kind: 'stream-deleted' };

/** Where a read starts: the start, the end, or an explicit stream revision / `$all` position. */
export type ReadFrom = 'start' | 'end' | bigint;

/** Options of {@link EventLog.readStream} and {@link EventLog.readAll}. */
export interface ReadOptions {
  readonly direction: 'forwards' | 'backwards';
  readonly from: ReadFrom;
  readonly maxCount: bigint;
}

interface StreamState {
  /** Every event ever written to the stream (truncated ones included), without the tombstone; index = revision. */
  readonly events: RecordedEvent[];
  /** Revision of each event id, so that the idempotence check of an append is a lookup, not a scan. */
  readonly revisionOfId: Map<string, number>;
  tombstoned: boolean;
  /** Latest JSON stream metadata written to `$$<stream>`, if any. */
  metadata: Record<string, unknown> | undefined;
}

/** What {@link EventLog.streamStatus} reports about a stream. */
export interface StreamStatus {
  /** Last revision written, -1 when none (a soft-deleted stream keeps its last revision). */
  readonly lastRevision: bigint;
  readonly tombstoned: boolean;
  /** Stream metadata `$tb` set to `long.MaxValue` by a soft delete, not yet recreated. */
  readonly softDeleted: boolean;
  /** First revision readers may see (`$tb`), 0 when not truncated. */
  readonly truncateBefore: bigint;
  /** First revision readers may see once `$tb` and `$maxCount` are both applied. */
  readonly firstVisibleRevision: bigint;
  /** `$maxAge`, in 100 ns ticks, when set: older events are invisible to readers. */
  readonly maxAgeTicks: bigint | undefined;
}

/**
 * The in-memory transaction log of the test server: one ordered `$all` log, per-stream
 * revision indexes and the stream metadata EventStoreDB keeps in `$$<stream>` (`$tb`,
 * `$maxCount` and `$maxAge` are applied to stream reads). It survives server restarts: the lifecycle hands the same
 * instance to every incarnation of the gRPC server.
 *
 * Expected outcomes (wrong expected version, deleted stream) are returned as values, never
 * thrown; the gRPC layer turns them into the wire form the client decodes.
 */
export class EventLog {
  private readonly all: RecordedEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  private readonly listeners = new Set<() => void>();
  private nextPosition = FIRST_POSITION;

  /** @param clock Source of `created` timestamps, in ms since the Unix epoch. @default Date.now */
  constructor(private readonly clock: () => number = Date.now) {}

  /** Number of records in `$all`. */
  get length(): number {
    return this.all.length;
  }

  /** The `$all` record at `index` (0-based, in position order). */
  recordAt(index: number): RecordedEvent | undefined {
    return this.all[index];
  }

  /** Index of the first `$all` record whose position is strictly greater than `position`. */
  indexAfter(position: bigint): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const record = this.all[middle];
      if (record !== undefined && record.position <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Registers a callback run after every write; returns the function that unregisters it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The revision-ordered events of a stream, truncated ones included. */
  streamEvents(streamName: string): readonly RecordedEvent[] {
    return this.streams.get(streamName)?.events ?? [];
  }

  /**
   * The event of `streamName` at `revision` as a reader may see it: `undefined` when it does not
   * exist, is truncated (`$tb`) or the stream is deleted. Revisions are array indexes: a stream's
   * numbering never restarts, even when a soft-deleted stream is recreated.
   */
  eventAt(streamName: string, revision: bigint): RecordedEvent | undefined {
    const status = this.streamStatus(streamName);
    if (status.tombstoned || status.softDeleted) return undefined;
    const event = this.streamEvents(streamName)[Number(revision)];
    return event?.revision === revision && this.isVisible(event, status) ? event : undefined;
  }

  /**
   * Resolves a link event (`$>`, data `<revision>@<stream>`) to the event it points to, as a read
   * with `resolveLinkTos` does: `{ event: target, link }`. A link whose target is gone is
   * returned as `{ event: undefined, link }`; any other event as `{ event, link: undefined }`.
   */
  resolve(record: RecordedEvent): ResolvedRecord {
    if (record.type !== LINK_EVENT_TYPE) return { event: record, link: undefined };
    const match = /^(\d+)@(.+)$/s.exec(Buffer.from(record.data).toString('utf8'));
    const target = match?.[1] !== undefined && match[2] !== undefined ? this.eventAt(match[2], BigInt(match[1])) : undefined;
    return { event: target, link: record };
  }

  /** Existence, deletion and truncation state of a stream. */
  streamStatus(streamName: string): StreamStatus {
    const state = this.streams.get(streamName);
    const last = state?.events[state.events.length - 1];
    const truncateBefore = this.truncateBeforeOf(streamName);
    const lastRevision = last?.revision ?? NO_STREAM_REVISION;
    const maxCount = positiveIntegerOf(state?.metadata?.['$maxCount']);
    const maxAge = positiveIntegerOf(state?.metadata?.['$maxAge']);
    const keptByCount = maxCount === undefined ? 0n : lastRevision - maxCount + 1n;
    return {
      lastRevision,
      tombstoned: state?.tombstoned ?? false,
      softDeleted: truncateBefore === MAX_REVISION,
      truncateBefore,
      firstVisibleRevision: keptByCount > truncateBefore ? keptByCount : truncateBefore,
      maxAgeTicks: maxAge === undefined ? undefined : maxAge * TICKS_PER_SECOND,
    };
  }

  /**
   * Whether a reader of the stream may see `event`: not truncated by `$tb`, among the last
   * `$maxCount` events, younger than `$maxAge` (what the server's reads apply before a scavenge).
   */
  isVisible(event: RecordedEvent, status: StreamStatus = this.streamStatus(event.streamName)): boolean {
    if (event.revision < status.firstVisibleRevision) return false;
    return status.maxAgeTicks === undefined || event.created >= unixMillisToTicks(this.clock()) - status.maxAgeTicks;
  }

  /**
   * Appends events with EventStoreDB's concurrency and idempotency rules:
   * a tombstoned stream answers `stream-deleted` whatever the expected revision; a retry of
   * the same event ids at the same expected revision succeeds without writing again; a
   * soft-deleted stream is recreated by an append expecting `any`, `no_stream` or its last
   * revision, numbering continuing after the last revision it had.
   */
  append(streamName: string, expected: ExpectedRevision, proposed: readonly ProposedEvent[]): WriteOutcome {
    const status = this.streamStatus(streamName);
    if (status.tombstoned) return { kind: 'stream-deleted' };
    const current = status.lastRevision;
    if (!this.expectationHolds(expected, status)) {
      return this.idempotentRetry(streamName, expected, proposed) ?? { kind: 'wrong-expected-version', currentRevision: current, expected };
    }
    if (expected.kind === 'any' || expected.kind === 'stream_exists') {
      const retry = this.idempotentRetry(streamName, expected, proposed);
      if (retry !== undefined) return retry;
    }
    if (proposed.length === 0) return { kind: 'success', currentRevision: current, position: undefined };
    let revision = current;
    let last: RecordedEvent | undefined;
    for (const event of proposed) {
      revision += 1n;
      last = this.write(streamName, revision, event);
    }
    if (status.softDeleted) {
      // EventStoreDB "undeletes" a soft-deleted stream by rewriting its metadata with $tb set to
      // the first new revision, keeping the other metadata entries.
      this.writeMetadata(streamName, { $tb: current + 1n });
    }
    this.notify();
    return { kind: 'success', currentRevision: revision, position: last?.position };
  }

  /**
   * Soft delete: writes `{"$tb": long.MaxValue}` to `$$<stream>`. The stream then reads as not
   * found, its events stay in `$all` (until a scavenge, which this server never runs) and an
   * append recreates it. A stream with only metadata can be deleted (expecting `any` or
   * `no_stream`); one never written at all, events or metadata, answers wrong expected version.
   */
  softDelete(streamName: string, expected: ExpectedRevision): WriteOutcome {
    const status = this.streamStatus(streamName);
    if (status.tombstoned) return { kind: 'stream-deleted' };
    // The server refuses to soft-delete a stream that has neither an event nor metadata,
    // whatever the expected revision (StorageWriterService, "SOFT DELETE").
    const neverWritten = status.lastRevision === NO_STREAM_REVISION && this.streamStatus(`$$${streamName}`).lastRevision === NO_STREAM_REVISION;
    if (!this.expectationHolds(expected, status) || neverWritten) {
      return { kind: 'wrong-expected-version', currentRevision: status.lastRevision, expected };
    }
    const record = this.writeMetadata(streamName, { $tb: MAX_REVISION });
    this.notify();
    return { kind: 'success', currentRevision: status.lastRevision, position: record.position };
  }

  /**
   * Hard delete: writes a `$streamDeleted` record at revision `long.MaxValue`. Every later
   * append, read or subscription of the stream answers "stream deleted", forever.
   */
  tombstone(streamName: string, expected: ExpectedRevision): WriteOutcome {
    const status = this.streamStatus(streamName);
    if (status.tombstoned) return { kind: 'stream-deleted' };
    if (!this.expectationHolds(expected, status)) {
      return { kind: 'wrong-expected-version', currentRevision: status.lastRevision, expected };
    }
    const record = this.createRecord(streamName, MAX_REVISION, {
      id: randomUuid(),
      type: '$streamDeleted',
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      customMetadata: new Uint8Array(),
    });
    this.all.push(record);
    this.stateOf(streamName).tombstoned = true;
    this.notify();
    return { kind: 'success', currentRevision: status.lastRevision, position: record.position };
  }

  /**
   * Reads a stream. Forwards from a revision is inclusive; backwards from a revision returns
   * that revision and the ones before it. Events before `$tb` are invisible.
   */
  readStream(streamName: string, options: ReadOptions): StreamReadOutcome {
    const status = this.streamStatus(streamName);
    if (status.tombstoned) return { kind: 'stream-deleted' };
    if (status.lastRevision === NO_STREAM_REVISION || status.softDeleted) return { kind: 'stream-not-found' };
    const visible = this.streamEvents(streamName).filter((event) => this.isVisible(event, status));
    let selected: RecordedEvent[];
    if (options.direction === 'forwards') {
      const from = options.from === 'start' ? 0n : options.from === 'end' ? status.lastRevision + 1n : options.from;
      selected = visible.filter((event) => event.revision >= from);
    } else {
      const from = options.from === 'end' ? status.lastRevision : options.from === 'start' ? -1n : options.from;
      selected = visible.filter((event) => event.revision <= from).reverse();
    }
    return { kind: 'events', events: take(selected, options.maxCount) };
  }

  /**
   * Reads `$all`. Forwards from a position is inclusive (events at or after it); backwards from
   * a position returns the events strictly before it, as EventStoreDB does.
   */
  readAll(options: ReadOptions, filter?: EventFilter): readonly RecordedEvent[] {
    let selected: RecordedEvent[];
    if (options.direction === 'forwards') {
      const from = options.from === 'start' ? 0n : options.from === 'end' ? this.nextPosition : options.from;
      selected = this.all.filter((event) => event.position >= from);
    } else {
      const before = options.from === 'end' ? this.nextPosition : options.from === 'start' ? 0n : options.from;
      selected = this.all.filter((event) => event.position < before).reverse();
    }
    if (filter !== undefined) selected = selected.filter((event) => filter.matches(event));
    return take(selected, options.maxCount);
  }

  private expectationHolds(expected: ExpectedRevision, status: StreamStatus): boolean {
    const exists = status.lastRevision !== NO_STREAM_REVISION;
    switch (expected.kind) {
      case 'any':
        return true;
      case 'no_stream':
        return !exists || status.softDeleted;
      case 'stream_exists':
        return exists && !status.softDeleted;
      case 'exact':
        return expected.revision === status.lastRevision;
    }
  }

  /**
   * EventStoreDB's idempotence check: the proposed ids are exactly the events already written
   * right after the expected revision (or, for `any`/`stream_exists`, a run of the stream
   * starting at the first proposed id). Returns the original result, or `undefined`.
   */
  private idempotentRetry(streamName: string, expected: ExpectedRevision, proposed: readonly ProposedEvent[]): WriteOutcome | undefined {
    const first = proposed[0];
    const state = this.streams.get(streamName);
    if (first === undefined || state === undefined) return undefined;
    let startIndex: number | undefined;
    if (expected.kind === 'exact' || expected.kind === 'no_stream') {
      startIndex = expected.kind === 'exact' ? Number(expected.revision + 1n) : 0;
    } else {
      startIndex = state.revisionOfId.get(first.id);
    }
    if (startIndex === undefined || startIndex < 0) return undefined;
    const run = state.events.slice(startIndex, startIndex + proposed.length);
    if (run.length !== proposed.length || run.some((event, i) => event.id !== proposed[i]?.id)) return undefined;
    const last = run[run.length - 1];
    return last === undefined ? undefined : { kind: 'success', currentRevision: last.revision, position: last.position };
  }

  private truncateBeforeOf(streamName: string): bigint {
    const raw = this.streams.get(streamName)?.metadata?.['$tb'];
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0) return 0n;
    // JSON numbers above 2^53 lose precision: 9223372036854775807 parses as 2^63.
    return raw >= Number(MAX_REVISION) ? MAX_REVISION : BigInt(Math.trunc(raw));
  }

  private writeMetadata(streamName: string, changes: Record<string, bigint>): RecordedEvent {
    const metastream = `$$${streamName}`;
    const kept: Record<string, unknown> = { ...(this.streams.get(streamName)?.metadata ?? {}) };
    for (const key of Object.keys(changes)) delete kept[key];
    // Written by hand so that `long.MaxValue` keeps all its digits (JSON numbers are doubles).
    const changed = Object.entries(changes).map(([key, value]) => `${JSON.stringify(key)}:${value.toString(10)}`);
    const rest = JSON.stringify(kept).slice(1, -1);
    const text = `{${[...changed, ...(rest === '' ? [] : [rest])].join(',')}}`;
    const status = this.streamStatus(metastream);
    const record = this.write(metastream, status.lastRevision + 1n, {
      id: randomUuid(),
      type: '$metadata',
      contentType: 'application/json',
      data: Buffer.from(text, 'utf8'),
      customMetadata: new Uint8Array(),
    });
    return record;
  }

  private write(streamName: string, revision: bigint, event: ProposedEvent): RecordedEvent {
    const record = this.createRecord(streamName, revision, event);
    this.all.push(record);
    const state = this.stateOf(streamName);
    state.events.push(record);
    if (!state.revisionOfId.has(record.id)) state.revisionOfId.set(record.id, state.events.length - 1);
    if (streamName.startsWith('$$') && event.type === '$metadata' && event.contentType === 'application/json') {
      try {
        const parsed: unknown = JSON.parse(Buffer.from(event.data).toString('utf8'));
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
          this.stateOf(streamName.slice(2)).metadata = parsed as Record<string, unknown>;
        }
      } catch {
        // Malformed metadata is stored as an event but ignored as metadata, like the server does.
      }
    }
    return record;
  }

  private createRecord(streamName: string, revision: bigint, event: ProposedEvent): RecordedEvent {
    const position = this.nextPosition;
    const size =
      RECORD_OVERHEAD +
      BigInt(Buffer.byteLength(streamName) + Buffer.byteLength(event.type) + event.data.length + event.customMetadata.length);
    this.nextPosition += size;
    return { ...event, streamName, revision, position, created: unixMillisToTicks(this.clock()) };
  }

  private stateOf(streamName: string): StreamState {
    let state = this.streams.get(streamName);
    if (state === undefined) {
      state = { events: [], revisionOfId: new Map(), tombstoned: false, metadata: undefined };
      this.streams.set(streamName, state);
    }
    return state;
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** A JSON metadata value usable as `$maxCount` / `$maxAge`: a positive integer. */
function positiveIntegerOf(value: unknown): bigint | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? BigInt(value) : undefined;
}

function take<T>(items: T[], maxCount: bigint): T[] {
  return maxCount >= BigInt(items.length) ? items : items.slice(0, Number(maxCount));
}

function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
