import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, Position } from '@agent-ledger/event-store';
import { comparePositions } from '@agent-ledger/event-store';
import type { ProjectionSource, ProjectionStatusEntry } from '@agent-ledger/projections';
import { PROJECTED_EVENTS_FILTER, ProjectionQueries } from '@agent-ledger/projections';
import { PROJECTION_SOURCES } from './projection-sources.token';

/** How far a projection is behind its source's head, in projected events. */
export interface ProjectionLag {
  /** Events after the checkpoint, counted up to the cap. */
  readonly events: number;
  /** True when counting stopped at the cap: the lag is at least `events`. */
  readonly atLeast: boolean;
}

/** A projection's status with its lag. */
export type ProjectionStatusWithLag = ProjectionStatusEntry & {
  /** Null when the source's head is unknown (a checkpoint of a source this process does not read). */
  readonly lag: ProjectionLag | null;
};

/**
 * Adds a lag in events to `ProjectionQueries.projectionStatus()`: the events
 * of the `run` and `audit` categories after each checkpoint, counted by a
 * forward read of the source's `$all` that stops at a cap, so the cost is
 * bounded whatever the backlog.
 */
@Injectable()
export class ProjectionLagService {
  constructor(
    private readonly queries: ProjectionQueries,
    @Inject(PROJECTION_SOURCES) private readonly sources: readonly ProjectionSource[],
  ) {}

  /** Every projection in every source, with its lag counted up to `cap` events. */
  async status(cap: number): Promise<ProjectionStatusWithLag[]> {
    const entries = await this.queries.projectionStatus();
    const counted = new Map<string, Promise<ProjectionLag>>();
    const lagOf = (entry: ProjectionStatusEntry): Promise<ProjectionLag> | null => {
      if (entry.caughtUp === true) return Promise.resolve({ events: 0, atLeast: false });
      const source = this.sources.find((s) => s.name === entry.source);
      if (source === undefined || entry.caughtUp === null) return null;
      const key = `${entry.source}@${entry.position ?? 'start'}`;
      let lag = counted.get(key);
      if (lag === undefined) {
        lag = countAfter(source.store, entry.position, cap);
        counted.set(key, lag);
      }
      return lag;
    };
    return Promise.all(entries.map(async (entry) => ({ ...entry, lag: await lagOf(entry) })));
  }
}

async function countAfter(store: EventStore, position: Position | null, cap: number): Promise<ProjectionLag> {
  let events = 0;
  // `fromPosition` is inclusive: one more than the cap, plus the checkpoint's own event.
  for await (const event of store.readAll({ fromPosition: position ?? 'start', filter: PROJECTED_EVENTS_FILTER, maxCount: cap + 2 })) {
    if (position !== null && comparePositions(event.position, position) <= 0) continue;
    events += 1;
    if (events > cap) return { events: cap, atLeast: true };
  }
  return { events, atLeast: false };
}
