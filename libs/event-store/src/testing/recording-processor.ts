import type { RecordedEvent } from '../port/event';
import type { EventFilter } from '../port/event-filter';
import type { EventProcessor } from '../processing/event-processor';
import type { ProcessorDatabase } from '../processing/processor-database';

/**
 * A test processor that inserts a row per event it applies into
 * `applied_events` of the processors' database, keyed by processor and event
 * id: applying an event twice throws (a primary-key violation), so a test sees
 * a double application as a failure. `failWhen` makes `apply` throw.
 */
export class RecordingProcessor implements EventProcessor {
  /** Every event seen by `observe`, in order. */
  readonly observed: RecordedEvent[] = [];
  /** Calls of `reset`. */
  resets = 0;
  /** When it returns true for an event of a batch, `apply` throws after inserting the rows before it. */
  failWhen: ((event: RecordedEvent) => boolean) | null = null;
  /** Called at the start of `apply` (e.g. to stop the runner during a batch). */
  onApply: ((events: readonly RecordedEvent[]) => void) | null = null;

  constructor(
    private readonly database: ProcessorDatabase,
    readonly name: string,
    readonly filter?: EventFilter,
  ) {
    database.sqlite.exec('CREATE TABLE IF NOT EXISTS applied_events (processor TEXT NOT NULL, event_id TEXT NOT NULL, position TEXT NOT NULL, PRIMARY KEY (processor, event_id))');
  }

  apply(events: readonly RecordedEvent[]): void {
    this.onApply?.(events);
    const insert = this.database.sqlite.prepare('INSERT INTO applied_events (processor, event_id, position) VALUES (?, ?, ?)');
    for (const event of events) {
      insert.run(this.name, event.id, event.position);
      if (this.failWhen?.(event) === true) throw new Error(`${this.name} fails on ${event.type} ${event.id}`);
    }
  }

  observe(events: readonly RecordedEvent[]): void {
    this.observed.push(...events);
  }

  reset(): void {
    this.resets++;
    this.database.sqlite.prepare('DELETE FROM applied_events WHERE processor = ?').run(this.name);
  }

  /** The ids of the events it applied, in `$all` order. */
  appliedIds(): string[] {
    return (this.database.sqlite.prepare('SELECT event_id FROM applied_events WHERE processor = ? ORDER BY CAST(substr(position, 1, instr(position, \':\') - 1) AS INTEGER)').all(this.name) as Array<{ event_id: string }>).map((r) => r.event_id);
  }
}
