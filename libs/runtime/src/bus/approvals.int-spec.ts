import type { AuditRecord, RunEvent } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent, verifyAuditChain } from '@agent-ledger/domain';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime, stateOf } from '../testing/runtime-harness';

const SECOND = 1000;
const readThenAppend = [{ toolCalls: [{ tool: 'test.read', arguments: { value: 'a' } }, { tool: 'test.append', arguments: { value: 'b' } }] }, { final: 'done' }];

const AGENTS: readonly TestAgent[] = [
  // Nothing pre-approved: the append waits for a person; denial ends the run.
  { name: 'careful', script: readThenAppend, approvals: { preApproved: [] } },
  // The same, but a denial is shown to the model, which then answers.
  { name: 'told', script: readThenAppend, approvals: { preApproved: [], onDenial: 'tellModel' } },
  // The operator pre-approves the append.
  { name: 'trusted', script: readThenAppend, approvals: { preApproved: ['test.append'] } },
  // A read-only tool whose code asks approval, pre-approval or not.
  { name: 'guarded', script: [{ toolCalls: [{ tool: 'test.guarded', arguments: { value: 'g' } }] }, { final: 'done' }], tools: ['test.guarded'], approvals: { preApproved: ['test.guarded'] } },
  // Calls a tool it is not offered: refused, never an approval.
  { name: 'overreaching', script: [{ toolCalls: [{ tool: 'test.append', arguments: { value: 'x' } }] }, { final: 'done' }], tools: ['test.read'], approvals: { preApproved: [] } },
  // Asks the user, then writes what it was told (pre-approved).
  { name: 'asker', script: [{ toolCalls: [{ tool: 'test.ask', arguments: { value: 'Which ticket?' } }] }, { toolCalls: [{ tool: 'test.put', arguments: { value: 'p' } }] }, { final: 'done' }], tools: ['test.ask', 'test.put'] },
];

describe.each(['sqlite', 'eventstoredb'] as const)('approvals and input on %s', (store) => {
  let rt: RuntimeHarness;

  beforeEach(async () => {
    rt = await startRuntime({ store, agents: AGENTS, execution: { workers: { concurrency: 2 }, policy: { leaseSeconds: 10 } } });
  });

  afterEach(async () => {
    await rt.close();
  });

  const statusOf = async (runId: string) => stateOf(await rt.runEvents(runId)).status;
  const waitFor = (runId: string, status: string) =>
    eventually(async () => ((await statusOf(runId)) === status ? true : undefined), 10_000, `run ${runId} to be ${status}`);
  const settled = (runId: string) =>
    eventually(async () => {
      const events = await rt.runEvents(runId);
      return events.some(isTerminalRunEvent) ? events : undefined;
    }, 10_000, `run ${runId} to settle`);
  const types = (events: readonly RunEvent[]) => events.map((e) => e.type);
  const auditChainOf = async (runId: string) => (await rt.auditEvents(runId)).map((e) => e.data as unknown as AuditRecord);

  it('a write waits for approval, holding no lease, and executes only after it, once', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    const waiting = await rt.runEvents(runId);
    // Asked before any call of the round executed: not even the read ran.
    expect(rt.behaviour.count('test.read')).toBe(0);
    expect(rt.behaviour.count('test.append')).toBe(0);
    expect(waiting.at(-1)).toMatchObject({
      type: 'ApprovalRequested',
      data: { round: 0, calls: [{ stepId: `${runId}/r0/t1`, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', arguments: { value: 'b' }, requirement: 'write' }] },
    });
    expect(stateOf(waiting).lease).toBeNull();

    const decided = await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice'), reason: 'looks right' });
    expect(decided).toMatchObject({ auditStatement: 'recorded', state: { status: 'QUEUED' } });
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(rt.behaviour.count('test.append')).toBe(1);
    const granted = types(events).indexOf('ApprovalGranted');
    const appendStart = events.findIndex((e) => e.type === 'StepStarted' && e.data.toolName === 'test.append');
    expect(granted).toBeGreaterThan(0);
    expect(appendStart).toBeGreaterThan(granted);
    // Resumed by a worker under a new lease.
    expect(events.filter((e) => e.type === 'RunClaimed')).toHaveLength(2);
    // The decision is in the audit trail, in its hash chain.
    const audit = await rt.auditEvents(runId);
    expect(audit.find((e) => e.type === 'ApprovalDecisionRecorded')).toMatchObject({
      data: { decision: 'approved', decidedBy: busPrincipal('alice'), reason: 'looks right', round: 0, calls: [{ stepId: `${runId}/r0/t1`, toolName: 'test.append' }] },
    });
    expect(verifyAuditChain(await auditChainOf(runId))).toEqual([]);
  });

  it('a denial never executes the write; with endRun the run fails APPROVAL_DENIED, and the denial is audited', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    const { state } = await rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob'), reason: 'not today' });
    expect(state.settlement).toEqual({ status: 'FAILED', reason: 'APPROVAL_DENIED', deadLettered: false });
    expect(rt.behaviour.count('test.append')).toBe(0);
    expect((await rt.auditEvents(runId)).at(-1)).toMatchObject({ type: 'ApprovalDecisionRecorded', data: { decision: 'denied', decidedBy: busPrincipal('bob') } });
  });

  it('a denial with tellModel shows the model the call was denied; the write never executes and the run goes on', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'told', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    await rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob') });
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(rt.behaviour.count('test.append')).toBe(0);
    expect(rt.behaviour.count('test.read')).toBe(1);
    expect(events.some((e) => e.type === 'StepStarted' && e.data.toolName === 'test.append')).toBe(false);
    expect(stateOf(events).steps.get(`${runId}/r0/t1`)).toMatchObject({ denied: true, outcome: 'failed', error: { code: 'APPROVAL_DENIED' } });
  });

  it('a pre-approved write executes without waiting, and the pre-approval is recorded right before its fence', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'trusted', input: 'go' });
    const events = await settled(runId);
    expect(types(events)).not.toContain('ApprovalRequested');
    const pre = events.findIndex((e) => e.type === 'ToolCallPreApproved');
    expect(events[pre]).toMatchObject({ data: { stepId: `${runId}/r0/t1`, toolName: 'test.append', agent: 'trusted' } });
    expect(events[pre + 1]).toMatchObject({ type: 'StepStarted', data: { toolName: 'test.append' } });
    expect(rt.behaviour.count('test.append')).toBe(1);
  });

  it('a tool whose code requires approval waits even when the agent pre-approves it', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'guarded', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    expect((await rt.runEvents(runId)).at(-1)).toMatchObject({ data: { calls: [{ toolName: 'test.guarded', effect: 'READ_ONLY', requirement: 'tool' }] } });
    await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
    await settled(runId);
    expect(rt.behaviour.count('test.guarded')).toBe(1);
  });

  it('a tool that is not offered is refused, never put up for approval', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'overreaching', input: 'go' });
    const events = await settled(runId);
    expect(types(events)).not.toContain('ApprovalRequested');
    expect(events.find((e) => e.type === 'ToolExecuted')).toMatchObject({ data: { outcome: 'failed', error: { code: 'TOOL_NOT_OFFERED' } } });
    expect(rt.behaviour.count('test.append')).toBe(0);
  });

  it('an interactive run answers waiting; after the approval a worker resumes it', async () => {
    const result = await rt.runs.runInteractive({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    expect(result.segment).toBe('waiting');
    expect(result.state.status).toBe('WAITING_FOR_APPROVAL');
    await rt.runs.decideApproval(result.runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
    const events = await settled(result.runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(events.filter((e) => e.type === 'RunClaimed').map((e) => (e.data as { owner: string }).owner.split(':')[0])).toEqual(['interactive', 'worker']);
  });

  it('refuses a second decision and a decision on a run that does not wait, writing nothing', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    await rt.runs.decideApproval(runId, { decision: 'deny', decidedBy: busPrincipal('bob') });
    const before = { run: (await rt.runEvents(runId)).length, audit: (await rt.auditEvents(runId)).length };
    await expect(rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') })).rejects.toMatchObject({ code: 'RUN_ALREADY_SETTLED' });
    expect({ run: (await rt.runEvents(runId)).length, audit: (await rt.auditEvents(runId)).length }).toEqual(before);

    const other = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'told', input: 'go' });
    await waitFor(other, 'WAITING_FOR_APPROVAL');
    await rt.runs.decideApproval(other, { decision: 'approve', decidedBy: busPrincipal('alice') });
    await expect(rt.runs.decideApproval(other, { decision: 'approve', decidedBy: busPrincipal('alice') })).rejects.toMatchObject({ code: expect.stringMatching(/^RUN_NOT_WAITING_FOR_APPROVAL|RUN_ALREADY_SETTLED$/) });
    expect((await rt.auditEvents(other)).filter((e) => e.type === 'ApprovalDecisionRecorded')).toHaveLength(1);
  });

  it('a cancel while waiting settles the run at once; the write never executes', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_APPROVAL');
    const state = await rt.runs.cancel(runId, busPrincipal('carol'));
    expect(state.status).toBe('CANCELLED');
    await expect(rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') })).rejects.toMatchObject({ code: 'RUN_ALREADY_SETTLED' });
    expect(rt.behaviour.count('test.append')).toBe(0);
  });

  it('a tool asks for input: the run waits, then the tool runs again with the input, and a second submission is refused', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'asker', input: 'go' });
    await waitFor(runId, 'WAITING_FOR_INPUT');
    expect((await rt.runEvents(runId)).at(-1)).toMatchObject({ type: 'InputRequested', data: { stepId: `${runId}/r0/t0`, toolName: 'test.ask', prompt: 'Which ticket?' } });
    await rt.runs.submitInput(runId, { input: { ticket: 'T-7' }, submittedBy: busPrincipal('dave') });
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(events.find((e) => e.type === 'ToolExecuted' && e.data.toolName === 'test.ask')).toMatchObject({ data: { outcome: 'succeeded', result: { answer: { ticket: 'T-7' } } } });
    await expect(rt.runs.submitInput(runId, { input: 'again', submittedBy: busPrincipal('dave') })).rejects.toMatchObject({ code: 'RUN_ALREADY_SETTLED' });
    expect(rt.behaviour.count('test.put')).toBe(1);
  });
});

describe('between the approval and the write', () => {
  it('a segment lost mid-write after the approval: the write is not executed twice, and no new approval is asked', async () => {
    const first = await startRuntime({ agents: AGENTS, execution: { workers: { concurrency: 1 }, policy: { leaseSeconds: 10 } } });
    let second: RuntimeHarness | undefined;
    try {
      const runId = await first.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
      await eventually(async () => (stateOf(await first.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 10_000, 'the wait');
      // The worker blocks inside the approved write, and its lease runs out: as if its process hung or died there.
      const gate = first.behaviour.blockNext('test.append');
      await first.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
      await gate.reached;
      second = await startRuntime({ agents: AGENTS, sharedWith: first, execution: { workers: { concurrency: 1 }, policy: { leaseSeconds: 10 } } });
      first.clock.advance(600 * SECOND);
      await eventually(async () => ((await second!.reaper.reapOnce()).failed.length > 0 ? true : undefined), 10_000, 'the reap');
      gate.release();
      const events = await eventually(async () => {
        const all = await second!.runEvents(runId);
        return all.some(isTerminalRunEvent) ? all : undefined;
      }, 10_000, 'the run to settle');
      // A NON_IDEMPOTENT write in flight is never retried: it ran at most once, and no new approval was asked.
      expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ data: expect.objectContaining({ reason: 'WRITE_INTERRUPTED' }) })]);
      expect(first.behaviour.count('test.append')).toBe(1);
      expect(events.filter((e) => e.type === 'ApprovalRequested')).toHaveLength(1);
    } finally {
      await second?.close();
      await first.close();
    }
  });

  it('an approval recorded while no worker runs is kept: a worker started later executes the write once, without asking again', async () => {
    const first = await startRuntime({ agents: AGENTS, execution: { workers: { concurrency: 1 } } });
    let deciding: RuntimeHarness | undefined;
    let worker: RuntimeHarness | undefined;
    try {
      const runId = await first.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: 'careful', input: 'go' });
      await eventually(async () => (stateOf(await first.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 10_000, 'the wait');
      // The workers stop; the approval comes through a "process" that runs none; then a worker "process" starts.
      await first.workers.stop();
      deciding = await startRuntime({ agents: AGENTS, sharedWith: first, execution: { workers: { concurrency: 0 } } });
      await deciding.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
      expect(stateOf(await deciding.runEvents(runId)).status).toBe('QUEUED');
      expect(first.behaviour.count('test.append')).toBe(0);
      worker = await startRuntime({ agents: AGENTS, sharedWith: first, execution: { workers: { concurrency: 1 } } });
      const events = await eventually(async () => {
        const all = await worker!.runEvents(runId);
        return all.some(isTerminalRunEvent) ? all : undefined;
      }, 10_000, 'the run to settle');
      expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
      expect(events.filter((e) => e.type === 'ApprovalRequested')).toHaveLength(1);
      expect(first.behaviour.count('test.append')).toBe(1);
    } finally {
      await worker?.close();
      await deciding?.close();
      await first.close();
    }
  });
});
