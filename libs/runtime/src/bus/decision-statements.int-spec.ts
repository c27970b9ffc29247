import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord, JsonValue, RunEvent } from '@agent-ledger/domain';
import { busPrincipal, canonicalJson, isTerminalRunEvent, principalLabel, verifyAuditChain } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime, stateOf } from '../testing/runtime-harness';

const SECOND = 1000;
const readThenAppend = [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'a' } }, { tool: 'test.append', arguments: { value: 'b' } }] }, { final: 'done' }];

const AGENTS: readonly TestAgent[] = [
  { name: 'careful', script: readThenAppend, approvals: { preApproved: [] } },
  { name: 'told', script: readThenAppend, approvals: { preApproved: [], onDenial: 'tellModel' } },
  { name: 'asker', script: [{ toolCalls: [{ tool: 'test.ask', arguments: { value: 'Which ticket?' } }] }, { final: 'done' }], tools: ['test.ask'] },
  { name: 'appender', script: readThenAppend },
];

const STATEMENT_TYPES = new Set(['ApprovalDecisionRecorded', 'WriteResolutionRecorded', 'InputAnswerRecorded']);
const statementsOf = (audit: readonly RecordedEvent[]) => audit.filter((e) => STATEMENT_TYPES.has(e.type));
const sha256 = (value: JsonValue) => createHash('sha256').update(canonicalJson(value)).digest('hex');

/** The settled outcomes of concurrent calls: what each one got. */
async function race<T>(calls: readonly (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(calls.map((call) => call()));
}
const codeOf = (result: PromiseSettledResult<unknown>) => (result.status === 'rejected' ? (result.reason as { code?: string }).code : undefined);

describe.each(['sqlite', 'eventstoredb'] as const)('decision statements in the audit chain on %s', (store) => {
  let rt: RuntimeHarness;

  beforeEach(async () => {
    rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 1 }, policy: { leaseSeconds: 10 } } });
  });

  afterEach(async () => {
    await rt.close();
  });

  const statusOf = async (runId: string) => stateOf(await rt.runEvents(runId)).status;
  const waitFor = (runId: string, status: string) =>
    eventually(async () => ((await statusOf(runId)) === status ? true : undefined), 10_000, `run ${runId} to be ${status}`);
  const chainOf = async (runId: string) => (await rt.auditEvents(runId)).map((e) => e.data as unknown as AuditRecord);

  it('concurrent approvals, denials and cancels: one decision takes effect, one statement records it, the others are refused and record nothing', async () => {
    for (let trial = 0; trial < 4; trial++) {
      const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: trial % 2 === 0 ? 'careful' : 'told', input: `go ${trial}` });
      await waitFor(runId, 'WAITING_FOR_APPROVAL');
      const withCancels = trial >= 2;
      const calls: (() => Promise<unknown>)[] = [
        () => rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice'), reason: 'a' }),
        () => rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob'), reason: 'b' }),
        () => rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('carol'), reason: 'c' }),
        () => rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('dave'), reason: 'd' }),
        ...(withCancels ? [() => rt.runs.cancel(runId, busPrincipal('erin')), () => rt.runs.cancel(runId, busPrincipal('frank'))] : []),
      ];
      const results = await race(calls);
      const decisions = results.slice(0, 4);

      const events = await rt.runEvents(runId);
      const decided = events.filter((e) => e.type === 'ApprovalGranted' || e.type === 'ApprovalDenied');
      expect(decided.length).toBeLessThanOrEqual(1);
      // Every decision the run refused was refused to its caller, and exactly the winner succeeded.
      expect(decisions.filter((r) => r.status === 'fulfilled')).toHaveLength(decided.length);
      for (const refused of decisions.filter((r) => r.status === 'rejected')) {
        expect(codeOf(refused)).toMatch(/^(RUN_NOT_WAITING_FOR_APPROVAL|RUN_ALREADY_SETTLED)$/);
      }
      const statements = statementsOf(await rt.auditEvents(runId));
      if (decided.length === 0) {
        // A cancel won: no decision took effect, and none is stated.
        expect(withCancels).toBe(true);
        expect(statements).toHaveLength(0);
      } else {
        const winner = decided[0] as Extract<RunEvent, { type: 'ApprovalGranted' | 'ApprovalDenied' }>;
        expect(statements).toHaveLength(1);
        expect(statements[0]).toMatchObject({
          type: 'ApprovalDecisionRecorded',
          data: { round: winner.data.round, decision: winner.type === 'ApprovalGranted' ? 'approved' : 'denied', decidedBy: winner.data.decidedBy, reason: winner.data.reason },
        });
      }
      expect(verifyAuditChain(await chainOf(runId))).toEqual([]);
      await eventually(async () => ((await rt.runEvents(runId)).some(isTerminalRunEvent) ? true : undefined), 10_000, `run ${runId} to settle`);
      // What the run did later (the approved write's audit, the model's answer) adds no statement.
      expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(decided.length);
    }
  });

  it('concurrent input answers: one answer is given to the tool and stated once, the others are refused', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'asker', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_INPUT');
    const inputs: JsonValue[] = [{ ticket: 'T-1' }, { ticket: 'T-2' }, 'T-3', ['T', 4]];
    const results = await race(inputs.map((input, i) => () => rt.runs.submitInput(runId, { input, submittedBy: busPrincipal(`person-${i}`) })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const refused of results.filter((r) => r.status === 'rejected')) expect(codeOf(refused)).toMatch(/^(RUN_NOT_WAITING_FOR_INPUT|RUN_ALREADY_SETTLED)$/);

    const submitted = (await rt.runEvents(runId)).filter((e) => e.type === 'InputSubmitted');
    expect(submitted).toHaveLength(1);
    const winner = submitted[0] as Extract<RunEvent, { type: 'InputSubmitted' }>;
    const statements = statementsOf(await rt.auditEvents(runId));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({
      type: 'InputAnswerRecorded',
      data: { runId, stepId: winner.data.stepId, inputHash: sha256(winner.data.input), answeredBy: winner.data.submittedBy },
    });
    const events = await eventually(async () => {
      const all = await rt.runEvents(runId);
      return all.some(isTerminalRunEvent) ? all : undefined;
    }, 10_000, 'the run to settle');
    expect(events.find((e) => e.type === 'ToolExecuted')).toMatchObject({ data: { result: { answer: winner.data.input } } });
    expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(1);
    expect(verifyAuditChain(await chainOf(runId))).toEqual([]);
  });

  it('concurrent requeues with a resolution: one requeue takes effect and its resolution is stated once; a different one is refused', async () => {
    const gate = rt.behaviour.blockNext('test.append');
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go' });
    await gate.reached;
    rt.clock.advance(121 * SECOND);
    await eventually(async () => ((await rt.reaper.reapOnce()).failed.length > 0 ? true : undefined), 5000, 'the reap');
    gate.release();
    await eventually(() => (rt.metrics.get('leaseLost') === 1 ? true : undefined), 5000, 'the stale segment to stop');

    const outcomes = ['executed', 'notExecuted', 'executed', 'notExecuted'] as const;
    const results = await race(outcomes.map((outcome, i) => () => rt.runs.requeue(runId, { requestedBy: busPrincipal(`op-${i}`), resolution: { outcome, note: `checked by op-${i}` } })));

    const requeued = (await rt.runEvents(runId)).filter((e) => e.type === 'RunRequeuedByOperator');
    expect(requeued).toHaveLength(1);
    const winner = requeued[0] as Extract<RunEvent, { type: 'RunRequeuedByOperator' }>;
    const statements = statementsOf(await rt.auditEvents(runId));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatchObject({
      type: 'WriteResolutionRecorded',
      data: { outcome: winner.data.resolution?.outcome, note: winner.data.resolution?.note, resolvedBy: winner.data.requestedBy, continuationRunId: winner.data.continuationRunId },
    });
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') {
        // The winner, or a requeue that completed the winner's (the same statement): both name the one continuation.
        expect(result.value.continuationRunId).toBe(winner.data.continuationRunId);
        expect(outcomes[i]).toBe(winner.data.resolution?.outcome);
      } else {
        expect(codeOf(result)).toBe('RUN_ALREADY_REQUEUED');
      }
    });
    expect(results.some((r, i) => r.status === 'fulfilled' && principalLabel(busPrincipal(`op-${i}`)) === principalLabel(winner.data.requestedBy))).toBe(true);
    expect(verifyAuditChain(await chainOf(runId))).toEqual([]);
  });
});

describe.each(['sqlite', 'eventstoredb'] as const)('a decision whose statement could not be stored at once, on %s', (store) => {
  let rt: RuntimeHarness;

  beforeEach(async () => {
    rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 1 }, policy: { leaseSeconds: 10 } } });
  });

  afterEach(async () => {
    await rt.close();
  });

  const waitFor = (runId: string, status: string) =>
    eventually(async () => (stateOf(await rt.runEvents(runId)).status === status ? true : undefined), 10_000, `run ${runId} to be ${status}`);
  const settled = (runId: string) =>
    eventually(async () => {
      const events = await rt.runEvents(runId);
      return events.some(isTerminalRunEvent) ? events : undefined;
    }, 10_000, `run ${runId} to settle`);

  it('takes effect, says so, and the resuming segment records the statement late, once, before the approved call executes', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    await rt.workers.stop();
    const undo = rt.breakAuditStore();
    let answer;
    try {
      answer = await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
    } finally {
      undo();
    }
    expect(answer).toMatchObject({ auditStatement: 'pending', state: { status: 'QUEUED' } });
    expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(0);
    expect(rt.metrics.labelled('decisionStatements')).toEqual([expect.objectContaining({ labels: { kind: 'approval', outcome: 'deferred' }, value: 1 })]);

    rt.workers.start();
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(rt.behaviour.count('test.append')).toBe(1);
    const audit = await rt.auditEvents(runId);
    expect(statementsOf(audit)).toEqual([expect.objectContaining({ type: 'ApprovalDecisionRecorded', data: expect.objectContaining({ decision: 'approved', decidedBy: busPrincipal('alice') }) })]);
    // In the chain before the audit of the write it allowed: stored before the write executed.
    const statementAt = audit.findIndex((e) => e.type === 'ApprovalDecisionRecorded');
    const writeAuditAt = audit.findIndex((e) => e.type === 'AuditRecorded' && (e.data as { toolName?: string }).toolName === 'test.append');
    expect(statementAt).toBeLessThan(writeAuditAt);
    expect(rt.metrics.labelled('decisionStatements')).toEqual(
      expect.arrayContaining([expect.objectContaining({ labels: { kind: 'approval', outcome: 'late' }, value: 1 })]),
    );
    expect(verifyAuditChain(audit.map((e) => e.data as unknown as AuditRecord))).toEqual([]);
  });

  it('fails the run closed when the late statement cannot be stored either: the approved call never executes', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    await rt.workers.stop();
    const undo = rt.breakAuditStore();
    try {
      const answer = await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
      expect(answer.auditStatement).toBe('pending');
      rt.workers.start();
      const events = await settled(runId);
      expect(events.filter(isTerminalRunEvent)).toEqual([
        expect.objectContaining({ type: 'RunFailed', data: expect.objectContaining({ reason: 'AUDIT_PERSISTENCE_FAILED', failure: expect.objectContaining({ code: 'DECISION_STATEMENT_NOT_STORED' }) }) }),
      ]);
      expect(rt.behaviour.count('test.append')).toBe(0);
      expect(rt.behaviour.count('test.read')).toBe(0);
    } finally {
      undo();
    }
    expect(rt.metrics.labelled('decisionStatements')).toEqual(expect.arrayContaining([expect.objectContaining({ labels: { kind: 'approval', outcome: 'failClosed' } })]));
  });

  it('an input answer whose statement is late: the tool gets the input only after it is stored', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'asker', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_INPUT');
    await rt.workers.stop();
    const undo = rt.breakAuditStore();
    let answer;
    try {
      answer = await rt.runs.submitInput(runId, { input: 'T-9', submittedBy: busPrincipal('dave') });
    } finally {
      undo();
    }
    expect(answer.auditStatement).toBe('pending');
    rt.workers.start();
    await settled(runId);
    const audit = await rt.auditEvents(runId);
    expect(statementsOf(audit)).toEqual([expect.objectContaining({ type: 'InputAnswerRecorded', data: expect.objectContaining({ inputHash: sha256('T-9'), answeredBy: busPrincipal('dave') }) })]);
    const statementAt = audit.findIndex((e) => e.type === 'InputAnswerRecorded');
    const toolAuditAt = audit.findIndex((e) => e.type === 'AuditRecorded' && (e.data as { toolName?: string }).toolName === 'test.ask');
    expect(statementAt).toBeLessThan(toolAuditAt);
  });

  it('a denial that ends the run, stated late: the reconciler records it once, and a second check records nothing', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    const undo = rt.breakAuditStore();
    let answer;
    try {
      answer = await rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob'), reason: 'no' });
    } finally {
      undo();
    }
    expect(answer.auditStatement).toBe('pending');
    expect(answer.state.status).toBe('FAILED');
    expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(0);
    // Past the grace period, the saga finds the decision without its statement and records it.
    rt.clock.advance(120 * SECOND);
    await eventually(async () => ((await rt.saga.checkDeadlines()).statements.length > 0 ? true : undefined), 10_000, 'the late statement');
    expect(statementsOf(await rt.auditEvents(runId))).toEqual([expect.objectContaining({ type: 'ApprovalDecisionRecorded', data: expect.objectContaining({ decision: 'denied' }) })]);
    rt.clock.advance(120 * SECOND);
    await rt.saga.checkDeadlines();
    expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(1);
  });

  it('a requeue whose statement cannot be stored is recorded on the run but not continued; a repeat stores it once and starts the continuation', async () => {
    const gate = rt.behaviour.blockNext('test.append');
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'appender', input: 'go' });
    await gate.reached;
    rt.clock.advance(121 * SECOND);
    await eventually(async () => ((await rt.reaper.reapOnce()).failed.length > 0 ? true : undefined), 5000, 'the reap');
    gate.release();
    await eventually(() => (rt.metrics.get('leaseLost') === 1 ? true : undefined), 5000, 'the stale segment to stop');

    const resolution = { outcome: 'notExecuted', note: 'nothing in the target' } as const;
    const undo = rt.breakAuditStore();
    let refused: unknown;
    try {
      refused = await rt.runs.requeue(runId, { requestedBy: busPrincipal('alice'), resolution }).catch((error: unknown) => error);
    } finally {
      undo();
    }
    const requeued = (await rt.runEvents(runId)).filter((e) => e.type === 'RunRequeuedByOperator');
    expect(requeued).toHaveLength(1);
    const continuationRunId = (requeued[0] as Extract<RunEvent, { type: 'RunRequeuedByOperator' }>).data.continuationRunId;
    expect(refused).toMatchObject({ code: 'AUDIT_STATEMENT_NOT_STORED', runId, continuationRunId });
    // Nothing the requeue allows happened: no continuation, no statement.
    expect(await rt.runEvents(continuationRunId)).toEqual([]);
    expect(statementsOf(await rt.auditEvents(runId))).toHaveLength(0);

    // A repeat stating another resolution is refused; one that states none (or the same) completes it.
    await expect(rt.runs.requeue(runId, { requestedBy: busPrincipal('bob'), resolution: { outcome: 'executed', note: 'it is there' } })).rejects.toMatchObject({ code: 'RUN_ALREADY_REQUEUED' });
    const completed = await rt.runs.requeue(runId, { requestedBy: busPrincipal('bob') });
    expect(completed.continuationRunId).toBe(continuationRunId);
    expect(statementsOf(await rt.auditEvents(runId))).toEqual([
      expect.objectContaining({ type: 'WriteResolutionRecorded', data: expect.objectContaining({ outcome: 'notExecuted', resolvedBy: busPrincipal('alice'), continuationRunId }) }),
    ]);
    expect(rt.metrics.labelled('decisionStatements')).toEqual(
      expect.arrayContaining([expect.objectContaining({ labels: { kind: 'resolution', outcome: 'deferred' } }), expect.objectContaining({ labels: { kind: 'resolution', outcome: 'late' } })]),
    );
    const continued = await settled(continuationRunId);
    expect(continued.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    // notExecuted: the continuation executes the write (the blocked call of the reaped segment never completed).
    expect(rt.behaviour.count('test.append')).toBe(2);
  });
});

describe('the reconciler of late statements', () => {
  it('keeps a decision without its statement across a restart, and stores the statement once', async () => {
    const sagaDir = mkdtempSync(join(tmpdir(), 'agent-ledger-saga-'));
    const first = await startRuntime({ agents: AGENTS, sagaDir, execution: { workers: { concurrency: 1 } } });
    let second: RuntimeHarness | undefined;
    try {
      const runId = await first.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
      await eventually(async () => (stateOf(await first.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 10_000, 'the wait');
      const undo = first.breakAuditStore();
      let answer;
      try {
        answer = await first.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob') });
      } finally {
        undo();
      }
      expect(answer).toMatchObject({ auditStatement: 'pending', state: { status: 'FAILED' } });
      await eventually(() => (first.saga.pendingStatementCount() === 1 ? true : undefined), 10_000, 'the saga to see the decision');
      // The process stops before the grace period ends: the decision waits in the saga's ledger on disk.
      await first.saga.stop();
      second = await startRuntime({ agents: AGENTS, sharedWith: first, sagaDir, execution: { workers: { concurrency: 0 } } });
      expect(second.saga.pendingStatementCount()).toBe(1);
      second.clock.advance(120 * SECOND);
      expect((await second.saga.checkDeadlines()).statements).toEqual([`${runId} approval:0`]);
      expect(statementsOf(await second.auditEvents(runId))).toEqual([expect.objectContaining({ type: 'ApprovalDecisionRecorded', data: expect.objectContaining({ decision: 'denied' }) })]);
      expect(second.saga.pendingStatementCount()).toBe(0);
    } finally {
      await second?.close();
      await first.close();
      rmSync(sagaDir, { recursive: true, force: true });
    }
  });
});
