import type { StepTool } from '@agent-ledger/domain';
import { isWrite } from '@agent-ledger/domain';
import type { RuntimeHarness } from './runtime-harness';

/**
 * Writes, through the real command processor, the history a segment leaves
 * when its process dies between `ToolExecuted` and `AuditRecorded` of a
 * write: the run is claimed, its model asked for the tool, the write was
 * pre-approved, fenced and executed and its result recorded, and no audit follows.
 *
 * @returns the run id and the write's step id.
 */
export async function writeExecutedWithoutAudit(
  rt: Pick<RuntimeHarness, 'runs' | 'processor' | 'clock'>,
  options: { agent: string; tool: StepTool; runId?: string; settle?: boolean },
): Promise<{ runId: string; stepId: string }> {
  const runId = await rt.runs.enqueue({ requestedBy: { kind: 'bus', id: 'test' }, agent: options.agent, input: 'go', runId: options.runId });
  const owner = 'worker:crashed-host:4242:s1';
  const lease = { owner, attempt: 1 };
  const now = () => ({ now: rt.clock.now() });
  let outcome = await rt.processor.process({ type: 'ClaimRun', data: { runId, owner }, metadata: now() });
  outcome = await rt.processor.process({ type: 'StartStep', data: { runId, ...lease, round: 0 }, metadata: now() }, outcome);
  outcome = await rt.processor.process(
    {
      type: 'RecordModelResponse',
      data: { runId, ...lease, round: 0, response: { type: 'toolCalls', calls: [{ toolName: options.tool.name, arguments: { value: 'x' } }] } },
      metadata: now(),
    },
    outcome,
  );
  // A write is pre-approved with its fence, in one append, as a segment does.
  const tool = isWrite(options.tool.effect) ? { ...options.tool, preApprovedBy: options.agent } : options.tool;
  outcome = await rt.processor.process({ type: 'StartStep', data: { runId, ...lease, round: 0, callIndex: 0, tool }, metadata: now() }, outcome);
  outcome = await rt.processor.process(
    { type: 'RecordToolExecution', data: { runId, ...lease, round: 0, callIndex: 0, outcome: 'succeeded', result: { ok: true } }, metadata: now() },
    outcome,
  );
  if (options.settle === true) {
    await rt.processor.process({ type: 'CompleteRun', data: { runId, ...lease, finalAnswer: 'done' }, metadata: now() }, outcome);
  }
  return { runId, stepId: `${runId}/r0/t0` };
}
