import type { DeclaresToolEffect, JsonObject, JsonValue, RunEvent, ToolEffect } from '@agent-ledger/domain';
import { busPrincipal, isTerminalRunEvent, resolveExternalToolEffect } from '@agent-ledger/domain';
import type { EventData, StreamAppend } from '@agent-ledger/event-store';
import type { RuntimeHarness } from '../testing/runtime-harness';
import { eventually, startRuntime, stateOf } from '../testing/runtime-harness';
import type { AgentTool, ToolContext } from '../tools/agent-tool';
import { Tool } from '../tools/tool.decorator';
import type { McpToolOrigin } from '../tools/tool-origin';

/*
 * An MCP tool whose declared effect and server hints conflict: each of its
 * steps records ToolEffectConflictRecorded right before its StepStarted, in
 * the same append, and runs with the resolved effect. The tools are
 * registered as a binding registers them (`registerExternal`, with an origin
 * made here by the domain's rule), without an MCP server.
 */

const executions: string[] = [];
const parameters = { type: 'object', properties: { value: { type: 'string' } } };

/** An MCP tool's origin, its effect resolved by the domain's rule from a declaration and the server's hints. */
function origin(server: string, tool: string, declared: ToolEffect, hints: { readOnlyHint?: boolean; idempotentHint?: boolean }, trusted: boolean): McpToolOrigin {
  return { kind: 'mcp', server, tool, ...resolveExternalToolEffect(declared, hints, trusted) };
}

/** The class a binding defines for one MCP tool: its effect is its origin's. */
function mcpTool(name: string, resolved: McpToolOrigin): AgentTool & object {
  @Tool({ name, description: `${name} (an MCP tool)`, parameters })
  class BoundTool implements AgentTool, DeclaresToolEffect {
    getEffect(): ToolEffect {
      return resolved.effect;
    }
    execute(_args: JsonObject, context: ToolContext): Promise<JsonValue> {
      executions.push(`${name} ${context.stepId}`);
      return Promise.resolve({ done: name });
    }
  }
  return new BoundTool();
}

/** Declared READ_ONLY, hinted IDEMPOTENT_WRITE, untrusted: IDEMPOTENT_WRITE (the stricter), a conflict. */
const WRITE = origin('fs', 'write_file', 'READ_ONLY', { readOnlyHint: false, idempotentHint: true }, false);
/** Declared IDEMPOTENT_WRITE, hinted READ_ONLY, trusted: READ_ONLY (the hints), a conflict. */
const READ = origin('fs', 'read_text_file', 'IDEMPOTENT_WRITE', { readOnlyHint: true }, true);
/** Declared READ_ONLY, hinted READ_ONLY: no conflict. */
const LIST = origin('fs', 'list_directory', 'READ_ONLY', { readOnlyHint: true }, false);

const calls = (...tools: string[]) => ({ toolCalls: tools.map((tool) => ({ tool, arguments: { value: 'a' } })) });

describe("an MCP tool's effect conflict, recorded with its steps", () => {
  let rt: RuntimeHarness;
  /** The event types of each append to a run stream, in the order of the appends. */
  let appends: string[][];

  beforeAll(async () => {
    expect([WRITE.conflict, READ.conflict, LIST.conflict]).toEqual([true, true, false]);
    rt = await startRuntime({
      agents: [{ name: 'clerk', script: [calls('fs.read_text_file', 'fs.list_directory', 'test.read', 'fs.write_file'), { final: 'done' }], tools: ['fs.read_text_file', 'fs.list_directory', 'test.read', 'fs.write_file'], approvals: { preApproved: [] } }],
      externalTools: [
        { tool: mcpTool('fs.write_file', WRITE), origin: WRITE },
        { tool: mcpTool('fs.read_text_file', READ), origin: READ },
        { tool: mcpTool('fs.list_directory', LIST), origin: LIST },
      ],
      execution: { workers: { concurrency: 1 } },
    });
    const store = rt.runStore as typeof rt.runStore & { appendToStreams?: (parts: readonly StreamAppend[]) => Promise<unknown> };
    const typesOf = (events: readonly EventData[]) => events.map((e) => e.type);
    const append = store.append.bind(store);
    jest.spyOn(store, 'append').mockImplementation((streamName, events, options) => {
      if (streamName.startsWith('run-')) appends.push(typesOf(events));
      return append(streamName, events, options);
    });
    if (store.appendToStreams !== undefined) {
      const appendToStreams = store.appendToStreams.bind(store);
      store.appendToStreams = (parts) => {
        for (const part of parts) if (part.streamName.startsWith('run-')) appends.push(typesOf(part.events));
        return appendToStreams(parts);
      };
    }
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await rt?.close();
  });

  beforeEach(() => {
    appends = [];
    executions.length = 0;
  });

  const settled = (runId: string) =>
    eventually(async () => {
      const events = await rt.runEvents(runId);
      return events.some(isTerminalRunEvent) ? events : undefined;
    }, 10_000, `run ${runId} to settle`);

  it('runs each step with the resolved effect (a write declared READ_ONLY waits for approval), its conflict right before its StepStarted, in the same append', async () => {
    const runId = await rt.runs.enqueue({ requestedBy: busPrincipal('test'), agent: 'clerk', input: 'go' });
    await eventually(async () => (stateOf(await rt.runEvents(runId)).status === 'WAITING_FOR_APPROVAL' ? true : undefined), 10_000, 'the approval request');
    // The hints made the declared READ_ONLY a write: a person must approve it; nothing of the round executed.
    expect((await rt.runEvents(runId)).at(-1)).toMatchObject({
      type: 'ApprovalRequested',
      data: { calls: [{ stepId: `${runId}/r0/t3`, toolName: 'fs.write_file', effect: 'IDEMPOTENT_WRITE', requirement: 'write' }] },
    });
    expect(executions).toEqual([]);
    await rt.runs.decideApproval(runId, { decision: 'approve', decidedBy: busPrincipal('alice') });
    const events = await settled(runId);
    expect(events.filter(isTerminalRunEvent)).toEqual([expect.objectContaining({ type: 'RunCompleted' })]);
    expect(executions).toEqual([`fs.read_text_file ${runId}/r0/t0`, `fs.list_directory ${runId}/r0/t1`, `fs.write_file ${runId}/r0/t3`]);

    const conflicts = events.filter((e): e is Extract<RunEvent, { type: 'ToolEffectConflictRecorded' }> => e.type === 'ToolEffectConflictRecorded');
    expect(conflicts.map((e) => e.data)).toEqual([
      expect.objectContaining({ stepId: `${runId}/r0/t0`, toolName: 'fs.read_text_file', server: 'fs', tool: 'read_text_file', declared: 'IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: true, effect: 'READ_ONLY', effectSource: 'hint' }),
      expect.objectContaining({ stepId: `${runId}/r0/t3`, toolName: 'fs.write_file', server: 'fs', tool: 'write_file', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, effect: 'IDEMPOTENT_WRITE', effectSource: 'hint' }),
    ]);
    for (const conflict of conflicts) {
      const at = events.indexOf(conflict);
      expect(events[at + 1]).toMatchObject({ type: 'StepStarted', data: { stepId: conflict.data.stepId, effect: conflict.data.effect } });
    }
    // The tools without a conflict (an MCP tool whose hints agree, a tool of code) record none.
    expect(events.filter((e) => e.type === 'StepStarted' && (e.data.toolName === 'fs.list_directory' || e.data.toolName === 'test.read'))).toHaveLength(2);
    // One append holds the conflict and its StepStarted (a read's may hold its result too), for each of the two steps.
    const withConflict = appends.filter((types) => types.includes('ToolEffectConflictRecorded'));
    expect(withConflict).toHaveLength(2);
    for (const types of withConflict) {
      const at = types.indexOf('ToolEffectConflictRecorded');
      expect(types[at + 1]).toBe('StepStarted');
      expect(types.filter((type) => type === 'ToolEffectConflictRecorded')).toHaveLength(1);
    }
    // The write's fence: the conflict, then StepStarted, stored before the write ran.
    expect(withConflict[1]?.slice(0, 2)).toEqual(['ToolEffectConflictRecorded', 'StepStarted']);
    expect(stateOf(events).steps.get(`${runId}/r0/t3`)).toMatchObject({ effect: 'IDEMPOTENT_WRITE', status: 'completed', outcome: 'succeeded' });
  });
});
