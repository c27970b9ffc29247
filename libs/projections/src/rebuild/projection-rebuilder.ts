import type { EventStore, Position } from '@agent-ledger/event-store';
import { comparePositions, Direction, positionToParts, pullBatches, yieldToEventLoop } from '@agent-ledger/event-store';
import type { ProjectionDefinition } from '../core/projection-definition';
import type { ProjectionName } from '../core/projection-name';
import { RebuildAbortedError } from '../errors/rebuild-aborted.error';
import { ReadModelStoreMismatchError } from '../errors/read-model-store-mismatch.error';
import { RebuildInProgressError } from '../errors/rebuild-in-progress.error';
import type { ProjectionSource } from '../runner/projection-source';
import { PROJECTED_EVENTS_FILTER } from '../runner/projection-source';
import { positiveInteger } from '../runner/projection-runner';
import type { ProjectionStore } from '../store/projection-store';
import type { RebuildBatch } from '../store/pending-batch';
import { TableSlot } from '../store/sql-table';
import { WrittenKeys } from '../store/written-keys';
import type { RebuildProgress, RebuildResult } from './rebuild-progress';
import { RebuildPhase } from './rebuild-progress';
import type { RebuildRecord } from './rebuild-record';

/** Options of a rebuild. */
export interface RebuildOptions {
  /**
   * The projections to rebuild.
   * @default every projection of the store
   */
  readonly projections?: readonly ProjectionName[];
  /**
   * Events per transaction while replaying. Events are read and applied a
   * page at a time; a batch's changed rows stay in memory until its commit,
   * so memory is bounded by the rows a batch touches.
   * @default 5000
   */
  readonly batchSize?: number;
  /**
   * Least time between two `replaying` progress records.
   * @default 250
   */
  readonly progressIntervalMs?: number;
  /**
   * Rows the rebuild tracks by rowid in memory (about 12 bytes a row) while
   * its tables are unindexed; past it, it indexes their keys and finds rows
   * by key (slower) for the rest of the replay.
   * @default 3,000,000
   */
  readonly rowIndexCapacity?: number;
  /** Aborts the rebuild before the swap: the live tables stay, the partial ones are dropped. */
  readonly signal?: AbortSignal;
  /**
   * Who asked for it, recorded with the swap in the read models' file
   * ({@link ProjectionStore.rebuildHistory}): `key:<id>`, `cli:<user>@<host>`...
   * @default null (nobody named)
   */
  readonly requestedBy?: string | null;
}

/** Options of {@link ProjectionRebuilder.rebuild}. */
export interface RebuildWithCallbackOptions extends RebuildOptions {
  /** Called with each progress record. */
  readonly onProgress?: (progress: RebuildProgress) => void;
}

/** Events per rebuild transaction by default. */
const DEFAULT_BATCH_SIZE = 5_000;

/** Rows tracked by rowid at most by default (2^22 slots of 12 bytes: 48 MiB). */
const DEFAULT_ROW_INDEX_CAPACITY = 3_000_000;

/** Events read from the source at a time: a batch is applied page by page, so only its rows stay in memory, not its events. */
const PAGE_SIZE = 1_000;

/** How many passes over what was appended during the replay, before swapping anyway. */
const CATCH_UP_PASSES = 3;

/**
 * Rebuilds projections from the beginning of the event history into fresh
 * `<table>__rebuild` tables, then swaps them in with one transaction. The
 * live tables keep answering (and the live runners keep feeding them) until
 * the swap; after it, the live runners resume from the rebuilt checkpoints.
 *
 * The history is streamed (`readAll`, pulled one batch at a time): memory
 * stays bounded whatever its length. Rebuilding only writes read-model
 * tables: it sends no command and triggers no side effect.
 */
export class ProjectionRebuilder {
  private running: readonly ProjectionName[] | null = null;
  /** Whether the running rebuild indexed its tables' keys before the end of the replay (its rowid index was full). */
  private keysIndexed = false;

  constructor(
    private readonly store: ProjectionStore,
    private readonly sources: readonly ProjectionSource[],
  ) {}

  /** The rebuilds swapped into the read models' file, newest first, by any process ({@link ProjectionStore.rebuildHistory}). */
  history(limit?: number): RebuildRecord[] {
    return this.store.rebuildHistory(limit);
  }

  /** The projections being rebuilt in this process, or null. */
  get inProgress(): readonly ProjectionName[] | null {
    return this.running;
  }

  /**
   * Rebuilds and resolves when the rebuilt tables are swapped in.
   * @throws RebuildInProgressError, RebuildAbortedError, UnknownProjectionError, or the store's error
   */
  async rebuild(options: RebuildWithCallbackOptions = {}): Promise<RebuildResult> {
    const progress = this.rebuildWithProgress(options);
    for (;;) {
      const next = await progress.next();
      if (next.done === true) return next.value;
      options.onProgress?.(next.value);
    }
  }

  /**
   * Rebuilds, yielding progress records as it goes; the generator's return
   * value is the result. The rebuild advances only while the consumer pulls:
   * a consumer that stops iterating (`break`) abandons it (the partial
   * tables are dropped, the live ones stay).
   */
  async *rebuildWithProgress(options: RebuildOptions = {}): AsyncGenerator<RebuildProgress, RebuildResult, undefined> {
    const definitions = this.store.definitions(options.projections);
    const names = definitions.map((d) => d.name);
    const batchSize = positiveInteger(options.batchSize, 'batchSize', DEFAULT_BATCH_SIZE);
    const interval = options.progressIntervalMs ?? 250;
    const rowIndexCapacity = positiveInteger(options.rowIndexCapacity, 'rowIndexCapacity', DEFAULT_ROW_INDEX_CAPACITY);
    if (this.running !== null) throw new RebuildInProgressError(this.running);
    this.running = names;
    this.keysIndexed = false;
    let swapped = false;
    const started = Date.now();
    const tally = { eventsDone: 0, eventsApplied: 0 };
    try {
      const identities = await Promise.all(this.sources.map(async (s) => ({ source: s.name, storeId: (await s.store.storeIdentity()).id })));
      if (!this.store.coversEveryProjection(definitions)) this.refuseAnotherStore(identities);
      this.store.prepareRebuild(definitions, this.sources.map((s) => s.name));
      // The rebuild tables are new and only this rebuild writes them: a key it never wrote has no row, and one it wrote
      // is where it wrote it (the tables are appended to, unindexed, until the history is in).
      const written = new WrittenKeys(rowIndexCapacity);
      for (const { source, storeId } of identities) this.store.recordSourceIdentity(source, storeId, TableSlot.REBUILD);
      const heads = await Promise.all(this.sources.map((s) => headCommit(s.store)));
      const totalUnits = heads.reduce((a, b) => a + b, 0n);
      let doneUnits = 0n;
      const record = (phase: RebuildProgress['phase'], source: string | null, current: bigint): RebuildProgress => {
        const elapsedMs = Date.now() - started;
        const fractionDone = totalUnits === 0n ? null : Math.min(1, Number(doneUnits + current) / Number(totalUnits));
        const eventsPerSecond = elapsedMs > 0 ? (tally.eventsDone * 1000) / elapsedMs : 0;
        return {
          phase,
          projections: names,
          source,
          eventsDone: tally.eventsDone,
          eventsApplied: tally.eventsApplied,
          fractionDone,
          eventsTotalEstimate: fractionDone !== null && fractionDone > 0 ? Math.round(tally.eventsDone / fractionDone) : null,
          eventsPerSecond,
          elapsedMs,
          etaMs: fractionDone !== null && fractionDone > 0 ? Math.round((elapsedMs * (1 - fractionDone)) / fractionDone) : null,
        };
      };
      yield record(RebuildPhase.STARTED, null, 0n);

      let lastYield = Date.now();
      for (const [index, source] of this.sources.entries()) {
        const head = heads[index] ?? 0n;
        for await (const reached of this.pass(source, definitions, batchSize, tally, written, options.signal)) {
          if (Date.now() - lastYield >= interval) {
            lastYield = Date.now();
            const current = reached === null ? 0n : positionToParts(reached).commit;
            yield record(RebuildPhase.REPLAYING, source.name, current > head ? head : current);
          }
        }
        doneUnits += head;
      }
      // The history is in: index the rebuilt tables now (one sort each), then keep them indexed while catching up.
      this.store.indexRebuild(definitions);
      for (let pass = 0; pass < CATCH_UP_PASSES; pass++) {
        const before = tally.eventsDone;
        for (const source of this.sources) {
          for await (const _ of this.pass(source, definitions, batchSize, tally, written, options.signal)) {
            // nothing to report per batch: the catch-up is short
          }
        }
        yield record(RebuildPhase.CATCHING_UP, null, 0n);
        if (tally.eventsDone === before) break;
      }
      if (options.signal?.aborted === true) throw new RebuildAbortedError(names);
      const finishing = record(RebuildPhase.SWAPPED, null, 0n);
      this.store.swap(definitions, {
        projections: names,
        requestedBy: options.requestedBy ?? null,
        startedAt: started,
        finishedAt: Date.now(),
        eventsDone: finishing.eventsDone,
        eventsApplied: finishing.eventsApplied,
        elapsedMs: finishing.elapsedMs,
      });
      swapped = true;
      const done = record(RebuildPhase.SWAPPED, null, 0n);
      yield done;
      return { projections: names, eventsDone: done.eventsDone, eventsApplied: done.eventsApplied, elapsedMs: done.elapsedMs, eventsPerSecond: done.eventsPerSecond };
    } finally {
      this.running = null;
      if (!swapped) this.store.discardRebuild(definitions);
    }
  }

  /**
   * A rebuild of some projections keeps the others' rows: it cannot move the
   * read models to another store.
   * @throws ReadModelStoreMismatchError when a source's store is not the one the live read models recorded
   */
  private refuseAnotherStore(identities: ReadonlyArray<{ source: string; storeId: string }>): void {
    const recorded = this.store.sourceIdentities();
    const mismatches = identities
      .filter(({ source, storeId }) => recorded.has(source) && recorded.get(source) !== storeId)
      .map(({ source, storeId }) => ({ source, recordedStoreId: recorded.get(source) as string, currentStoreId: storeId }));
    if (mismatches.length > 0) {
      throw new ReadModelStoreMismatchError(this.store.path, mismatches, 'a rebuild of some projections cannot move the read models to another store: rebuild every projection');
    }
  }

  /**
   * Replays the source from the rebuild checkpoint to the current end, in
   * batches of `batchSize` events (read in pages of at most {@link PAGE_SIZE},
   * applied in memory as they come, committed once); yields the position
   * after each batch.
   */
  private async *pass(
    source: ProjectionSource,
    definitions: readonly ProjectionDefinition[],
    batchSize: number,
    tally: { eventsDone: number; eventsApplied: number },
    written: WrittenKeys,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Position | null, void, undefined> {
    const from = this.rebuildResumePoint(source.name, definitions);
    let cursor = from;
    let batch: RebuildBatch | null = null;
    let fresh = 0;
    const commit = (open: RebuildBatch): void => {
      const outcome = open.commit();
      if (outcome.kind === 'checkpointMoved') {
        throw new Error(`The rebuild checkpoint of ${outcome.projection}@${source.name} moved: another rebuild runs on ${this.store.path}`);
      }
      cursor = outcome.position ?? cursor;
      tally.eventsDone += fresh;
      tally.eventsApplied += outcome.applied;
      fresh = 0;
      // Past what the rowid index holds, rows are found by key: the keys must be indexed before the next batch.
      if (written.full && !this.keysIndexed) {
        this.store.indexRebuild(definitions);
        this.keysIndexed = true;
      }
    };
    const events = source.store.readAll({ fromPosition: from ?? 'start', filter: PROJECTED_EVENTS_FILTER });
    for await (const page of pullBatches(events, Math.min(batchSize, PAGE_SIZE))) {
      if (signal?.aborted === true) throw new RebuildAbortedError(definitions.map((d) => d.name));
      if (batch === null) {
        const begun = this.store.beginRebuildBatch({ source: source.name, projections: definitions, after: cursor }, written);
        if ('kind' in begun) {
          throw new Error(`The rebuild checkpoint of ${begun.projection}@${source.name} moved: another rebuild runs on ${this.store.path}`);
        }
        batch = begun;
      }
      batch.add(page);
      fresh += from !== null && cursor === from ? page.filter((e) => e.position !== from).length : page.length;
      if (batch.events >= batchSize) {
        commit(batch);
        batch = null;
        yield cursor;
      }
      await yieldToEventLoop();
    }
    if (batch !== null) {
      commit(batch);
      yield cursor;
    }
  }

  private rebuildResumePoint(source: string, definitions: readonly ProjectionDefinition[]): Position | null {
    let lowest: Position | null = null;
    for (const definition of definitions) {
      const position = this.store.checkpoint(definition.name, source, TableSlot.REBUILD)?.position ?? null;
      if (position === null) return null;
      if (lowest === null || comparePositions(position, lowest) < 0) lowest = position;
    }
    return lowest;
  }
}

/** The commit number of the source's last projected event (0 when none): the denominator of the progress estimate. */
async function headCommit(store: EventStore): Promise<bigint> {
  for await (const event of store.readAll({ direction: Direction.BACKWARDS, fromPosition: 'end', maxCount: 1, filter: PROJECTED_EVENTS_FILTER })) {
    return positionToParts(event.position).commit;
  }
  return 0n;
}
