import type { OnModuleDestroy } from '@nestjs/common';
import { Injectable, Logger } from '@nestjs/common';
import type { ProjectionName, RebuildProgress, RebuildRecord, RebuildResult } from '@agent-ledger/projections';
import { PROJECTION_NAMES, ProjectionRebuilder, RebuildAbortedError, RebuildInProgressError } from '@agent-ledger/projections';
import type { RebuildState } from './rebuild-state';
import { IDLE_REBUILD } from './rebuild-state';

/**
 * Runs one projection rebuild at a time **in the background of this
 * process** (`ProjectionRebuilder.rebuildWithProgress`, pulled to its end)
 * and keeps its {@link RebuildState} for `GET /projections/rebuild`.
 *
 * The live projection runners keep running meanwhile: the live tables answer
 * until the swap, and the runners resume from the rebuilt checkpoints after
 * it. A failure is logged with its stack and kept as `failed`. At shutdown
 * the rebuild is aborted (its partial tables are dropped, the live ones
 * stay) and awaited, before the read-model file is closed.
 */
@Injectable()
export class ProjectionRebuildService implements OnModuleDestroy {
  private readonly logger = new Logger('ProjectionRebuild');
  private current: RebuildState = IDLE_REBUILD;
  private running: { readonly done: Promise<void>; readonly abort: AbortController } | null = null;

  constructor(private readonly rebuilder: ProjectionRebuilder) {}

  /** The running rebuild, or the last one, or `idle`. */
  state(): RebuildState {
    return this.current;
  }

  /**
   * The last rebuilds swapped into the read models' file, newest first, by
   * whichever process ran them (this one, another service, the CLI).
   */
  history(limit = 10): RebuildRecord[] {
    return this.rebuilder.history(limit);
  }

  /**
   * Starts rebuilding `projection` (every projection when undefined) and
   * returns at once with the `running` state.
   * @throws RebuildInProgressError when a rebuild runs in this process (this one's, or the CLI's rebuilder's in the same process)
   */
  start(projection: ProjectionName | undefined, requestedBy: string): RebuildState {
    if (this.running !== null) throw new RebuildInProgressError(this.current.projections ?? PROJECTION_NAMES);
    const elsewhere = this.rebuilder.inProgress;
    if (elsewhere !== null) throw new RebuildInProgressError(elsewhere);
    const projections = projection === undefined ? undefined : [projection];
    const abort = new AbortController();
    this.current = { ...IDLE_REBUILD, state: 'running', projections: projections ?? [...PROJECTION_NAMES], requestedBy, startedAt: Date.now() };
    const done = this.drive(this.rebuilder.rebuildWithProgress({ projections, signal: abort.signal, requestedBy })).finally(() => {
      this.running = null;
    });
    this.running = { done, abort };
    return this.current;
  }

  /** Aborts a running rebuild and waits for it to end (its partial tables dropped). */
  async onModuleDestroy(): Promise<void> {
    const running = this.running;
    if (running === null) return;
    running.abort.abort();
    await running.done;
  }

  /** Pulls the rebuild to its end, keeping each progress record; never rejects (the outcome is the state). */
  private async drive(progress: AsyncGenerator<RebuildProgress, RebuildResult, undefined>): Promise<void> {
    try {
      for (;;) {
        const next = await progress.next();
        if (next.done === true) {
          this.current = { ...this.current, state: 'succeeded', projections: next.value.projections, finishedAt: Date.now(), result: next.value };
          this.logger.log(`Rebuilt ${next.value.projections.join(', ')}: ${next.value.eventsDone} events (${next.value.eventsApplied} applied) in ${next.value.elapsedMs} ms; swapped in`);
          return;
        }
        this.current = { ...this.current, projections: next.value.projections, progress: next.value };
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.current = { ...this.current, state: 'failed', finishedAt: Date.now(), error: message };
      if (error instanceof RebuildAbortedError) this.logger.warn(`Rebuild of ${(this.current.projections ?? []).join(', ')} aborted (the service is shutting down); the live tables are untouched`);
      else this.logger.error(`Rebuild of ${(this.current.projections ?? []).join(', ')} failed: ${message}`, error instanceof Error ? error.stack : undefined);
    }
  }
}
