import type { ToolEffect } from '@agent-ledger/domain';
import { resolveExternalToolEffect } from '@agent-ledger/domain';
import type { AgentDefinition, CatalogTool, McpToolOrigin } from '@agent-ledger/runtime';
import { CODE_TOOL_ORIGIN } from '@agent-ledger/runtime';
import { agentSummaries } from './agent-summary';

const definition = (name: string, tools: string[], extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name,
  instructions: 'secret instructions',
  provider: { type: 'scripted', script: [{ final: 'x' }] },
  tools,
  maxIterations: 3,
  ...extra,
});

const EFFECTS: Record<string, ToolEffect> = { 'files.read': 'READ_ONLY', 'files.append': 'NON_IDEMPOTENT_WRITE', 'fs.write_file': 'IDEMPOTENT_WRITE' };
/** `fs.write_file`: declared READ_ONLY, hinted IDEMPOTENT_WRITE by a trusted server. */
const WRITE_FILE: McpToolOrigin = { kind: 'mcp', server: 'fs', tool: 'write_file', ...resolveExternalToolEffect('READ_ONLY', { idempotentHint: true }, true) };
/** What the summaries read of a registered tool: its origin (none known: code). */
const ORIGINS: Record<string, Pick<CatalogTool, 'origin'>> = { 'files.read': {}, 'files.append': { origin: CODE_TOOL_ORIGIN }, 'fs.write_file': { origin: WRITE_FILE } };
const registry = {
  effectFor: (name: string): ToolEffect => EFFECTS[name] ?? 'NON_IDEMPOTENT_WRITE',
  get: (name: string) => ORIGINS[name] as CatalogTool | undefined,
};

describe('agentSummaries', () => {
  const agents = [
    definition('zeta', ['files.read']),
    definition('alpha', ['files.append', 'gone.tool'], { description: 'first', approvals: { preApproved: ['files.append'], onDenial: 'tellModel' } }),
    definition('Mid', []),
  ];

  it('sorts by name (code unit order), takes effects from the registry, applies the default approvals, and shows neither instructions nor provider', () => {
    const summaries = agentSummaries(agents, registry, null);
    expect(summaries.map((s) => s.name)).toEqual(['Mid', 'alpha', 'zeta']);
    expect(summaries[1]).toEqual({
      name: 'alpha',
      description: 'first',
      tools: [
        { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', source: { kind: 'code' } },
        { name: 'gone.tool', effect: 'NON_IDEMPOTENT_WRITE', source: null },
      ],
      approvals: { preApproved: ['files.append'], onDenial: 'tellModel' },
    });
    expect(summaries[2]).toMatchObject({ description: null, approvals: { preApproved: [], onDenial: 'endRun' } });
    expect(JSON.stringify(summaries)).not.toMatch(/secret|scripted/);
  });

  it("shows where each tool's effect comes from: code, an MCP server's binding (declared, hinted, trusted, conflict), or nothing for an unknown name", () => {
    const [summary] = agentSummaries([definition('mcp', ['fs.write_file', 'files.read', 'gone.tool'])], registry, null);
    expect(summary?.tools).toEqual([
      {
        name: 'fs.write_file',
        effect: 'IDEMPOTENT_WRITE',
        source: { kind: 'mcp', server: 'fs', tool: 'write_file', effectSource: 'hint', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: true, conflict: true },
      },
      { name: 'files.read', effect: 'READ_ONLY', source: { kind: 'code' } },
      { name: 'gone.tool', effect: 'NON_IDEMPOTENT_WRITE', source: null },
    ]);
  });

  it('keeps the entitled agents only, and none for an empty list', () => {
    expect(agentSummaries(agents, registry, ['zeta', 'nobody']).map((s) => s.name)).toEqual(['zeta']);
    expect(agentSummaries(agents, registry, [])).toEqual([]);
  });
});
