import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, AgentTool } from '@agent-ledger/runtime';
import { Tool } from '@agent-ledger/runtime';
import { AgentLedgerHttpModule } from '../agent-ledger-http.module';
import type { ApiScope } from '../auth/api-keys';
import { generateApiKey, hashApiKey } from '../auth/api-keys';
import { setUpAgentLedgerHttp } from '../set-up-agent-ledger-http';
import { scaled } from '../../../../test/support/time-scale';

/*
 * POST /mcp in a Nest application of the HTTP API, driven by the MCP SDK's
 * own client over Streamable HTTP: the tools each key's scopes list, a call
 * refused SCOPE_MISSING, a run of a scripted agent whose write waits for a
 * person, approved through MCP and recorded in the audit trail as the key's
 * decision, the audit review; 405 on GET and DELETE, 401 without a key.
 */

const writes: string[] = [];

@Tool({
  name: 'ledger.note',
  description: 'Writes a note.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
})
class NoteTool implements AgentTool<JsonObject & { text: string }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }

  async execute(args: JsonObject & { text: string }): Promise<JsonValue> {
    writes.push(args.text);
    return { written: args.text };
  }
}

/** Its write is not pre-approved: every run waits for a person. */
const NOTE_TAKER: AgentDefinition = {
  name: 'note-taker',
  description: 'Writes one note.',
  instructions: 'Write the note.',
  tools: ['ledger.note'],
  approvals: { preApproved: [], onDenial: 'endRun' },
  maxIterations: 3,
  provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'ledger.note', arguments: { text: 'approved through MCP' } }] }, { final: 'Noted.' }] },
};

const OTHER: AgentDefinition = { ...NOTE_TAKER, name: 'other-team', description: 'Another team\'s agent.' };

type KeyName = 'operator' | 'reader' | 'approver' | 'auditor' | 'otherTeam';
const SCOPES: Record<KeyName, { scopes: ApiScope[]; agents: string[] | null }> = {
  operator: { scopes: ['runs:submit', 'runs:read'], agents: null },
  reader: { scopes: ['runs:read'], agents: null },
  approver: { scopes: ['runs:read', 'runs:approve'], agents: null },
  auditor: { scopes: ['audit:read'], agents: null },
  otherTeam: { scopes: ['runs:submit', 'runs:read', 'runs:approve', 'audit:read'], agents: ['other-team'] },
};

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

jest.setTimeout(scaled(60_000));

describe('POST /mcp: the ledger as an MCP server over Streamable HTTP', () => {
  const keys = Object.fromEntries(Object.keys(SCOPES).map((name) => [name, generateApiKey()])) as Record<KeyName, string>;
  let dir: string;
  let store: EventStore;
  let app: NestExpressApplication;
  let base: string;
  const clients: Client[] = [];

  async function connect(key: KeyName | null): Promise<Client> {
    const client = new Client({ name: 'mcp-endpoint-test', version: '0.0.0' });
    const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${keys[key]}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  async function toolNames(key: KeyName): Promise<string[]> {
    return (await (await connect(key)).listTools()).tools.map((tool) => tool.name).sort();
  }

  /** Polls `probe` until it returns something, or fails after `ms` (scaled for load). */
  async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + scaled(ms);
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-endpoint-'));
    store = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    app = await NestFactory.create<NestExpressApplication>(
      AgentLedgerHttpModule.forRoot({
        ledger: {
          store,
          agents: [NOTE_TAKER, OTHER],
          tools: { tools: [NoteTool] },
          workers: { concurrency: 1, pollIntervalMs: 50 },
          reaper: { intervalMs: 0 },
          auditGapSaga: { databasePath: join(dir, 'saga.sqlite') },
          readModels: { databasePath: join(dir, 'read-models.sqlite') },
        },
        http: {
          auth: {
            mode: 'api-keys',
            modeSource: 'setting',
            apiKeys: (Object.keys(SCOPES) as KeyName[]).map((name) => ({ id: name, hash: hashApiKey(keys[name]), ...SCOPES[name] })),
          },
          host: '127.0.0.1',
          httpBodyLimitBytes: 16_384,
          sseHeartbeatMs: 15_000,
          readyMaxProjectionLag: 1_000,
          consoleDir: join(dir, 'console'),
        },
      }),
      { bodyParser: false, logger: false },
    );
    setUpAgentLedgerHttp(app);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists to each key the tools its scopes allow, and decide_approval only with runs:approve", async () => {
    expect(await toolNames('operator')).toEqual(['answer_input', 'get_run', 'get_run_steps', 'list_agents', 'list_approvals', 'start_run']);
    expect(await toolNames('reader')).toEqual(['get_run', 'get_run_steps', 'list_agents', 'list_approvals']);
    expect(await toolNames('approver')).toEqual(['decide_approval', 'get_run', 'get_run_steps', 'list_agents', 'list_approvals']);
    expect(await toolNames('auditor')).toEqual(['audit_review']);
  });

  it('refuses a tool the key lacks the scope for, called anyway (SCOPE_MISSING), and starts nothing', async () => {
    const reader = await connect('reader');
    const refused = await reader.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('SCOPE_MISSING: The API key "reader" lacks the scope start_run needs (one of: runs:submit)');
    const decided = await reader.callTool({ name: 'decide_approval', arguments: { runId: 'any', decision: 'approve' } });
    expect(decided.structuredContent).toMatchObject({ code: 'SCOPE_MISSING', keyId: 'reader', requiredScopes: ['runs:approve'] });
    const runs = await (await connect('operator')).callTool({ name: 'list_approvals', arguments: {} });
    expect(runs.structuredContent).toEqual({ approvals: [], nextCursor: null });
  });

  it('list_agents answers what GET /agents answers the same key', async () => {
    const agents = await (await connect('otherTeam')).callTool({ name: 'list_agents', arguments: {} });
    const rest = await fetch(`${base}/agents`, { headers: { authorization: `Bearer ${keys.otherTeam}` } });
    expect({ status: rest.status, body: (await rest.json()) as unknown }).toEqual({ status: 200, body: agents.structuredContent });
    expect((agents.structuredContent as { agents: { name: string }[] }).agents.map((agent) => agent.name)).toEqual(['other-team']);
  });

  it("starts a run whose write waits for approval, lists it, approves it through MCP: the write runs once and the audit trail names the approver's key", async () => {
    const operator = await connect('operator');
    const approver = await connect('approver');
    const started = await operator.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: { task: 'note' }, idempotencyKey: 'mcp-note-1' } });
    expect(started.isError).toBeUndefined();
    const { runId } = started.structuredContent as { runId: string };
    expect(started.structuredContent).toMatchObject({ mode: 'queued', status: 'QUEUED', replayed: false });
    expect(JSON.parse(text(started))).toEqual(started.structuredContent);
    const replayed = await operator.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: { task: 'note' }, idempotencyKey: 'mcp-note-1' } });
    expect(replayed.structuredContent).toMatchObject({ runId, replayed: true });

    const pending = await eventually(async () => {
      const run = await approver.callTool({ name: 'get_run', arguments: { runId } });
      if (['FAILED', 'COMPLETED', 'CANCELLED'].includes((run.structuredContent as { status?: string }).status ?? '')) throw new Error(`the run settled: ${text(run)}`);
      const listed = await approver.callTool({ name: 'list_approvals', arguments: { state: 'pending', runId } });
      const page = listed.structuredContent as { approvals: { runId: string; round: number; calls: { toolName: string }[] }[] };
      return page.approvals.length > 0 ? page.approvals : undefined;
    }, `run ${runId} to wait for approval`);
    expect(pending).toEqual([expect.objectContaining({ runId, round: 0, calls: [expect.objectContaining({ toolName: 'ledger.note' })] })]);
    expect(writes).toEqual([]);
    const waiting = await approver.callTool({ name: 'get_run', arguments: { runId } });
    expect(waiting.structuredContent).toMatchObject({ runId, status: 'WAITING_FOR_APPROVAL' });

    // Refused before anything is decided: a bad decision names its field.
    const bad = await approver.callTool({ name: 'decide_approval', arguments: { runId, decision: 'maybe' } });
    expect(bad.structuredContent).toMatchObject({ code: 'INVALID_FIELD', field: 'decision' });
    const decided = await approver.callTool({ name: 'decide_approval', arguments: { runId, decision: 'approve', reason: 'looked at it in my IDE', round: 0 } });
    expect(decided.isError).toBeUndefined();
    expect(decided.structuredContent).toMatchObject({ runId, status: 'QUEUED', auditStatement: 'recorded' });
    const again = await approver.callTool({ name: 'decide_approval', arguments: { runId, decision: 'approve' } });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/^RUN_NOT_WAITING_FOR_APPROVAL: /);

    const completed = await eventually(async () => {
      const got = await operator.callTool({ name: 'get_run', arguments: { runId } });
      const row = got.structuredContent as { status: string };
      return row.status === 'COMPLETED' ? row : undefined;
    }, `run ${runId} to complete`);
    expect(completed).toMatchObject({ runId, status: 'COMPLETED' });
    expect(writes).toEqual(['approved through MCP']);
    const answered = await operator.callTool({ name: 'answer_input', arguments: { runId, input: { file: 'x' } } });
    expect(answered.structuredContent).toMatchObject({ code: 'RUN_ALREADY_SETTLED', runId });
    const steps = await operator.callTool({ name: 'get_run_steps', arguments: { runId } });
    expect((steps.structuredContent as { steps: { toolName: string | null }[] }).steps.map((step) => step.toolName)).toContain('ledger.note');

    // The decision's statement in the run's audit trail names the approver's key, and the start the operator's.
    const audit = await store.readStream(`audit-${runId}`);
    const statements = audit.events.map((event) => ({ type: event.type, data: event.data as Record<string, unknown> }));
    expect(statements.filter((s) => s.type === 'ApprovalDecisionRecorded')).toEqual([
      { type: 'ApprovalDecisionRecorded', data: expect.objectContaining({ decision: 'approved', decidedBy: { kind: 'apiKey', id: 'approver' }, reason: 'looked at it in my IDE' }) as unknown },
    ]);
    expect(statements.find((s) => s.type === 'RunStartRecorded')?.data).toMatchObject({ requestedBy: { kind: 'apiKey', id: 'operator' } });

    const review = await eventually(async () => {
      const answered = await (await connect('auditor')).callTool({ name: 'audit_review', arguments: { runId } });
      const body = answered.structuredContent as { totals: Record<string, number>; findings: boolean };
      return body.totals['writesAudited'] === 1 ? body : undefined;
    }, 'the audit review to count the write');
    expect(review).toMatchObject({ totals: { writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 }, findings: false });
  });

  it("keeps a key limited to some agents to their runs: another agent's run is not found, the whole audit refused", async () => {
    const operator = await connect('operator');
    const started = await operator.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: 'not yours' } });
    const { runId } = started.structuredContent as { runId: string };
    const otherTeam = await connect('otherTeam');
    for (const name of ['get_run', 'get_run_steps']) {
      const answered = await otherTeam.callTool({ name, arguments: { runId } });
      expect({ name, text: text(answered) }).toEqual({ name, text: expect.stringMatching(/^RUN_NOT_FOUND: /) as unknown });
    }
    expect(text(await otherTeam.callTool({ name: 'decide_approval', arguments: { runId, decision: 'deny' } }))).toMatch(/^RUN_NOT_FOUND: /);
    expect(text(await otherTeam.callTool({ name: 'audit_review', arguments: {} }))).toMatch(/^NOT_ENTITLED: /);
    const notTheirs = await otherTeam.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: 'x' } });
    expect(notTheirs.structuredContent).toMatchObject({ code: 'NOT_ENTITLED', field: 'agent' });
  });

  it('answers 405 to GET and DELETE, 401 without a key (nothing listed)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${base}/mcp`, { method, headers: { authorization: `Bearer ${keys.reader}`, accept: 'text/event-stream' } });
      expect({ method, status: response.status, allow: response.headers.get('allow'), body: (await response.json()) as unknown }).toEqual({
        method,
        status: 405,
        allow: 'POST',
        body: { jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/^Method not allowed/) as unknown }, id: null },
      });
    }
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(connect(null)).rejects.toThrow(/401/);
  });

  it('refuses a body that is not JSON (415), as every route does', async () => {
    const response = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${keys.reader}`, 'content-type': 'text/plain' }, body: 'tools/list' });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('POST /mcp in development mode (no API keys, loopback)', () => {
  let dir: string;
  let store: EventStore;
  let app: NestExpressApplication;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-mcp-development-'));
    store = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    app = await NestFactory.create<NestExpressApplication>(
      AgentLedgerHttpModule.forRoot({
        ledger: {
          store,
          agents: [NOTE_TAKER],
          tools: { tools: [NoteTool] },
          workers: { concurrency: 0 },
          reaper: { intervalMs: 0 },
          auditGapSaga: { databasePath: join(dir, 'saga.sqlite') },
          readModels: { databasePath: join(dir, 'read-models.sqlite') },
        },
        http: {
          auth: { mode: 'disabled-on-loopback', modeSource: 'default', apiKeys: [] },
          host: '127.0.0.1',
          httpBodyLimitBytes: 16_384,
          sseHeartbeatMs: 15_000,
          readyMaxProjectionLag: 1_000,
          consoleDir: join(dir, 'console'),
        },
      }),
      { bodyParser: false, logger: false },
    );
    setUpAgentLedgerHttp(app);
    await app.listen(0, '127.0.0.1');
    client = new Client({ name: 'mcp-development-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`)));
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every tool without a key, as every route answers without one, and records who acted as development', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'answer_input',
      'audit_review',
      'decide_approval',
      'get_run',
      'get_run_steps',
      'list_agents',
      'list_approvals',
      'start_run',
    ]);
    const started = await client.callTool({ name: 'start_run', arguments: { agent: 'note-taker', input: 'x' } });
    const { runId } = started.structuredContent as { runId: string };
    const audit = await store.readStream(`audit-${runId}`);
    expect(audit.events.find((event) => event.type === 'RunStartRecorded')?.data).toMatchObject({ requestedBy: { kind: 'development' } });
  });
});
