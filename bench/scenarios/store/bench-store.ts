import type { Durability } from '@agent-ledger/event-store';
import type { BenchEvent, BenchEventData } from './bench-events';

/**
 * What the store scenario needs of an event store, so that the product and
 * the peer run the very same workload code.
 *
 * Versions are counted the same way for both: the version of a stream is the
 * number of events in it (0: no stream), and an event's version is its 1-based
 * place in its stream. The product's revisions are 0-based (`revision + 1`);
 * the peer's stream positions are already 1-based.
 */

/** What an append with an expected version did. */
export type AppendOutcome =
  /** Written and acknowledged: the stream is now at `version`. */
  | { readonly kind: 'appended'; readonly version: number }
  /** Refused because the stream is not at the expected version (nothing should be written). */
  | { readonly kind: 'conflict' };

/** An event as read back. */
export interface ReadBackEvent {
  readonly streamName: string;
  /** 1-based place in its stream. */
  readonly version: number;
  readonly type: string;
  readonly data: BenchEventData | unknown;
}

/** A whole stream as read back. */
export interface StreamSnapshot {
  /** The stream's version as the store reports it (what an appender passes as its expected version). */
  readonly version: number;
  readonly events: readonly ReadBackEvent[];
}

/** A stream read back for the checks. */
export interface ReadBackSnapshot extends StreamSnapshot {
  /** The store's own count of the stream's events, kept apart from them (the peer's `emt_streams.stream_position`); absent for the product. */
  readonly streamCounter?: number;
}

/** The calls of the concurrency check: read a stream, append with an expected version. */
export interface AppendAndReadStore {
  /**
   * Appends `events` if the stream is at `expectedVersion`.
   * @returns the outcome; a wrong expected version is an outcome, not an error.
   * @throws anything else the store throws (busy, misuse...), untouched.
   */
  append(streamName: string, events: readonly BenchEvent[], expectedVersion: number): Promise<AppendOutcome>;
  /** Reads a whole stream (an absent stream is version 0, no events). */
  readStream(streamName: string): Promise<StreamSnapshot>;
  /**
   * The stream's current version, read the cheapest way the API offers: what a handler needs
   * for its expected version (the product reads the last event; the peer's API has no read
   * shorter than the whole stream).
   */
  readVersion(streamName: string): Promise<number>;
  /** Closes the store (the product commits what it accepted first). */
  close(): Promise<void>;
}

/** How the acknowledged appends of a store were committed, since it was opened. */
export interface CommitStats {
  /** Write transactions committed. */
  readonly commits: number;
  /**
   * Appends acknowledged while a write transaction of the connection was still open, that is
   * before the COMMIT that makes them durable; `null` where not observed (the product, whose
   * appends settle after their COMMIT by construction).
   */
  readonly acknowledgedBeforeCommit: number | null;
}

/** A store measured for throughput: also reads the whole log in global order. */
export interface BenchStore extends AppendAndReadStore {
  /** Commits and early acknowledgements since the store was opened. */
  commitStats(): CommitStats;

  /**
   * Reads every event of every stream in global order, calling `visit` for each.
   * @returns how many events were read.
   */
  readAll(visit: (event: ReadBackEvent) => void): Promise<number>;
}

/** One way of opening a store of the comparison (the product, or the peer through one of its APIs). */
export interface StoreKind<Store extends AppendAndReadStore = AppendAndReadStore> {
  readonly subject: 'product' | 'peer';
  /** Short name for notes and variants, e.g. `one connection`. */
  readonly api: string;
  /** Opens a store on a fresh file, with the journal and sync settings of `durability` when the API allows them. */
  open(path: string, durability: Durability): Promise<Store>;
  /**
   * The settings actually in force on a store opened like this, read back from SQLite
   * (journal mode, synchronous, busy timeout...), as one line of text.
   */
  describeSettings(path: string, durability: Durability): Promise<string>;
  /**
   * Reads `streamName` back from the closed file through a fresh connection, for the checks,
   * with the store's own counter of the stream's events when it keeps one apart from the events.
   */
  readBack(path: string, streamName: string): Promise<ReadBackSnapshot>;
}
