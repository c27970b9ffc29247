import type { AuditRecordContent } from '@agent-ledger/domain';
import { auditRecordHash, isAuditEventType, StreamCategory } from '@agent-ledger/domain';
import type { EventFilter, EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { categoryFilter, comparePositions, eventTypeFilter } from '@agent-ledger/event-store';
import { auditStreamName, runStreamName } from '../persistence/run-streams';
import type { AuditStoreVerdict, AuditVerificationInfo } from './audit-store-verdict';
import type { AuditHead } from './audit-verdict-builder';
import { AuditVerdictBuilder, VERDICT_RUN_EVENT_TYPES } from './audit-verdict-builder';
import type { StoreMark, VerdictCheckpoint, VerdictStoreIdentities } from './audit-verdict-checkpoint-file';
import { AuditVerdictCheckpointFile } from './audit-verdict-checkpoint-file';

/** The two stores a verdict reads (the same store twice when audits are not kept apart). */
export interface AuditVerdictStores {
  readonly runStore: EventStore;
  readonly auditStore: EventStore;
}

/** Options of a review. */
export interface AuditReviewOptions {
  /** Read both stores from their first event, whatever the checkpoint. @default false */
  readonly full?: boolean;
  /** Most rows in each list of the verdict (totals are always complete). @default 1000 */
  readonly limit?: number;
}

/** How an {@link AuditStoreReviewer} keeps its checkpoint and checks it. */
export interface AuditStoreReviewerOptions {
  /**
   * The checkpoint's file (in the service: `audit-verdict.sqlite` in the read
   * models' folder): loaded by the first review of the process, written by
   * every review. Without it the checkpoint lives in this object's memory
   * only, and the first review of each process is a full pass.
   * @default none
   */
  readonly checkpointPath?: string;
  /**
   * Audit heads each incremental review re-reads and re-hashes, taking turns
   * over every run's head from one review to the next (besides the heads of
   * the runs its new events touch).
   * @default 128
   */
  readonly headsPerReview?: number;
}

/** The default of {@link AuditReviewOptions.limit}. */
export const DEFAULT_VERDICT_LIST_LIMIT = 1000;

/** The default of {@link AuditStoreReviewerOptions.headsPerReview}. */
export const DEFAULT_HEADS_PER_REVIEW = 128;

/** Audit heads re-read at once when a checkpoint is checked. */
const HEAD_CHECK_CONCURRENCY = 64;
/** Events read from one stream at a time by a per-run verdict. */
const STREAM_PAGE = 1000;
/** New events an incremental review reads before it checks the heads of the runs they touch and applies them. */
const EVENT_BATCH = 1000;

/** The last event a checkpoint read from a store is no longer where it was read. */
class StoreMarkGone extends Error {}

interface Cached {
  readonly builder: AuditVerdictBuilder;
  readonly version: number;
  readonly limit: number;
  readonly verdict: AuditStoreVerdict;
}

/**
 * The audit's integrity verdict, from the stores: {@link review} verifies
 * every audit chain and matches every executed write of the run store to its
 * `AuditRecorded` in the audit store.
 *
 * A full pass reads both stores from their first event. It leaves a
 * **checkpoint**: the facts read (per run: its writes, its audits, its audit
 * chain checker's state and its audit head, the revision, id and hash of the
 * last record of `audit-<runId>`), the last event read in each store, and,
 * with {@link AuditStoreReviewerOptions.checkpointPath}, a copy in a file, tied
 * to the stores' identities, so that the first review of a new process
 * continues from it. A later review continues from the checkpoint, in time
 * that grows with what is new, not with the store:
 *
 * - it re-reads a fixed number of audit heads ({@link AuditStoreReviewerOptions.headsPerReview}),
 *   continuing where the last review stopped, so that every head is
 *   re-checked over successive reviews (`verification.headRounds` counts the
 *   rounds completed since the full pass);
 * - it reads the events appended since, in both stores (the last event the
 *   checkpoint read must still be where it was: a store that lost it was
 *   restored or truncated), and, before applying them, re-reads the audit
 *   head of each run they touch;
 * - with nothing new, it answers the verdict it computed last (with fresh
 *   `verification` figures).
 *
 * A head that is gone or changed (a truncated, deleted or rewritten tail, an
 * edited last record) drops the checkpoint and a full pass runs, which
 * reports what changed. What it does not see is an edit or a deletion
 * strictly inside a chain, behind its head, or in the run store, nor, until
 * the rotation reaches it, a change of the head of a run nothing new touches:
 * a full pass (`full`, every `GET /audit/chains`, every CLI run) sees those.
 * A full pass never reads the checkpoint file.
 *
 * Reviews are serialised, and coalesced: requests that arrive while a review
 * runs share the one review queued after it (with the same options), which
 * starts after they arrived. However often it is asked (a console refreshing
 * on every run event), at most one review runs at a time, with at most one
 * waiting.
 */
export class AuditStoreReviewer {
  private checkpoint: VerdictCheckpoint | null = null;
  private readonly file: AuditVerdictCheckpointFile | null;
  private readonly headsPerReview: number;
  private identities: VerdictStoreIdentities | null = null;
  private cached: Cached | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private waiting: { readonly key: string; readonly verdict: Promise<AuditStoreVerdict> } | null = null;

  constructor(
    private readonly stores: AuditVerdictStores,
    options: AuditStoreReviewerOptions = {},
  ) {
    this.file = options.checkpointPath === undefined ? null : new AuditVerdictCheckpointFile(options.checkpointPath);
    const heads = options.headsPerReview ?? DEFAULT_HEADS_PER_REVIEW;
    if (!Number.isSafeInteger(heads) || heads < 0) throw new RangeError(`headsPerReview must be an integer >= 0, got ${String(heads)}`);
    this.headsPerReview = heads;
  }

  /** The verdict on both stores as they are now (from a review that starts after this call). */
  review(options: AuditReviewOptions = {}): Promise<AuditStoreVerdict> {
    const key = `${options.full === true}:${options.limit ?? DEFAULT_VERDICT_LIST_LIMIT}`;
    if (this.waiting !== null && this.waiting.key === key) return this.waiting.verdict;
    const verdict: Promise<AuditStoreVerdict> = this.queue.then(() => {
      // Started: later requests queue a review of their own.
      if (this.waiting?.verdict === verdict) this.waiting = null;
      return this.reviewNow(options);
    });
    this.waiting = { key, verdict };
    this.queue = verdict.catch(() => undefined);
    return verdict;
  }

  /**
   * Closes the checkpoint file at once (what was saved last stays in it); a
   * review still running finishes without saving.
   */
  close(): void {
    this.file?.close();
  }

  /** Nest closes it with the application. */
  onModuleDestroy(): void {
    this.close();
  }

  private async reviewNow(options: AuditReviewOptions): Promise<AuditStoreVerdict> {
    const limit = options.limit ?? DEFAULT_VERDICT_LIST_LIMIT;
    const started = performance.now();
    if (options.full === true) return this.fullPass('a full verification was asked', limit, started);
    let from: 'memory' | 'file' = 'memory';
    if (this.checkpoint === null) {
      const refused = await this.loadCheckpoint();
      if (refused !== null) return this.fullPass(refused, limit, started);
      from = 'file';
    }
    const base = this.checkpoint as VerdictCheckpoint;
    // Dropped while the review reads: a failed review leaves none in memory (the file keeps the last one saved).
    this.checkpoint = null;
    const { builder } = base;
    const checked = new Set<string>();
    let headsChecked = 0;
    const changedHead = async (heads: readonly AuditHead[]): Promise<string | null> => {
      for (const head of heads) checked.add(head.runId);
      headsChecked += heads.length;
      return firstChangedHead(this.stores.auditStore, heads);
    };
    const rotation = builder.rotatingHeads(base.cursor, this.headsPerReview);
    const rotated = await changedHead(rotation.heads);
    if (rotated !== null) return this.headChanged(rotated, limit, started);
    /** The heads of the runs `events` touch that no check of this review re-read yet. */
    const touchedHeads = (events: readonly RecordedEvent[], category: string): AuditHead[] => {
      const heads: AuditHead[] = [];
      for (const event of events) {
        const runId = idOf(event.streamName, category);
        if (runId === null || checked.has(runId)) continue;
        checked.add(runId);
        const head = builder.auditHead(runId);
        if (head !== null) heads.push(head);
      }
      return heads;
    };
    let eventsRead = 0;
    let run = base.run;
    let audit = base.audit;
    try {
      // The run store first: a run settled in what is read here had stored its writes' audits before, so the audit pass sees them.
      for await (const events of batches(readAfter(this.stores.runStore, RUN_FILTER, run, 'run store'), EVENT_BATCH)) {
        const changed = await changedHead(touchedHeads(events, StreamCategory.RUN));
        if (changed !== null) return await this.headChanged(changed, limit, started);
        for (const event of events) builder.addRunEvent(event);
        run = markOf(events);
        eventsRead += events.length;
      }
      for await (const events of batches(readAfter(this.stores.auditStore, AUDIT_FILTER, audit, 'audit store'), EVENT_BATCH)) {
        const changed = await changedHead(touchedHeads(events, StreamCategory.AUDIT));
        if (changed !== null) return await this.headChanged(changed, limit, started);
        for (const event of events) builder.addAuditEvent(event);
        audit = markOf(events);
        eventsRead += events.length;
      }
    } catch (error) {
      if (error instanceof StoreMarkGone) return this.headChanged(error.message, limit, started);
      throw error;
    }
    const next: VerdictCheckpoint = { builder, run, audit, cursor: rotation.cursor, rounds: base.rounds + (rotation.wrapped ? 1 : 0) };
    this.checkpoint = next;
    const changedRuns = builder.takeChangedRuns();
    if (this.file !== null) {
      try {
        // Another process wrote the file since: this one continues from it at its next review.
        if (!this.file.saveChanges(next, changedRuns)) this.checkpoint = null;
      } catch {
        // A file that cannot be written keeps what it had: this process goes on from its memory.
      }
    }
    return this.verdictOf(builder, limit, started, { mode: 'incremental', fullBecause: null, eventsRead, headsChecked, headRounds: next.rounds, checkpoint: from });
  }

  /** Loads the checkpoint file into memory; why it cannot be used otherwise. */
  private async loadCheckpoint(): Promise<string | null> {
    if (this.file === null) return 'no verified checkpoint in this process yet';
    const loaded = await this.file.load(await this.storeIdentities());
    if (loaded.refused !== undefined) return loaded.refused;
    this.checkpoint = loaded.checkpoint;
    return null;
  }

  private async headChanged(reason: string, limit: number, started: number): Promise<AuditStoreVerdict> {
    // Set aside first: should the full pass fail, no later review (of this process or the next) continues from it.
    this.file?.invalidate(reason);
    return this.fullPass(reason, limit, started);
  }

  private async fullPass(reason: string, limit: number, started: number): Promise<AuditStoreVerdict> {
    this.checkpoint = null;
    const builder = new AuditVerdictBuilder();
    let eventsRead = 0;
    let run: StoreMark | null = null;
    let audit: StoreMark | null = null;
    // The run store first: a run settled in what is read here had stored its writes' audits before, so the audit pass sees them.
    for await (const event of readAfter(this.stores.runStore, RUN_FILTER, null, 'run store')) {
      builder.addRunEvent(event);
      run = { position: event.position, eventId: event.id };
      eventsRead++;
    }
    for await (const event of readAfter(this.stores.auditStore, AUDIT_FILTER, null, 'audit store')) {
      builder.addAuditEvent(event);
      audit = { position: event.position, eventId: event.id };
      eventsRead++;
    }
    builder.takeChangedRuns();
    const checkpoint: VerdictCheckpoint = { builder, run, audit, cursor: 0, rounds: 0 };
    this.checkpoint = checkpoint;
    if (this.file !== null) {
      try {
        await this.file.saveAll(checkpoint, await this.storeIdentities());
      } catch {
        // A file that cannot be written: this process goes on from its memory; the next one, from what the file had (or a full pass).
      }
    }
    return this.verdictOf(builder, limit, started, { mode: 'full', fullBecause: reason, eventsRead, headsChecked: 0, headRounds: 0, checkpoint: null });
  }

  /** The verdict of `builder`: the one computed last when nothing changed since (with these verification figures). */
  private verdictOf(builder: AuditVerdictBuilder, limit: number, started: number, info: Omit<AuditVerificationInfo, 'durationMs'>): AuditStoreVerdict {
    const cached = this.cached;
    const reuse = cached !== null && cached.builder === builder && cached.version === builder.version && cached.limit === limit;
    const verdict = reuse ? cached.verdict : builder.verdict(limit, { ...info, durationMs: 0 });
    if (!reuse) this.cached = { builder, version: builder.version, limit, verdict };
    return { ...verdict, verification: { ...info, durationMs: Math.round(performance.now() - started) } };
  }

  private async storeIdentities(): Promise<VerdictStoreIdentities> {
    this.identities ??= { runStore: (await this.stores.runStore.storeIdentity()).id, auditStore: (await this.stores.auditStore.storeIdentity()).id };
    return this.identities;
  }
}

const RUN_FILTER = eventTypeFilter(...VERDICT_RUN_EVENT_TYPES);
const AUDIT_FILTER = categoryFilter(StreamCategory.AUDIT);

/** The verdict on both stores, from a full pass (what `agent-ledger audit review` and `audit verify` run): no checkpoint file is read or written. */
export function reviewAuditStores(stores: AuditVerdictStores, options: Omit<AuditReviewOptions, 'full'> = {}): Promise<AuditStoreVerdict> {
  return new AuditStoreReviewer(stores).review({ ...options, full: true });
}

/** The verdict on one run: its run stream and its audit stream, read whole. */
export async function reviewRunAudit(stores: AuditVerdictStores, runId: string, options: Omit<AuditReviewOptions, 'full'> = {}): Promise<AuditStoreVerdict> {
  const started = performance.now();
  const builder = new AuditVerdictBuilder();
  let eventsRead = 0;
  for await (const event of readWholeStream(stores.runStore, runStreamName(runId))) {
    builder.addRunEvent(event);
    eventsRead++;
  }
  for await (const event of readWholeStream(stores.auditStore, auditStreamName(runId))) {
    builder.addAuditEvent(event);
    eventsRead++;
  }
  return builder.verdict(options.limit ?? DEFAULT_VERDICT_LIST_LIMIT, {
    mode: 'full',
    fullBecause: 'one run is verified whole',
    eventsRead,
    headsChecked: 0,
    headRounds: 0,
    checkpoint: null,
    durationMs: Math.round(performance.now() - started),
  });
}

/**
 * The events of `store` after `mark` (every event without one). The read
 * starts at the mark's own event, which must still be there: otherwise
 * {@link StoreMarkGone}.
 */
async function* readAfter(store: EventStore, filter: EventFilter, mark: StoreMark | null, role: string): AsyncIterable<RecordedEvent> {
  if (mark === null) {
    yield* store.readAll({ filter });
    return;
  }
  let first = true;
  // fromPosition is inclusive: the mark's own event was read already.
  for await (const event of store.readAll({ filter, fromPosition: mark.position })) {
    if (first) {
      first = false;
      if (comparePositions(event.position, mark.position) !== 0 || event.id !== mark.eventId) throw new StoreMarkGone(markGone(role, mark));
      continue;
    }
    yield event;
  }
  if (first) throw new StoreMarkGone(markGone(role, mark));
}

function markGone(role: string, mark: StoreMark): string {
  return `the last event the checkpoint read from the ${role} (position ${mark.position}) is no longer there`;
}

async function* batches<T>(items: AsyncIterable<T>, size: number): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function markOf(events: readonly RecordedEvent[]): StoreMark {
  const last = events.at(-1) as RecordedEvent;
  return { position: last.position, eventId: last.id };
}

function idOf(streamName: string, category: string): string | null {
  return streamName.startsWith(`${category}-`) ? streamName.slice(category.length + 1) : null;
}

async function* readWholeStream(store: EventStore, streamName: string): AsyncIterable<RecordedEvent> {
  let from = 0n;
  for (;;) {
    const page = await store.readStream(streamName, { fromRevision: from, maxCount: STREAM_PAGE });
    yield* page.events;
    const last = page.events.at(-1);
    if (last === undefined || page.events.length < STREAM_PAGE) return;
    from = last.revision + 1n;
  }
}

/** Re-reads each audit head; the first one gone or changed, described, or null when every head holds. */
async function firstChangedHead(store: EventStore, heads: readonly AuditHead[]): Promise<string | null> {
  for (let i = 0; i < heads.length; i += HEAD_CHECK_CONCURRENCY) {
    const found = await Promise.all(heads.slice(i, i + HEAD_CHECK_CONCURRENCY).map((head) => headChange(store, head)));
    const changed = found.find((f) => f !== null);
    if (changed !== undefined) return changed;
  }
  return null;
}

async function headChange(store: EventStore, head: AuditHead): Promise<string | null> {
  const page = await store.readStream(auditStreamName(head.runId), { fromRevision: head.revision, maxCount: 1 });
  const event = page.events[0];
  const where = `the audit head of run ${head.runId} (record #${head.revision})`;
  if (event === undefined || event.revision !== head.revision) return `${where} is gone`;
  // The payload as stored, never decoded: the hash covers it in the version it was written in.
  const { hash, ...content } = event.data;
  if (event.id !== head.eventId || (typeof hash === 'string' ? hash : null) !== head.hash) return `${where} changed`;
  // Its content must still give its hash: an edit that kept the hash field is a change too.
  if (isAuditEventType(event.type) && auditRecordHash(content as unknown as AuditRecordContent) !== hash) return `${where} changed`;
  return null;
}
