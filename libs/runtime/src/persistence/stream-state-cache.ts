import { ExpectedRevision } from '@agent-ledger/event-store';
import type { StreamSnapshot } from './stream-snapshot';

/**
 * The state of the streams a process wrote or read last, so that a command
 * does not read its whole stream again. The most recently remembered are
 * kept, up to `capacity`. An entry is trusted until the store refuses an
 * append decided on it (another process or call wrote in between): the
 * handler then forgets it and reads the stream again.
 */
export class StreamStateCache<State> {
  private readonly streams = new Map<string, StreamSnapshot<State>>();

  constructor(private readonly capacity: number) {}

  get(stream: string): StreamSnapshot<State> | undefined {
    return this.streams.get(stream);
  }

  /** Keeps the newest state of a stream: a slower concurrent call never replaces a newer one. */
  remember(stream: string, snapshot: StreamSnapshot<State>): void {
    const previous = this.streams.get(stream);
    if (
      previous !== undefined &&
      previous.revision !== ExpectedRevision.NO_STREAM &&
      (snapshot.revision === ExpectedRevision.NO_STREAM || snapshot.revision < previous.revision)
    ) {
      return;
    }
    this.streams.delete(stream);
    this.streams.set(stream, snapshot);
    if (this.streams.size > this.capacity) this.streams.delete(this.streams.keys().next().value as string);
  }

  forget(stream: string): void {
    this.streams.delete(stream);
  }
}
