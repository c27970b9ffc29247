import type Database from 'better-sqlite3';
import type { Position, RecordedEvent } from '@agent-ledger/event-store';
import { comparePositions } from '@agent-ledger/event-store';
import { CrashPoint, crashPointSync } from '@agent-ledger/crash-points';
import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectionName } from '../core/projection-name';
import type { Row, TableSpec } from '../core/table-spec';
import type { Checkpoint } from './checkpoint';
import { checkpointName } from './checkpoint';
import { projectEvents } from './project-events';
import type { TableSlot } from './sql-table';
import type { TableStatements } from './sqlite-row-store';
import { SqliteRowStore } from './sqlite-row-store';
import type { WrittenKeys } from './written-keys';

/** What {@link ProjectionStore.applyBatch} (or a rebuild's {@link PendingBatch.commit}) did. */
export type BatchOutcome =
  | {
      readonly kind: 'applied';
      /** Events applied, summed over the projections (duplicates and already-checkpointed events not counted). */
      readonly applied: number;
      /** The position of the batch's last event: the new checkpoint of every projection that was behind it. */
      readonly position: Position | null;
    }
  | {
      /**
       * A checkpoint is behind the caller's cursor (a rebuild was swapped in,
       * or someone reset it): nothing was written; resubscribe from the stored
       * checkpoints.
       */
      readonly kind: 'checkpointMoved';
      readonly projection: ProjectionName;
    };

/** Where a batch is written: the read models' connection and what the store prepared on it. */
export interface BatchStorage {
  readonly db: Database.Database;
  /** Every table of the store's projections, by name. */
  readonly tables: ReadonlyMap<string, TableSpec<Row>>;
  /** Row statements by physical table, prepared once. */
  readonly statements: Map<string, TableStatements>;
  checkpoint(projection: ProjectionName, source: string, slot: TableSlot): Checkpoint | undefined;
  /** `INSERT OR REPLACE` of a checkpoint row of the slot (name, projection, source, position, events_applied, updated_at). */
  checkpointUpsert(slot: TableSlot): Database.Statement;
  now(): number;
}

/** A batch of events of one source for some projections of one slot. */
export interface BatchInput {
  readonly slot: TableSlot;
  readonly source: string;
  readonly projections: readonly ProjectionDefinition[];
  /** The events, in `$all` order, all of the source's store. */
  readonly events: readonly RecordedEvent[];
  /**
   * The position after which the caller's subscription started or its previous
   * batch ended (null: from the start). If a stored checkpoint is behind it,
   * events between would be skipped, so the batch is refused.
   */
  readonly after: Position | null;
}

/** What a {@link PendingBatch} is for: a {@link BatchInput} whose events come later ({@link PendingBatch.add}). */
export type PendingBatchInput = Omit<BatchInput, 'events'>;

/** A batch of a rebuild being filled ({@link ProjectionStore.beginRebuildBatch}). */
export interface RebuildBatch {
  /** Events taken so far. */
  readonly events: number;
  /** Applies events (in `$all` order, after the ones taken before) to the batch's rows in memory. */
  add(events: readonly RecordedEvent[]): void;
  /** Writes the changed rows and moves the checkpoints, in one transaction; refused (nothing written) when a checkpoint moved meanwhile. */
  commit(): BatchOutcome;
}

/**
 * Events of one source applied to rows in memory (read from SQLite once per
 * row), then written with the projections' checkpoints in ONE transaction
 * ({@link commit}): after a crash, either the rows and the checkpoint both
 * include the batch or neither does. The one-off batch of
 * {@link ProjectionStore.applyBatch} is applied and committed inside one
 * transaction; a rebuild's batch takes its events in several pulls (its
 * tables are written by nobody else) and commits once. (The live read models
 * are fed by a `ProcessorRunner`, through `ProjectionStore.processors`.)
 */
export class PendingBatch implements RebuildBatch {
  private readonly rows: SqliteRowStore;
  /** Events applied, by projection (index in the input's projections). */
  private readonly applied: number[] = [];
  private last: Position | null = null;
  private eventCount = 0;
  private readonly begunInTransaction: boolean;

  private constructor(
    private readonly storage: BatchStorage,
    private readonly input: PendingBatchInput,
    private readonly checkpoints: ReadonlyMap<ProjectionName, Checkpoint | undefined>,
    written: WrittenKeys | undefined,
  ) {
    this.rows = new SqliteRowStore(storage.db, input.slot, storage.statements, written);
    this.begunInTransaction = storage.db.inTransaction;
  }

  /**
   * Reads the projections' checkpoints and starts a batch, or says which
   * checkpoint is behind the caller's cursor.
   * @param written the keys a rebuild wrote so far (its fresh tables only)
   */
  static begin(storage: BatchStorage, input: PendingBatchInput, written?: WrittenKeys): PendingBatch | Extract<BatchOutcome, { kind: 'checkpointMoved' }> {
    const checkpoints = new Map<ProjectionName, Checkpoint | undefined>();
    for (const projection of input.projections) {
      const checkpoint = storage.checkpoint(projection.name, input.source, input.slot);
      if (isBehind(checkpoint, input.after)) return { kind: 'checkpointMoved', projection: projection.name };
      checkpoints.set(projection.name, checkpoint);
    }
    return new PendingBatch(storage, input, checkpoints, written);
  }

  /** Events taken so far. */
  get events(): number {
    return this.eventCount;
  }

  /**
   * Applies events (in `$all` order, after the ones taken before) to the rows
   * in memory. An event at or before a projection's checkpoint is skipped for
   * it; a stream revision already applied is skipped too (duplicate delivery).
   */
  add(events: readonly RecordedEvent[]): void {
    // Each projection takes the events after the first one past its checkpoint.
    const firstNew = this.input.projections.map((projection) => {
      const stored = this.checkpoints.get(projection.name)?.position ?? null;
      if (stored === null) return 0;
      const index = events.findIndex((e) => comparePositions(e.position, stored) > 0);
      return index === -1 ? events.length : index;
    });
    projectEvents(this.input.projections, events, this.rows, firstNew, this.applied);
    this.last = events[events.length - 1]?.position ?? this.last;
    this.eventCount += events.length;
  }

  /**
   * Writes the changed rows and moves the checkpoints. Runs inside the
   * caller's transaction ({@link ProjectionStore.applyBatch}) or its own.
   * Refused (nothing written) when a checkpoint moved since {@link begin}.
   */
  commit(): BatchOutcome {
    const { db } = this.storage;
    if (db.inTransaction) return this.write();
    return db.transaction(() => this.write()).immediate();
  }

  private write(): BatchOutcome {
    const { slot, source, projections } = this.input;
    // Begun in this same transaction (a live batch), the checkpoints read at the start cannot have moved.
    for (const projection of this.begunInTransaction ? [] : projections) {
      const now = this.storage.checkpoint(projection.name, source, slot)?.position ?? null;
      const then = this.checkpoints.get(projection.name)?.position ?? null;
      if ((now === null) !== (then === null) || (now !== null && then !== null && comparePositions(now, then) !== 0)) {
        return { kind: 'checkpointMoved', projection: projection.name };
      }
    }
    this.rows.flush(this.storage.tables);
    // The rows are written, the checkpoint is not, and nothing is committed: a crash here must lose the whole batch.
    crashPointSync(CrashPoint.DURING_PROJECTION_UPDATE);
    let total = 0;
    const last = this.last;
    if (last !== null) {
      const upsert = this.storage.checkpointUpsert(slot);
      const now = this.storage.now();
      for (const [p, projection] of projections.entries()) {
        const checkpoint = this.checkpoints.get(projection.name);
        const stored = checkpoint?.position ?? null;
        if (stored !== null && comparePositions(last, stored) <= 0) continue;
        const count = this.applied[p] ?? 0;
        total += count;
        upsert.run(checkpointName(projection.name, source), projection.name, source, last, (checkpoint?.eventsApplied ?? 0) + count, now);
      }
    }
    return { kind: 'applied', applied: total, position: last };
  }
}

function isBehind(checkpoint: Checkpoint | undefined, after: Position | null): boolean {
  const stored = checkpoint?.position ?? null;
  return after !== null && (stored === null || comparePositions(stored, after) < 0);
}
