import { AgentLedgerApiError } from '@agent-ledger/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLedgerMcpServer } from './ledger-mcp-server';
import type { LedgerOperations } from './ledger-operations';
import { LedgerOperationError } from './ledger-operation-error';

/*
 * The ledger's MCP tools over the SDK's in-memory transport, against a
 * recording stand-in of the ledger: which tools each set of scopes lists,
 * the hints, what reaches the ledger, and every kind of refusal.
 */

type Recorded = { readonly method: string; readonly args: readonly unknown[] };

function recordingLedger(calls: Recorded[], overrides: Partial<LedgerOperations> = {}): LedgerOperations {
  const record =
    (method: string, answer: unknown) =>
    (...args: unknown[]): Promise<never> => {
      calls.push({ method, args });
      return Promise.resolve(answer as never);
    };
  return {
    listAgents: record('listAgents', { agents: [] }),
    startRun: record('startRun', { runId: 'r1', mode: 'queued', status: 'QUEUED', replayed: false }),
    getRun: record('getRun', { runId: 'r1', status: 'QUEUED' }),
    getSteps: record('getSteps', { runId: 'r1', steps: [] }),
    listApprovals: record('listApprovals', { approvals: [], nextCursor: null }),
    decideApproval: record('decideApproval', { runId: 'r1', status: 'QUEUED', auditStatement: 'recorded' }),
    submitInput: record('submitInput', { runId: 'r1', status: 'QUEUED', auditStatement: 'recorded' }),
    auditReview: record('auditReview', { totals: {}, findings: false }),
    ...overrides,
  };
}

async function connected(operations: LedgerOperations, scopes: readonly string[], faults: unknown[] = []): Promise<Client> {
  const { server } = createLedgerMcpServer({ operations, scopes, keyId: 'k1', version: '0.0.0', onFault: (error) => faults.push(error) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
}

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

describe('the ledger as an MCP server', () => {
  it('lists the tools the scopes allow, with hints that tell the truth', async () => {
    const reader = await connected(recordingLedger([]), ['runs:read']);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_run', 'get_run_steps', 'list_agents', 'list_approvals']);
    const all = await connected(recordingLedger([]), ['runs:submit', 'runs:read', 'runs:approve', 'audit:read']);
    const tools = (await all.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['answer_input', 'audit_review', 'decide_approval', 'get_run', 'get_run_steps', 'list_agents', 'list_approvals', 'start_run']);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['get_run', 'get_run_steps', 'list_agents', 'list_approvals', 'audit_review']) expect(byName.get(name)?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('decide_approval')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false, destructiveHint: true });
    expect(byName.get('start_run')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    // The arguments are the route's, with the contract's limits; unknown ones are refused.
    expect(byName.get('decide_approval')?.inputSchema).toMatchObject({
      properties: { runId: { type: 'string' }, decision: { enum: ['approve', 'deny'] }, reason: { maxLength: 500 }, round: { minimum: 0, maximum: 19 } },
      required: ['runId', 'decision'],
      additionalProperties: false,
    });
    expect(byName.get('start_run')?.inputSchema.required).toEqual(['agent', 'input']);
    await expect((await connected(recordingLedger([]), ['metrics:read'])).listTools()).resolves.toEqual({ tools: [] });
  });

  it('passes the checked arguments to the ledger and answers its JSON as structuredContent and text', async () => {
    const calls: Recorded[] = [];
    const client = await connected(recordingLedger(calls), ['runs:submit', 'runs:approve', 'runs:read']);
    const started = await client.callTool({ name: 'start_run', arguments: { agent: 'a', input: { task: 'x' }, idempotencyKey: 'k-1' } });
    expect(started.isError).toBeUndefined();
    expect(started.structuredContent).toEqual({ runId: 'r1', mode: 'queued', status: 'QUEUED', replayed: false });
    expect(JSON.parse(text(started))).toEqual(started.structuredContent);
    await client.callTool({ name: 'decide_approval', arguments: { runId: 'r1', decision: 'deny', reason: 'no' } });
    await client.callTool({ name: 'answer_input', arguments: { runId: 'r1', input: null } });
    await client.callTool({ name: 'list_approvals', arguments: { state: 'pending' } });
    expect(calls).toEqual([
      { method: 'startRun', args: [{ agent: 'a', input: { task: 'x' }, idempotencyKey: 'k-1' }] },
      { method: 'decideApproval', args: ['r1', { decision: 'deny', reason: 'no' }] },
      { method: 'submitInput', args: ['r1', null] },
      { method: 'listApprovals', args: [{ state: 'pending' }] },
    ]);
  });

  it('refuses a tool the scopes do not allow (SCOPE_MISSING), bad arguments (INVALID_FIELD naming the field) and an unknown tool, calling nothing', async () => {
    const calls: Recorded[] = [];
    const client = await connected(recordingLedger(calls), ['runs:read']);
    const refused = await client.callTool({ name: 'decide_approval', arguments: { runId: 'r1', decision: 'approve' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('SCOPE_MISSING: The API key "k1" lacks the scope decide_approval needs (one of: runs:approve)');
    expect(refused.structuredContent).toMatchObject({ code: 'SCOPE_MISSING', keyId: 'k1', requiredScopes: ['runs:approve'] });

    const bad = await client.callTool({ name: 'get_run', arguments: { runId: ' no spaces ' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^INVALID_FIELD: Invalid arguments for get_run: runId: /);
    expect(bad.structuredContent).toMatchObject({ code: 'INVALID_FIELD', field: 'runId' });
    const unknown = await client.callTool({ name: 'list_approvals', arguments: { state: 'pending', colour: 'red' } });
    expect(unknown.structuredContent).toMatchObject({ code: 'INVALID_FIELD', field: 'colour', rule: 'unknownField' });
    const missing = await client.callTool({ name: 'get_run', arguments: {} });
    expect(missing.structuredContent).toMatchObject({ code: 'INVALID_FIELD', field: 'runId' });
    await expect(client.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/Unknown tool: drop_tables/);
    expect(calls).toEqual([]);
  });

  it("answers the ledger's refusals with their REST code, and a fault as INTERNAL_ERROR without its message", async () => {
    const faults: unknown[] = [];
    const client = await connected(
      recordingLedger([], {
        getRun: () => Promise.reject(new LedgerOperationError({ code: 'RUN_NOT_FOUND', message: 'Run r9 not found', runId: 'r9' })),
        getSteps: () => Promise.reject(new AgentLedgerApiError({ status: 404, request: 'GET /runs/r9/steps', body: { statusCode: 404, error: 'Not Found', code: 'RUN_NOT_FOUND', message: 'Run r9 not found' } })),
        listAgents: () => Promise.reject(new Error('secret detail')),
      }),
      ['runs:read'],
      faults,
    );
    const missing = await client.callTool({ name: 'get_run', arguments: { runId: 'r9' } });
    expect({ isError: missing.isError, text: text(missing), body: missing.structuredContent }).toEqual({ isError: true, text: 'RUN_NOT_FOUND: Run r9 not found', body: { code: 'RUN_NOT_FOUND', message: 'Run r9 not found', runId: 'r9' } });
    expect(text(await client.callTool({ name: 'get_run_steps', arguments: { runId: 'r9' } }))).toBe('RUN_NOT_FOUND: Run r9 not found');
    const fault = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(text(fault)).toBe('INTERNAL_ERROR: Internal error (logged by the server)');
    expect(JSON.stringify(fault)).not.toContain('secret detail');
    expect(faults).toEqual([new Error('secret detail')]);
  });
});
