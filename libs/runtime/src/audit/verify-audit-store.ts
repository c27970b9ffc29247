import type { AuditChainBreak, AuditRecord } from '@agent-ledger/domain';
import { AuditChainChecker, isAuditEventType, StreamCategory } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { categoryFilter } from '@agent-ledger/event-store';

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
  const checkers = new Map<string, AuditChainChecker>();
  const breaks: RunChainBreak[] = [];
  let records = 0;
  for await (const event of store.readAll({ filter: categoryFilter(StreamCategory.AUDIT) })) {
    if (!isAuditEventType(event.type)) continue;
    records++;
    const runId = event.streamName.slice(StreamCategory.AUDIT.length + 1);
    let checker = checkers.get(runId);
    if (checker === undefined) {
      checker = new AuditChainChecker();
      checkers.set(runId, checker);
    }
    for (const found of checker.add(event.data as unknown as AuditRecord)) breaks.push({ runId, ...found });
  }
  return { runs: checkers.size, records, brokenRuns: [...new Set(breaks.map((b) => b.runId))], breaks };
}
