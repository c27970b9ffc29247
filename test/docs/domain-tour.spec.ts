/**
 * The quick tour of the domain (docs/walkthrough.md, once the README's), as
 * an executable test: if the tour stops being true, this fails.
 */
import type { RunCommand, RunDecision, RunEvent } from '@agent-ledger/domain';
import { createRunDecider, foldEvents, ToolEffect } from '@agent-ledger/domain';

describe('docs/walkthrough.md: a quick tour of the domain', () => {
  it('dead-letters a run whose non-idempotent write was in flight when its worker died', () => {
    const decider = createRunDecider();
    const now = Date.UTC(2026, 0, 1);
    let events: RunEvent[] = [];
    const send = (command: RunCommand): RunDecision => {
      const decision = decider.decide(command, foldEvents(decider, events));
      if (decision.kind === 'accepted') events = [...events, ...decision.events];
      return decision;
    };

    send({ type: 'RequestRun', data: { runId: 'r1', agent: 'demo', input: { task: 'x' }, mode: 'queued', requestedBy: { kind: 'bus', id: 'host' } }, metadata: { now } });
    send({ type: 'ClaimRun', data: { runId: 'r1', owner: 'worker:host:42' }, metadata: { now } });
    const lease = { owner: 'worker:host:42', attempt: 1 };
    send({ type: 'StartStep', data: { runId: 'r1', ...lease, round: 0 }, metadata: { now } });
    send({
      type: 'RecordModelResponse',
      data: { runId: 'r1', ...lease, round: 0, response: { type: 'toolCalls', calls: [{ toolName: 'files.append', arguments: {} }] } },
      metadata: { now },
    });
    // A write starts only once approved: here the agent's configuration pre-approves it (a person could, too).
    send({
      type: 'RecordPreApproval',
      data: { runId: 'r1', ...lease, round: 0, callIndex: 0, toolName: 'files.append', effect: ToolEffect.NON_IDEMPOTENT_WRITE, agent: 'demo' },
      metadata: { now },
    });
    send({
      type: 'StartStep',
      data: { runId: 'r1', ...lease, round: 0, callIndex: 0, tool: { name: 'files.append', effect: ToolEffect.NON_IDEMPOTENT_WRITE } },
      metadata: { now },
    });
    const reaped = send({ type: 'ReapRun', data: { runId: 'r1', reaper: 'reaper:host:7' }, metadata: { now: now + 901_000 } });

    expect(reaped).toMatchObject({ kind: 'accepted', events: [{ type: 'RunFailed', data: { reason: 'WRITE_INTERRUPTED', deadLettered: true } }] });
    expect(events.map((e) => e.type)).toEqual(['RunRequested', 'RunClaimed', 'StepStarted', 'ModelResponded', 'ToolCallPreApproved', 'StepStarted', 'RunFailed']);
    const stale = send({ type: 'RenewLease', data: { runId: 'r1', ...lease }, metadata: { now: now + 902_000 } });
    expect(stale.kind).toBe('leaseLost');
  });
});
