import type Database from 'better-sqlite3';
import type { Position, ProcessorStateStore } from '@agent-ledger/event-store';
import { parsePosition, SourceIdentityTable } from '@agent-ledger/event-store';
import type { ProjectionName } from '../core/projection-name';
import { checkpointName } from './checkpoint';

/**
 * The live tables of the read models' file as the state store of a
 * `ProcessorRunner` (`ProjectionStore.stateStore`): a processor's checkpoint
 * is the `projection_checkpoints` row `<processor>@<source>` (its
 * `events_applied` adds the events each batch applied), the identity of each
 * source's store is `projection_sources`, and a batch is one `BEGIN
 * IMMEDIATE` transaction of the file.
 */
export class ReadModelState implements ProcessorStateStore {
  private readonly statements: {
    readonly checkpoint: Database.Statement<[string], { position: string | null }>;
    readonly saveCheckpoint: Database.Statement<[string, string, string, string, number, number]>;
    readonly checkpointsOf: Database.Statement<[string], { n: number }>;
    readonly forgetCheckpoints: Database.Statement<[string]>;
  };
  private readonly sources: SourceIdentityTable;

  constructor(
    readonly path: string,
    private readonly db: Database.Database,
    private readonly now: () => number,
  ) {
    // The checkpoint and source tables are never dropped (a swap moves rows): these statements stay valid.
    this.statements = {
      checkpoint: db.prepare('SELECT position FROM projection_checkpoints WHERE name = ?'),
      saveCheckpoint: db.prepare(
        'INSERT INTO projection_checkpoints (name, projection, source, position, events_applied, updated_at) VALUES (?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (name) DO UPDATE SET position = excluded.position, events_applied = projection_checkpoints.events_applied + excluded.events_applied, updated_at = excluded.updated_at',
      ),
      checkpointsOf: db.prepare('SELECT COUNT(*) AS n FROM projection_checkpoints WHERE source = ? AND position IS NOT NULL'),
      forgetCheckpoints: db.prepare('DELETE FROM projection_checkpoints WHERE source = ?'),
    };
    this.sources = new SourceIdentityTable(db, 'projection_sources');
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  checkpoint(processor: string, source: string): Position | null {
    const position = this.statements.checkpoint.get(checkpointName(processor as ProjectionName, source))?.position;
    return position === undefined || position === null ? null : parsePosition(position);
  }

  saveCheckpoint(processor: string, source: string, position: Position, _lastApplied?: Position, appliedCount = 0): void {
    this.statements.saveCheckpoint.run(checkpointName(processor as ProjectionName, source), processor, source, position, appliedCount, this.now());
  }

  sourceIdentity(source: string): string | undefined {
    return this.sources.get(source);
  }

  recordSourceIdentity(source: string, storeId: string, now: number): void {
    this.sources.record(source, storeId, now);
  }

  hasCheckpoints(source: string): boolean {
    return (this.statements.checkpointsOf.get(source)?.n ?? 0) > 0;
  }

  forgetCheckpoints(source: string): void {
    this.statements.forgetCheckpoints.run(source);
  }
}
