/**
 * MCP tools through the runtime (the harness: real stores, workers, the
 * segment runner), on the tests' own MCP server: a write waits for approval
 * by its resolved effect; a pre-approved one is fenced, executed once with
 * the step's idempotency key in `_meta`, and audited; a server's lying hint
 * is a conflict recorded with the step; a cancel during a call is recorded
 * as the step's failure, and the server is sent `notifications/cancelled`.
 */
import { busPrincipal, isTerminalRunEvent } from '@agent-ledger/domain';
import type { RunEvent } from '@agent-ledger/domain';
import { eventually, startRuntime, stateOf } from '@agent-ledger/runtime/testing';
import type { RuntimeHarness, TestAgent } from '@agent-ledger/runtime/testing';
import { startMcpServers } from './mcp-servers';
import type { McpServers } from './mcp-servers';
import { CapturingLogger, TEST_SERVER, countFolder, stdioBinding } from './testing';

const once = (tool: string, args: Record<string, string> = {}) => [{ toolCalls: [{ tool, arguments: args }] }, { final: 'done' }];

const AGENTS: TestAgent[] = [
  { name: 'careful', script: once('test.count', { label: 'a' }), tools: ['test.count'], approvals: { preApproved: [] } },
  { name: 'trusting', script: once('test.count', { label: 'b' }), tools: ['test.count'], approvals: { preApproved: ['test.count'] } },
  { name: 'fooled', script: once('test.liar', { line: 'l' }), tools: ['test.liar'], approvals: { preApproved: ['test.liar'] } },
  { name: 'waiting', script: once('test.hang'), tools: ['test.hang'] },
];

describe('MCP tools through the runtime', () => {
  const folder = countFolder();
  let servers: McpServers;
  let rt: RuntimeHarness;

  beforeAll(async () => {
    servers = await startMcpServers(
      [
        stdioBinding(
          'test',
          TEST_SERVER,
          [
            { tool: 'count', effect: 'IDEMPOTENT_WRITE' },
            { tool: 'liar', effect: 'NON_IDEMPOTENT_WRITE' },
            { tool: 'hang', effect: 'READ_ONLY' },
          ],
          { env: { COUNT_FILE: folder.countFile } },
        ),
      ],
      { logger: new CapturingLogger() },
    );
    rt = await startRuntime({ agents: AGENTS, externalTools: servers.tools, execution: { workers: { concurrency: 2 }, policy: { leaseSeconds: 10 } } });
  }, 60_000);

  afterAll(async () => {
    await rt?.close();
    await servers?.close();
    folder.remove();
  });

  const enqueue = (agent: string) => rt.runs.enqueue({ requestedBy: busPrincipal('test'), agent, input: 'go' });
  const settled = (runId: string) =>
    eventually(async () => {
      const events = await rt.runEvents(runId);
      return events.some(isTerminalRunEvent) ? events : undefined;
    }, 20_000, `run ${runId} to settle`);
  const executionsOf = (tool: string) => folder.lines().filter((line) => line.tool === tool);

  it('a run calling an MCP write waits for approval, and nothing reaches the server before it', async () => {
    const runId = await enqueue('careful');
    await eventually(async () => (stateOf(await rt.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 20_000, 'the approval request');
    expect((await rt.runEvents(runId)).at(-1)).toMatchObject({
      type: 'ApprovalRequested',
      data: { calls: [{ stepId: `${runId}/r0/t0`, toolName: 'test.count', effect: 'IDEMPOTENT_WRITE', requirement: 'write' }] },
    });
    expect(executionsOf('count').filter((line) => String(line.key).startsWith(`agent-ledger:${runId}`))).toEqual([]);
    await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(executionsOf('count').filter((line) => line.key === `agent-ledger:${runId}/r0/t0`)).toHaveLength(1);
  });

  it('a pre-approved MCP write is fenced, executed once with the step’s idempotency key in _meta, and audited', async () => {
    const runId = await enqueue('trusting');
    const events = await settled(runId);
    const stepId = `${runId}/r0/t0`;
    const types = events.map((event) => event.type);
    const started = events.findIndex((event) => event.type === 'StepStarted' && event.data.stepId === stepId);
    expect(types.slice(started - 1, started + 2)).toEqual(['ToolCallPreApproved', 'StepStarted', 'ToolExecuted']);
    const fence = events[started] as Extract<RunEvent, { type: 'StepStarted' }>;
    expect(fence.data).toMatchObject({ stepId, toolName: 'test.count', effect: 'IDEMPOTENT_WRITE', idempotencyKey: `agent-ledger:${stepId}` });
    const executed = events.find((event): event is Extract<RunEvent, { type: 'ToolExecuted' }> => event.type === 'ToolExecuted');
    expect(executed?.data).toMatchObject({
      outcome: 'succeeded',
      result: { structuredContent: { key: `agent-ledger:${stepId}`, executions: 1, meta: { 'agent-ledger/idempotency-key': `agent-ledger:${stepId}` } }, isError: false },
    });
    expect(executionsOf('count').filter((line) => line.key === `agent-ledger:${stepId}`)).toHaveLength(1);
    const audit = await rt.auditEvents(runId);
    expect(audit.filter((event) => event.type === 'AuditRecorded').map((event) => event.data)).toEqual(
      expect.arrayContaining([expect.objectContaining({ stepId, toolName: 'test.count', effect: 'IDEMPOTENT_WRITE' })]),
    );
  });

  it('a server whose hints say read-only for a tool declared a write: the declared write is used, the conflict recorded with the step', async () => {
    const runId = await enqueue('fooled');
    const events = await settled(runId);
    const at = events.findIndex((event) => event.type === 'ToolEffectConflictRecorded');
    expect(events[at]).toMatchObject({ data: { toolName: 'test.liar', server: 'test', tool: 'liar', declared: 'NON_IDEMPOTENT_WRITE', hinted: 'READ_ONLY', effect: 'NON_IDEMPOTENT_WRITE' } });
    expect(events[at + 1]).toMatchObject({ type: 'StepStarted', data: { toolName: 'test.liar', effect: 'NON_IDEMPOTENT_WRITE' } });
    expect(executionsOf('liar')).toHaveLength(1);
  });

  it('a cancel during a call is recorded as the step’s failure, and the server is sent notifications/cancelled', async () => {
    const runId = await enqueue('waiting');
    const key = `agent-ledger:${runId}/r0/t0`;
    await eventually(() => (executionsOf('hang').some((line) => line.key === key && line.event === 'started') ? true : undefined), 20_000, 'the call to reach the server');
    await rt.runs.cancel(runId, busPrincipal('alice'));
    const events = await settled(runId);
    expect(events.find((event) => event.type === 'ToolExecuted')).toMatchObject({
      data: { toolName: 'test.hang', outcome: 'failed', error: { code: 'TOOL_ABORTED', failureClass: 'unknown', message: 'Tool test.hang was aborted: The run was cancelled' } },
    });
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCancelled' })]);
    const cancelled = await eventually(() => executionsOf('hang').find((line) => line.key === key && line.event === 'cancelled'), 10_000, 'the server to see the cancel');
    expect(cancelled.reason).toMatch(/RunCancelledSignal: The run was cancelled/);
  });
});
