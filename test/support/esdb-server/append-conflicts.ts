import type { ProposedEvent } from './recorded-event';

/** The refused appends of one stream. */
export interface StreamAppendConflicts {
  /** Appends to the stream refused with a wrong expected revision. */
  readonly refused: number;
  /**
   * The same appends by the types of the events they proposed: a refused append counts once
   * for each distinct type it carried (`RunClaimed`: the claims that lost a race).
   */
  readonly byEventType: Readonly<Record<string, number>>;
}

/** What {@link AppendConflicts.snapshot} returns: every append refused with a wrong expected revision since the server started. */
export interface AppendConflictStats {
  /** Refused appends, every stream together. */
  readonly total: number;
  /** By stream name; a stream without a refused append is absent. */
  readonly streams: Readonly<Record<string, StreamAppendConflicts>>;
}

/**
 * Counts the appends (`Append` and `BatchAppend` commits alike) the server refused with a wrong
 * expected revision, per stream and per proposed event type. Idempotent retries (answered as
 * successes) and deletes are not counted. Kept across `stop()`/`start()`, like the data.
 */
export class AppendConflicts {
  private total = 0;
  private readonly streams = new Map<string, { refused: number; readonly byEventType: Map<string, number> }>();

  record(streamName: string, proposed: readonly ProposedEvent[]): void {
    this.total += 1;
    let stream = this.streams.get(streamName);
    if (stream === undefined) {
      stream = { refused: 0, byEventType: new Map() };
      this.streams.set(streamName, stream);
    }
    stream.refused += 1;
    for (const type of new Set(proposed.map((event) => event.type))) stream.byEventType.set(type, (stream.byEventType.get(type) ?? 0) + 1);
  }

  snapshot(): AppendConflictStats {
    const streams: Record<string, StreamAppendConflicts> = {};
    for (const [name, stream] of this.streams) streams[name] = { refused: stream.refused, byEventType: Object.fromEntries(stream.byEventType) };
    return { total: this.total, streams };
  }
}
