import type { RunEvent } from '@agent-ledger/domain';
import { encodeEvent } from '@agent-ledger/domain';
import type { Position, RecordedEvent } from '@agent-ledger/event-store';
import { positionFromParts } from '@agent-ledger/event-store';
import type { ProjectedAuditEvent, ProjectedEvent } from '../core/projected-event';

/**
 * Numbers domain events as a store would: per-stream revisions from 0 and one
 * global position sequence (for unit specs of the pure mappings).
 */
export class EventLog {
  private readonly revisions = new Map<string, number>();
  private sequence = 0;
  readonly events: ProjectedEvent[] = [];

  /** Appends run events to `run-<runId>`. */
  run(...events: RunEvent[]): this {
    for (const event of events) this.push(`run-${event.data.runId}`, event);
    return this;
  }

  /** Appends audit events to `audit-<runId>`. */
  audit(...events: ProjectedAuditEvent[]): this {
    for (const event of events) this.push(`audit-${event.data.runId}`, event);
    return this;
  }

  /** The events as a store would return them (for specs that feed a {@link ProjectionStore}). */
  recorded(): RecordedEvent[] {
    return this.events.map((e, i) => ({
      streamName: e.streamName,
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      type: e.type,
      revision: BigInt(e.revision),
      position: e.position,
      data: e.data as unknown as Record<string, unknown>,
      metadata: encodeEvent(e).metadata,
      created: new Date(0),
    }));
  }

  private push(streamName: string, event: RunEvent | ProjectedAuditEvent): void {
    const revision = (this.revisions.get(streamName) ?? -1) + 1;
    this.revisions.set(streamName, revision);
    this.sequence++;
    const position: Position = positionFromParts({ commit: BigInt(this.sequence), prepare: BigInt(this.sequence) });
    this.events.push({ ...event, streamName, revision, position });
  }
}
