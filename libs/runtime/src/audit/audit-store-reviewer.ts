import type { AuditRecordContent } from '@agent-ledger/domain';
import { auditRecordHash, isAuditEventType, StreamCategory } from '@agent-ledger/domain';
import type { EventFilter, EventStore, Position, RecordedEvent } from '@agent-ledger/event-store';
import { categoryFilter, comparePositions, eventTypeFilter } from '@agent-ledger/event-store';
import { auditStreamName, runStreamName } from '../persistence/run-streams';
import type { AuditStoreVerdict } from './audit-store-verdict';
import type { AuditHead } from './audit-verdict-builder';
import { AuditVerdictBuilder, VERDICT_RUN_EVENT_TYPES } from './audit-verdict-builder';

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

/** The default of {@link AuditReviewOptions.limit}. */
export const DEFAULT_VERDICT_LIST_LIMIT = 1000;

/** Audit heads re-read at once when a checkpoint is checked. */
const HEAD_CHECK_CONCURRENCY = 64;
/** Events read from one stream at a time by a per-run verdict. */
const STREAM_PAGE = 1000;

interface Checkpoint {
  readonly builder: AuditVerdictBuilder;
  readonly runPosition: Position | null;
  readonly auditPosition: Position | null;
}

/**
 * The audit's integrity verdict, from the stores: {@link review} verifies
 * every audit chain and matches every executed write of the run store to its
 * `AuditRecorded` in the audit store.
 *
 * The first review is a full pass over both stores. It leaves a checkpoint in
 * this object's memory (never on disk, where it could be edited): the facts
 * read so far, each store's last position, and each run's audit head (the
 * revision, id and hash of the last record of `audit-<runId>`). A later
 * review first re-reads every run's audit head, compares it and recomputes
 * its hash; a head that is gone or changed (a truncated, deleted or
 * rewritten tail, an edited last record) drops the
 * checkpoint and a full pass runs, which reports what changed. Otherwise it
 * reads only the events appended since, in both stores. What it does not see
 * is an edit or a deletion strictly inside a chain, behind its head, or in
 * the run store, made while this process runs: a full pass (`full`, every
 * `GET /audit/chains`, every CLI run, every restart) sees those.
 *
 * Reviews are serialised, and coalesced: requests that arrive while a review
 * runs share the one review queued after it (with the same options), which
 * starts after they arrived. However often it is asked (a console refreshing
 * on every run event), at most one review runs at a time, with at most one
 * waiting.
 */
export class AuditStoreReviewer {
  private checkpoint: Checkpoint | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private waiting: { readonly key: string; readonly verdict: Promise<AuditStoreVerdict> } | null = null;

  constructor(private readonly stores: AuditVerdictStores) {}

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

  private async reviewNow(options: AuditReviewOptions): Promise<AuditStoreVerdict> {
    const limit = options.limit ?? DEFAULT_VERDICT_LIST_LIMIT;
    const started = performance.now();
    let fullBecause: string | null = options.full === true ? 'a full verification was asked' : this.checkpoint === null ? 'no verified checkpoint in this process yet' : null;
    let headsChecked = 0;
    if (fullBecause === null && this.checkpoint !== null) {
      const heads = this.checkpoint.builder.auditHeads();
      headsChecked = heads.length;
      const changed = await firstChangedHead(this.stores.auditStore, heads);
      if (changed !== null) fullBecause = changed;
    }
    const base: Checkpoint = fullBecause === null && this.checkpoint !== null ? this.checkpoint : { builder: new AuditVerdictBuilder(), runPosition: null, auditPosition: null };
    // The checkpoint is dropped before reading: a failed read leaves none, and the next review is a full one.
    this.checkpoint = null;
    const { builder } = base;
    let eventsRead = 0;
    // The run store first: a run settled in what is read here had stored its writes' audits before, so the audit pass sees them.
    let runPosition = base.runPosition;
    for await (const event of readAfter(this.stores.runStore, eventTypeFilter(...VERDICT_RUN_EVENT_TYPES), runPosition)) {
      builder.addRunEvent(event);
      runPosition = event.position;
      eventsRead++;
    }
    let auditPosition = base.auditPosition;
    for await (const event of readAfter(this.stores.auditStore, categoryFilter(StreamCategory.AUDIT), auditPosition)) {
      builder.addAuditEvent(event);
      auditPosition = event.position;
      eventsRead++;
    }
    this.checkpoint = { builder, runPosition, auditPosition };
    return builder.verdict(limit, {
      mode: fullBecause === null ? 'incremental' : 'full',
      fullBecause,
      eventsRead,
      headsChecked,
      durationMs: Math.round(performance.now() - started),
    });
  }
}

/** The verdict on both stores, from a full pass (what `agent-ledger audit review` and `audit verify` run). */
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
  return builder.verdict(options.limit ?? DEFAULT_VERDICT_LIST_LIMIT, { mode: 'full', fullBecause: 'one run is verified whole', eventsRead, headsChecked: 0, durationMs: Math.round(performance.now() - started) });
}

async function* readAfter(store: EventStore, filter: EventFilter, after: Position | null): AsyncIterable<RecordedEvent> {
  // fromPosition is inclusive: the checkpoint's own event was read already.
  for await (const event of store.readAll({ filter, ...(after === null ? {} : { fromPosition: after }) })) {
    if (after !== null && comparePositions(event.position, after) <= 0) continue;
    yield event;
  }
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
