import { randomUUID } from 'node:crypto';
import type { AuditRecorded, RunEvent } from '@agent-ledger/domain';
import { encodeEvent } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { runEvents } from './run-event-fixtures';

/** The contract events of synthetic run number `i`: a mix of completed, retried and failed-closed runs. */
export function syntheticRun(i: number): { runId: string; run: RunEvent[]; audit: AuditRecorded[] } {
  const runId = `syn-${i}`;
  const e = runEvents(runId);
  const W = 'test.put';
  const run: RunEvent[] = [e.requested('queued', 1_000_000 + i), e.claimed(), e.llmStarted(0), e.responded(0, false), e.toolStarted(0, 0, 'test.read', 'READ_ONLY'), e.executed(0, 0, 'test.read', 'READ_ONLY')];
  const audit: AuditRecorded[] = [e.audited(1, 0, undefined, null, null), e.audited(2, 0, 0, 'test.read', 'READ_ONLY')];
  if (i % 7 === 3) {
    run.push(e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE'), e.requeued(1, e.inFlight(0, 1, W, 'IDEMPOTENT_WRITE')), e.claimed(2), e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE', 2));
    run.push(e.executed(0, 1, W, 'IDEMPOTENT_WRITE', 'succeeded', 2), e.llmStarted(1, 2), e.responded(1, true), e.completed(2));
    audit.push(e.audited(3, 0, 1, W, 'IDEMPOTENT_WRITE'), e.audited(4, 1, undefined, null, null));
  } else if (i % 5 === 1) {
    run.push(e.toolStarted(0, 1, 'test.append', 'NON_IDEMPOTENT_WRITE'), e.executed(0, 1, 'test.append', 'NON_IDEMPOTENT_WRITE'));
    run.push(e.failed('AUDIT_PERSISTENCE_FAILED', { failureClass: 'unknown', message: 'audit lost', code: 'AUDIT_PERSISTENCE_FAILED' }));
  } else {
    run.push(e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE'), e.executed(0, 1, W, 'IDEMPOTENT_WRITE'), e.llmStarted(1), e.responded(1, true), e.completed());
    audit.push(e.audited(3, 0, 1, W, 'IDEMPOTENT_WRITE'), e.audited(4, 1, undefined, null, null));
  }
  return { runId, run, audit };
}

/**
 * Appends synthetic runs `from` .. `from + count - 1` (run and audit streams,
 * one append each, many in parallel so the store groups them) and returns the
 * number of events appended.
 */
export async function appendSyntheticHistory(runStore: EventStore, auditStore: EventStore, from: number, count: number): Promise<number> {
  let events = 0;
  const chunk = 400;
  for (let start = from; start < from + count; start += chunk) {
    const appends: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(start + chunk, from + count); i++) {
      const { runId, run, audit } = syntheticRun(i);
      events += run.length + audit.length;
      appends.push(runStore.append(`run-${runId}`, run.map(toEventData), { expectedRevision: ExpectedRevision.NO_STREAM }));
      appends.push(auditStore.append(`audit-${runId}`, audit.map(toEventData), { expectedRevision: ExpectedRevision.NO_STREAM }));
    }
    await Promise.all(appends);
  }
  return events;
}

function toEventData(event: RunEvent | AuditRecorded) {
  return { id: randomUUID(), ...encodeEvent(event) };
}
