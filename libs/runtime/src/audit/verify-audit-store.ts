import type { AuditChainBreak, StoredAuditRecord } from '@agent-ledger/domain';
import { AuditChainChecker, isAuditEventType, StreamCategory } from '@agent-ledger/domain';
import type { EventStore, RecordedEvent } from '@agent-ledger/event-store';
import { categoryFilter } from '@agent-ledger/event-store';
import { auditStreamName } from '../execution/run-streams';

/** A break in one run's audit chain. */
export interface RunChainBreak extends AuditChainBreak {
  readonly runId: string;
}

/** What verifying every audit chain of a store found. */
export interface AuditStoreVerification {
  /** Runs with at least one audit record. */
  readonly runs: number;
  /** Audit records checked. */
  readonly records: number;
  /** Runs whose chain has at least one break. */
  readonly brokenRuns: readonly string[];
  readonly breaks: readonly RunChainBreak[];
}

/**
 * Verifies the hash chain of every run's audit stream in `store`, streaming
 * `$all` once (memory grows with the number of runs, not of records).
 */
export async function verifyAuditStore(store: EventStore): Promise<AuditStoreVerification> {
  const verification = new ChainVerification();
  for await (const event of store.readAll({ filter: categoryFilter(StreamCategory.AUDIT) })) {
    verification.add(event.streamName.slice(StreamCategory.AUDIT.length + 1), event);
  }
  return verification.result();
}

/** Events read from a run's audit stream at a time (a run's audit is short; this only bounds a pathological one). */
const RUN_AUDIT_PAGE = 1000;

/**
 * Verifies the hash chain of one run's audit stream (`audit-<runId>`), in
 * stream order, with the same answer as {@link verifyAuditStore}: `runs` is
 * 1 when the run has an audit record, 0 otherwise.
 */
export async function verifyRunAuditChain(store: EventStore, runId: string): Promise<AuditStoreVerification> {
  const verification = new ChainVerification();
  let from = 0n;
  for (;;) {
    const page = await store.readStream(auditStreamName(runId), { fromRevision: from, maxCount: RUN_AUDIT_PAGE });
    for (const event of page.events) verification.add(runId, event);
    const last = page.events.at(-1);
    if (last === undefined || page.events.length < RUN_AUDIT_PAGE) break;
    from = last.revision + 1n;
  }
  return verification.result();
}

/** One checker per run, fed audit events in stream order; other event types are skipped. */
class ChainVerification {
  private readonly checkers = new Map<string, AuditChainChecker>();
  private readonly breaks: RunChainBreak[] = [];
  private records = 0;

  add(runId: string, event: RecordedEvent): void {
    if (!isAuditEventType(event.type)) return;
    this.records++;
    let checker = this.checkers.get(runId);
    if (checker === undefined) {
      checker = new AuditChainChecker();
      this.checkers.set(runId, checker);
    }
    // The chain hashes the payload as stored, in the schema version it was written in: never upcast it here.
    for (const found of checker.add(event.data as unknown as StoredAuditRecord)) this.breaks.push({ runId, ...found });
  }

  result(): AuditStoreVerification {
    return { runs: this.checkers.size, records: this.records, brokenRuns: [...new Set(this.breaks.map((b) => b.runId))], breaks: this.breaks };
  }
}
