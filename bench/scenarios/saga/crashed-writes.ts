/**
 * Writes whose audit never arrives, as a worker process leaves them when it
 * dies between a write's `ToolExecuted` and its `AuditRecorded` (the case
 * the audit-gap saga exists for: nobody is left to fail the run closed).
 *
 * Each command is decided by the domain's run decider (the model step's audit
 * by the audit decider), encoded by the runtime's codec and appended on its
 * own with its exact expected revision, as the segment would: `RunRequested`,
 * `RunClaimed`, the model step (`StepStarted`, `ModelResponded`, its
 * `AuditRecorded`), `ToolCallPreApproved`, the write's `StepStarted` (the
 * fence) and `ToolExecuted`; then nothing.
 */
import { randomUUID } from 'node:crypto';
import type { AuditCommand, AuditState, RunCommand, RunDecider, RunState, StepTool } from '@agent-ledger/domain';
import { auditDecider, stepIdFor } from '@agent-ledger/domain';
import type { CurrentRevision, EventStore } from '@agent-ledger/event-store';
import { ExpectedRevision } from '@agent-ledger/event-store';
import { toEventData } from '@agent-ledger/runtime';
import { auditStreamName, runStreamName } from '@agent-ledger/runtime';

/** A write left without its audit. */
export interface CrashedWrite {
  readonly runId: string;
  readonly stepId: string;
  /** `ToolExecuted.executedAt`: the saga's deadline is this plus the grace period. */
  readonly executedAt: number;
}

const nextRevision = (revision: CurrentRevision) => (revision === ExpectedRevision.NO_STREAM ? 0n : revision + 1n);

/**
 * Appends one run of `agent` whose only tool call, a write of `tool`, executed
 * and was never audited. Times are the system clock's, as the runtime's.
 */
export async function appendCrashedWrite(store: EventStore, decider: RunDecider, agent: string, tool: StepTool, owner: string): Promise<CrashedWrite> {
  const runId = randomUUID();
  const runStream = runStreamName(runId);
  const auditStream = auditStreamName(runId);
  let state: RunState = decider.initialState();
  let runRevision: CurrentRevision = ExpectedRevision.NO_STREAM;
  let auditState: AuditState = auditDecider.initialState();
  let auditRevision: CurrentRevision = ExpectedRevision.NO_STREAM;
  let executedAt: number | null = null;

  const send = async (command: RunCommand) => {
    const decision = decider.decide(command, state);
    if (decision.kind !== 'accepted') throw new Error(`${command.type} of ${runId} was not accepted: ${JSON.stringify(decision)}`);
    for (const event of decision.events) {
      state = decider.evolve(state, event);
      if (event.type === 'ToolExecuted') executedAt = event.data.executedAt;
    }
    await store.append(runStream, toEventData(runStream, nextRevision(runRevision), decision.events, { correlationId: runId }), { expectedRevision: runRevision });
    runRevision = nextRevision(runRevision) + BigInt(decision.events.length - 1);
  };
  const audit = async (command: AuditCommand) => {
    const decision = auditDecider.decide(command, auditState);
    if (decision.kind !== 'accepted') throw new Error(`${command.type} of ${runId} was not accepted: ${JSON.stringify(decision)}`);
    const { events } = decision;
    for (const event of events) auditState = auditDecider.evolve(auditState, event);
    await store.append(auditStream, toEventData(auditStream, nextRevision(auditRevision), events, { correlationId: runId }), { expectedRevision: auditRevision });
    auditRevision = nextRevision(auditRevision) + BigInt(events.length - 1);
  };
  const now = () => ({ now: Date.now() });
  const lease = { owner, attempt: 1 };

  await send({ type: 'RequestRun', data: { runId, agent, input: { task: 'update the ticket' }, mode: 'queued', requestedBy: { kind: 'bus', id: 'bench' }, maxIterations: 3 }, metadata: now() });
  await send({ type: 'ClaimRun', data: { runId, owner }, metadata: now() });
  await send({ type: 'StartStep', data: { runId, ...lease, round: 0 }, metadata: now() });
  await send({
    type: 'RecordModelResponse',
    data: { runId, ...lease, round: 0, response: { type: 'toolCalls', calls: [{ toolName: tool.name, arguments: { key: `ticket:${runId}` } }] } },
    metadata: now(),
  });
  const modelStep = stepIdFor({ runId, round: 0 });
  await audit({ type: 'RecordAudit', data: { runId, stepId: modelStep, kind: 'llm', toolName: null, effect: null, idempotencyKey: null, outcome: 'responded', attempt: 1 }, metadata: now() });
  await send({ type: 'RecordPreApproval', data: { runId, ...lease, round: 0, callIndex: 0, toolName: tool.name, effect: tool.effect, agent }, metadata: now() });
  await send({ type: 'StartStep', data: { runId, ...lease, round: 0, callIndex: 0, tool }, metadata: now() });
  await send({ type: 'RecordToolExecution', data: { runId, ...lease, round: 0, callIndex: 0, outcome: 'succeeded', result: { ok: true } }, metadata: now() });
  // The process dies here: the write's AuditRecorded is never appended.
  if (executedAt === null) throw new Error(`no ToolExecuted was decided for ${runId}`);
  return { runId, stepId: stepIdFor({ runId, round: 0, callIndex: 0 }), executedAt };
}
