import type { DeclaresToolEffect, JsonValue, ToolEffect } from '@agent-ledger/domain';
import { resolveExternalToolEffect } from '@agent-ledger/domain';
import type { AgentTool, McpToolOrigin } from '@agent-ledger/runtime';
import { Tool, ToolRegistry } from '@agent-ledger/runtime';
import type { HttpTestApp } from '../testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../testing/http-test-app';
import type { AgentsAnswer } from '@agent-ledger/http';

describe('GET /agents', () => {
  const submitter = httpTestKey('submitter', ['runs:submit']);
  const reader = httpTestKey('reader', ['runs:read'], ['writer']);
  const ops = httpTestKey('ops', ['operate']);
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({ keys: [submitter, reader, ops] });
  });
  afterAll(() => app.close());

  it('lists every agent by name, with its tools, their effects from the registry and their source (code), and its approvals (defaults applied)', async () => {
    const answer = await app.call('GET', '/agents', { key: submitter });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      agents: [
        { name: 'clock', description: 'Tells the time.', tools: [{ name: 'clock.now', effect: 'READ_ONLY', source: { kind: 'code' } }], approvals: { preApproved: [], onDenial: 'endRun' } },
        {
          name: 'writer',
          description: null,
          tools: [
            { name: 'files.write', effect: 'IDEMPOTENT_WRITE', source: { kind: 'code' } },
            { name: 'clock.now', effect: 'READ_ONLY', source: { kind: 'code' } },
          ],
          approvals: { preApproved: ['files.write'], onDenial: 'tellModel' },
        },
      ],
    } satisfies AgentsAnswer);
  });

  it('lists only the agents of a key limited to some agents', async () => {
    const answer = await app.call('GET', '/agents', { key: reader });
    expect(answer.status).toBe(200);
    expect((answer.body as AgentsAnswer).agents.map((a) => a.name)).toEqual(['writer']);
  });

  it('refuses a key without runs:submit or runs:read (403), and no key (401)', async () => {
    const refused = await app.call('GET', '/agents', { key: ops });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'SCOPE_MISSING', requiredScopes: ['runs:submit', 'runs:read'] });
    expect((await app.call('GET', '/agents')).status).toBe(401);
  });
});

/** An MCP tool as a binding registers it: a `@Tool` class whose effect is its origin's. */
function mcpTool(name: string, origin: McpToolOrigin): AgentTool & object {
  @Tool({ name, description: `${origin.server}'s ${origin.tool}`, parameters: { type: 'object', properties: { path: { type: 'string' } } } })
  class BoundTool implements AgentTool, DeclaresToolEffect {
    getEffect(): ToolEffect {
      return origin.effect;
    }
    execute(): Promise<JsonValue> {
      return Promise.resolve(null);
    }
  }
  return new BoundTool();
}

describe("GET /agents and /openapi.json: an MCP tool's effect and where it came from", () => {
  /** Declared READ_ONLY, hinted IDEMPOTENT_WRITE by an untrusted server: the stricter hint, a conflict. */
  const write: McpToolOrigin = { kind: 'mcp', server: 'fs', tool: 'write_file', ...resolveExternalToolEffect('READ_ONLY', { readOnlyHint: false, idempotentHint: true }, false) };
  /** Nothing declared, untrusted hints: the default. */
  const list: McpToolOrigin = { kind: 'mcp', server: 'fs', tool: 'list_directory', ...resolveExternalToolEffect(undefined, { readOnlyHint: true }, false) };
  let app: HttpTestApp;

  beforeAll(async () => {
    app = await startHttpTestApp({
      extraAgents: [{ name: 'fs-clerk', instructions: 'Files.', provider: { type: 'scripted', script: [{ final: 'x' }] }, tools: ['fs.write_file', 'fs.list_directory', 'clock.now'], maxIterations: 3 }],
      beforeListen: (nest) => {
        const registry = nest.get(ToolRegistry);
        registry.registerExternal(mcpTool('fs.write_file', write), write);
        registry.registerExternal(mcpTool('fs.list_directory', list), list);
      },
    });
  });
  afterAll(() => app?.close());

  const expectedTools = [
    {
      name: 'fs.write_file',
      effect: 'IDEMPOTENT_WRITE',
      source: { kind: 'mcp', server: 'fs', tool: 'write_file', effectSource: 'hint', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, conflict: true },
    },
    {
      name: 'fs.list_directory',
      effect: 'NON_IDEMPOTENT_WRITE',
      source: { kind: 'mcp', server: 'fs', tool: 'list_directory', effectSource: 'default', declared: null, hinted: 'READ_ONLY', trusted: false, conflict: false },
    },
    { name: 'clock.now', effect: 'READ_ONLY', source: { kind: 'code' } },
  ];

  it('GET /agents shows each MCP tool with its resolved effect and its source, a tool of code as code', async () => {
    const answer = await app.call('GET', '/agents');
    expect(answer.status).toBe(200);
    expect((answer.body as AgentsAnswer).agents.find((agent) => agent.name === 'fs-clerk')).toEqual({
      name: 'fs-clerk',
      description: null,
      tools: expectedTools,
      approvals: { preApproved: [], onDenial: 'endRun' },
    });
  });

  it("the OpenAPI document's agents extension shows the same source", async () => {
    const answer = await app.call('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    const agents = (answer.body as { 'x-agent-ledger-agents': { name: string; tools: { name: string; effect: string; source: unknown }[] }[] })['x-agent-ledger-agents'];
    const tools = agents.find((agent) => agent.name === 'fs-clerk')?.tools.map(({ name, effect, source }) => ({ name, effect, source }));
    expect(tools).toEqual(expectedTools);
    // The contract's schema is in the document: the source's MCP fields are documented.
    const schemas = (answer.body as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }).components.schemas;
    expect(Object.keys(schemas['AgentToolSource']?.properties ?? {})).toEqual(['kind', 'server', 'tool', 'effectSource', 'declared', 'hinted', 'trusted', 'conflict']);
  });
});
