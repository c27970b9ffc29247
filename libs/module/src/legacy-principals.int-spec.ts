import type { AuditRecordContent, RunEvent } from '@agent-ledger/domain';
import { apiKeyPrincipal, auditRecordHash } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { auditStreamName, reviewAuditStores, reviewRunAudit, runStreamName } from '@agent-ledger/runtime';
import { decisionHistories } from '@agent-ledger/runtime/testing';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import type { FollowedReadModels } from './testing';
import { followReadModels } from './testing';

/*
 * Events recorded before principals were typed (schema version 1) named who
 * decided in free text. Appended raw to a real store, as an older version
 * wrote them, they read back upcast (a name nobody checked: `unverified`,
 * whatever it says), project as such, and their audit chain still verifies,
 * alone and with version 2 records chained after them.
 */

jest.setTimeout(60_000);

const T = Date.now() - 10 * 60_000;

/** An event as an older version appended it: `version` in its metadata (or no metadata at all). */
function raw(type: string, data: Record<string, unknown>, version: 1 | 2 | null = 1) {
  return { id: crypto.randomUUID(), type, data, ...(version === null ? {} : { metadata: { schemaVersion: version } }) };
}

/** A run history the decider built (version 2 shapes, but no type of it changed), as an older version stored it. */
function stored(events: readonly RunEvent[]) {
  return events.map((e) => raw(e.type, e.data as unknown as Record<string, unknown>));
}

/** A version 1 audit record: its hash covers its payload as stored, with the actor as a string. */
function v1AuditRecord(content: Record<string, unknown>) {
  return { ...content, hash: auditRecordHash(content as unknown as AuditRecordContent) };
}

async function append(store: EventStore, stream: string, events: ReturnType<typeof raw>[]) {
  await store.append(stream, events, { expectedRevision: ExpectedRevision.NO_STREAM });
}

describe.each(['sqlite', 'eventstoredb'] as const)('events of schema version 1 (free-text actors) on %s', (kind) => {
  let rt: RuntimeHarness;
  let readModels: FollowedReadModels;

  beforeAll(async () => {
    rt = await startRuntime({ store: kind, agents: [{ name: 'writer', script: [{ final: 'done' }] }] });
    const approvalCalls = [{ stepId: 'granted/r0/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'a'.repeat(64) }];

    // Approved by "alice", recorded in the run and in its audit chain (metadata stating version 1).
    await append(rt.runStore, runStreamName('granted'), [
      ...stored(decisionHistories.waitingForApproval('granted', 'writer', T)),
      raw('ApprovalGranted', { runId: 'granted', round: 0, stepIds: ['granted/r0/t0'], decidedBy: 'alice', reason: 'checked', decidedAt: T }),
    ]);
    const decision = v1AuditRecord({ runId: 'granted', round: 0, sequence: 1, decision: 'approved', calls: approvalCalls, decidedBy: 'alice', reason: 'checked', recordedAt: T, previousHash: null });
    await append(rt.auditStore, auditStreamName('granted'), [raw('ApprovalDecisionRecorded', decision)]);

    // Cancelled by a caller that wrote "key:ops" in the body: it looks like a key, it was never one. No metadata at all.
    await append(rt.runStore, runStreamName('cancelled'), [
      raw('RunRequested', { runId: 'cancelled', agent: 'writer', input: 'x', mode: 'queued', maxIterations: 3, requestedAt: T }, null),
      raw('CancelRequested', { runId: 'cancelled', requestedBy: 'key:ops', reason: null, requestedAt: T }, null),
      raw('RunCancelled', { runId: 'cancelled', reason: 'CANCELLED', requestedBy: 'key:ops', inFlightWrite: null, cancelledAt: T }, null),
    ]);

    // Answered by "dave".
    await append(rt.runStore, runStreamName('answered'), [
      ...stored(decisionHistories.waitingForInput('answered', 'writer', T)),
      raw('InputSubmitted', { runId: 'answered', stepId: 'answered/r0/t0', input: 'T-7', submittedBy: 'dave', submittedAt: T }),
    ]);

    // Requeued by "http-api" (the old default), with the write resolution in the audit chain.
    await append(rt.runStore, runStreamName('requeued'), [
      ...stored(decisionHistories.deadLetteredMidAppend('requeued', 'writer', T)),
      raw('RunRequeuedByOperator', {
        runId: 'requeued', continuationRunId: 'requeued-2', requestedBy: 'http-api', reason: null, inFlightWrite: null, resolution: { outcome: 'notExecuted', note: 'checked' }, requeuedAt: T,
      }),
    ]);
    const resolution = v1AuditRecord({
      runId: 'requeued', stepId: 'requeued/r0/t0', sequence: 1, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', idempotencyKey: 'agent-ledger:requeued/r0/t0',
      outcome: 'notExecuted', note: 'checked', resolvedBy: 'http-api', continuationRunId: 'requeued-2', recordedAt: T, previousHash: null,
    });
    await append(rt.auditStore, auditStreamName('requeued'), [raw('WriteResolutionRecorded', resolution)]);

    // Waits for approval, with a version 1 statement already in its audit chain: the decision made now chains a version 2 record after it.
    await append(rt.runStore, runStreamName('mixed'), stored(decisionHistories.waitingForApproval('mixed', 'writer', T)));
    const earlier = v1AuditRecord({
      runId: 'mixed', round: 0, sequence: 1, decision: 'denied', calls: [{ ...approvalCalls[0], stepId: 'mixed/r0/t0' }], decidedBy: 'bob', reason: null, recordedAt: T, previousHash: null,
    });
    await append(rt.auditStore, auditStreamName('mixed'), [raw('ApprovalDecisionRecorded', earlier)]);
    await rt.runs.decideApproval('mixed', { decision: 'approve', decidedBy: apiKeyPrincipal('ops') });

    readModels = await followReadModels(rt);
    await readModels.caughtUp();
  });

  afterAll(async () => {
    await readModels?.close();
    await rt?.close();
  });

  it('reads each version 1 actor as an unverified principal, whatever the name says, and folds the runs as before', async () => {
    const granted = await rt.runEvents('granted');
    expect(granted.at(-1)).toMatchObject({ type: 'ApprovalGranted', data: { decidedBy: { kind: 'unverified', name: 'alice' } } });
    expect(stateOf(granted).status).toBe('QUEUED');
    const cancelled = await rt.runEvents('cancelled');
    expect(cancelled.slice(1).map((e) => (e.data as { requestedBy?: unknown }).requestedBy)).toEqual([
      { kind: 'unverified', name: 'key:ops' },
      { kind: 'unverified', name: 'key:ops' },
    ]);
    expect(stateOf(cancelled)).toMatchObject({ status: 'CANCELLED', cancelRequestedBy: { kind: 'unverified', name: 'key:ops' } });
    expect((await rt.runEvents('answered')).at(-1)).toMatchObject({ type: 'InputSubmitted', data: { submittedBy: { kind: 'unverified', name: 'dave' } } });
    const requeued = await rt.runEvents('requeued');
    expect(requeued.at(-1)).toMatchObject({ type: 'RunRequeuedByOperator', data: { requestedBy: { kind: 'unverified', name: 'http-api' } } });
    expect(stateOf(requeued).continuedAs).toBe('requeued-2');
  });

  it('decides on a run with a version 1 history: the new decision records the caller, in version 2', async () => {
    const mixed = await rt.runEvents('mixed');
    expect(mixed.at(-1)).toMatchObject({ type: 'ApprovalGranted', data: { decidedBy: { kind: 'apiKey', id: 'ops' } } });
    const audit = await rt.auditEvents('mixed');
    expect(audit.map((e) => [e.type, e.metadata.schemaVersion, (e.data as { decidedBy?: unknown }).decidedBy])).toEqual([
      ['ApprovalDecisionRecorded', 1, 'bob'],
      ['ApprovalDecisionRecorded', 2, { kind: 'apiKey', id: 'ops' }],
    ]);
  });

  it('verifies every audit chain on the records as stored: version 1 alone, and version 2 chained after version 1', async () => {
    for (const runId of ['granted', 'requeued', 'mixed']) {
      expect(await reviewRunAudit(rt, runId)).toMatchObject({ runs: 1, breaks: [] });
    }
    expect(await reviewAuditStores(rt)).toMatchObject({ runs: 3, records: 4, brokenRuns: [], breaks: [] });
  });

  it('projects them with the principal labels: unverified:<name> for version 1, key:<id> for the decision made now', () => {
    expect(readModels.queries.listApprovals({ runId: 'granted' }).approvals).toEqual([expect.objectContaining({ state: 'approved', decidedBy: 'unverified:alice' })]);
    expect(readModels.queries.listApprovals({ runId: 'mixed' }).approvals).toEqual([expect.objectContaining({ state: 'approved', decidedBy: 'key:ops' })]);
    expect(readModels.queries.getRun('cancelled')).toMatchObject({ status: 'CANCELLED', cancelRequestedBy: 'unverified:key:ops' });
    const decisions = readModels.store.dumpTables()['audit_approval_decisions'] as Array<{ run_id: string; decided_by: string }>;
    expect(decisions.map((d) => [d.run_id, d.decided_by]).sort()).toEqual([
      ['granted', 'unverified:alice'],
      ['mixed', 'key:ops'],
      ['mixed', 'unverified:bob'],
    ]);
  });
});
