/**
 * The MCP writes' checks speak when the MCP path breaks a promise: each case
 * breaks one on a synthetic history (the store's events, the server's
 * executions with the pid of the process that sent them).
 */
import type { HistoryEvent } from './history';
import type { SubmittedRun } from './invariants';
import type { McpExecution, McpKill } from './mcp-workload';
import { checkMcpWrites, mcpLedgerLines, runOfStep, stepOfKey } from './mcp-workload';

const R = 'mcp-q0';
const owner1 = 'worker:h:101:s1';
const owner2 = 'worker:h:202:s1';
const count0 = `${R}/r0/t0`;
const append1 = `${R}/r1/t0`;

function stream(...events: Array<[string, Record<string, unknown>]>): HistoryEvent[] {
  return events.map(([type, data], revision) => ({ type, revision, position: `${revision}:${revision}`, data: { runId: R, ...data } }));
}
const started = (stepId: string, tool: string, effect: string, owner: string, attempt: number): [string, Record<string, unknown>] => [
  'StepStarted',
  { stepId, kind: 'tool', toolName: tool, effect, owner, attempt },
];
// As the store has it: no owner, the attempt (its claim names the owner).
const executed = (stepId: string, tool: string, effect: string, attempt: number): [string, Record<string, unknown>] => [
  'ToolExecuted',
  { stepId, toolName: tool, effect, outcome: 'succeeded', attempt, error: null },
];
const execution = (tool: string, stepId: string, clientPid: number | null, serverPid = (clientPid ?? 0) + 1): McpExecution => ({ tool, key: `agent-ledger:${stepId}`, serverPid, clientPid });

/**
 * A queued run of `mmixer`: its count interrupted after the server executed it (the process killed), retried by
 * another process with the same key and recorded; then its append fenced, executed, its process killed before the
 * record: dead-lettered.
 */
function history(): { runs: Map<string, HistoryEvent[]>; executions: McpExecution[] } {
  const events = stream(
    ['RunRequested', { mode: 'queued' }],
    ['RunClaimed', { owner: owner1, attempt: 1 }],
    started(count0, 'm.count', 'IDEMPOTENT_WRITE', owner1, 1),
    ['RunRequeued', { cause: 'leaseExpired', inFlightWrite: { stepId: count0, attempt: 1 } }],
    ['RunClaimed', { owner: owner2, attempt: 2 }],
    started(count0, 'm.count', 'IDEMPOTENT_WRITE', owner2, 2),
    executed(count0, 'm.count', 'IDEMPOTENT_WRITE', 2),
    started(append1, 'm.append', 'NON_IDEMPOTENT_WRITE', owner2, 2),
    ['RunFailed', { reason: 'WRITE_INTERRUPTED' }],
  );
  return { runs: new Map([[R, events]]), executions: [execution('count', count0, 101), execution('count', count0, 202), execution('append', append1, 202)] };
}
const submitted: SubmittedRun[] = [{ runId: R, agent: 'mmixer', mode: 'queued' }];
const invariantsOf = (runs: Map<string, HistoryEvent[]>, executions: McpExecution[], kills: McpKill[] = [], runsSubmitted = submitted) =>
  checkMcpWrites(executions, [], kills, runs, runsSubmitted).violations.map((v) => v.invariant);

describe('the MCP writes checks', () => {
  it('find nothing wrong in a count retried with its key and an append dead-lettered, and count them', () => {
    const { runs, executions } = history();
    const kills: McpKill[] = [{ serverPid: 203, clientPid: 202, tool: 'append', key: `agent-ledger:${append1}` }];
    const { violations, figures } = checkMcpWrites(executions, [], kills, runs, submitted);
    expect(violations).toEqual([]);
    expect(figures).toEqual({ executions: { count: 2, append: 1 }, countStepsRetried: 1, countStepsExecutedAgain: 1, appendsInFlightDeadLettered: 1, appendsExecutedUnrecorded: 1, clientsKilledMidCall: { append: 1 } });
  });

  it('read the executions as ledger lines at the attempt of the fence their process made', () => {
    const { runs, executions } = history();
    expect(mcpLedgerLines([...executions, execution('count', count0, 999), { tool: 'count', key: null, serverPid: 5, clientPid: 1 }], runs)).toEqual([
      expect.objectContaining({ tool: 'm.count', runId: R, stepId: count0, attempt: 1, pid: 101 }),
      expect.objectContaining({ tool: 'm.count', runId: R, stepId: count0, attempt: 2, pid: 202 }),
      expect.objectContaining({ tool: 'm.append', runId: R, stepId: append1, attempt: 2, pid: 202 }),
      expect.objectContaining({ tool: 'm.count', stepId: count0, attempt: 0, pid: 999 }),
    ]);
    expect([stepOfKey(`agent-ledger:${count0}`), stepOfKey('other:x'), stepOfKey(null), runOfStep(append1)]).toEqual([count0, null, null, R]);
    // One process fenced the step three times (it claimed the run again) and sent it twice: the last line with the last fence.
    const again = new Map([[R, stream(started(count0, 'm.count', 'IDEMPOTENT_WRITE', owner1, 1), started(count0, 'm.count', 'IDEMPOTENT_WRITE', owner1, 2), started(count0, 'm.count', 'IDEMPOTENT_WRITE', owner1, 3))]]);
    expect(mcpLedgerLines([execution('count', count0, 101), execution('count', count0, 101)], again).map((l) => l.attempt)).toEqual([2, 3]);
  });

  it('4: an append executed twice with one key, or in flight and its run not dead-lettered', () => {
    const { runs, executions } = history();
    expect(invariantsOf(runs, [...executions, execution('append', append1, 202)])).toEqual([4]);
    const events = runs.get(R) as HistoryEvent[];
    const completed = [...events.slice(0, -1), { ...(events.at(-1) as HistoryEvent), type: 'RunCompleted', data: { runId: R, reason: 'COMPLETED' } }];
    expect(invariantsOf(new Map([[R, completed]]), executions)).toEqual([4]);
  });

  it('5: a count sent by a process that never fenced its step, or a queued run of idempotent writes only that did not complete', () => {
    const { runs, executions } = history();
    expect(invariantsOf(runs, [...executions, execution('count', count0, 303)])).toEqual([5]);
    expect(invariantsOf(runs, executions, [], [{ runId: R, agent: 'mcounter', mode: 'queued' }])).toEqual([5]);
    // Failed closed for a lost audit: allowed (invariant 3).
    const events = runs.get(R) as HistoryEvent[];
    const auditMissing = [...events.slice(0, -1), { ...(events.at(-1) as HistoryEvent), data: { runId: R, reason: 'AUDIT_MISSING' } }];
    expect(invariantsOf(new Map([[R, auditMissing]]), executions, [], [{ runId: R, agent: 'mcounter', mode: 'queued' }])).toEqual([]);
  });

  it('0: a key that is not a step, a server without its start line, a success the server never saw, a kill without its execution', () => {
    const { runs, executions } = history();
    expect(invariantsOf(runs, [...executions, { tool: 'count', key: null, serverPid: 5, clientPid: 202 }])).toEqual([0]);
    expect(invariantsOf(runs, [...executions.slice(0, 2), execution('append', append1, null, 203)])).toEqual([0, 5]);
    expect(invariantsOf(runs, executions.filter((e) => e.clientPid !== 202 || e.tool !== 'count'))).toEqual([0]);
    expect(invariantsOf(runs, executions, [{ serverPid: 102, clientPid: 101, tool: 'append', key: `agent-ledger:${append1}` }])).toEqual([0]);
  });
});
