import type { RecordedEvent } from '@agent-ledger/event-store';
import type { ProjectionDefinition } from '../core/projection-definition';
import { applyOnce } from '../core/projection-definition';
import { toProjectedEvent } from '../core/projected-event';
import type { RowStore } from '../core/row-store';

/**
 * Applies events (in `$all` order) to projections' rows, each event decoded
 * once: projection `p` takes the events from index `from[p]` on (all when
 * `from` is null), and skips a stream revision it already applied (duplicate
 * delivery). Adds the events each projection applied to `applied[p]`.
 */
export function projectEvents(
  projections: readonly ProjectionDefinition[],
  events: readonly RecordedEvent[],
  rows: RowStore,
  from: readonly number[] | null,
  applied: number[],
): void {
  for (let index = 0; index < events.length; index++) {
    const event = toProjectedEvent(events[index] as RecordedEvent);
    if (event === null) continue;
    for (let p = 0; p < projections.length; p++) {
      if (index >= (from?.[p] ?? 0) && applyOnce(projections[p] as ProjectionDefinition, event, rows)) applied[p] = (applied[p] ?? 0) + 1;
    }
  }
}

/** {@link projectEvents} for one projection and every event; returns how many it applied. */
export function project(definition: ProjectionDefinition, events: readonly RecordedEvent[], rows: RowStore): number {
  const applied = [0];
  projectEvents([definition], events, rows, null, applied);
  return applied[0] ?? 0;
}
