import type { AuditRecord } from '@agent-ledger/domain';
import { AuditChainChecker, isAuditEventType } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import type { AuditStoreVerification, RunChainBreak } from '@agent-ledger/runtime';
import { auditStreamName } from '@agent-ledger/runtime';

/** Events read from a run's audit stream at a time (a run's audit is short; this only bounds a pathological one). */
const PAGE = 1000;

/**
 * Verifies the hash chain of one run's audit stream (`audit-<runId>`), in
 * stream order, with the same checker and the same answer shape as
 * `verifyAuditStore` over the whole store: `runs` is 1 when the run has an
 * audit record, 0 otherwise.
 */
export async function verifyRunAuditChain(store: EventStore, runId: string): Promise<AuditStoreVerification> {
  const stream = auditStreamName(runId);
  const checker = new AuditChainChecker();
  const breaks: RunChainBreak[] = [];
  let records = 0;
  let from = 0n;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: from, maxCount: PAGE });
    for (const event of page.events) {
      if (!isAuditEventType(event.type)) continue;
      records += 1;
      for (const found of checker.add(event.data as unknown as AuditRecord)) breaks.push({ runId, ...found });
    }
    const last = page.events.at(-1);
    if (last === undefined || page.events.length < PAGE) break;
    from = last.revision + 1n;
  }
  return { runs: records > 0 ? 1 : 0, records, brokenRuns: breaks.length > 0 ? [runId] : [], breaks };
}
