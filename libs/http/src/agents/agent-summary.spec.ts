import type { ToolEffect } from '@agent-ledger/domain';
import type { AgentDefinition } from '@agent-ledger/runtime';
import { agentSummaries } from './agent-summary';

const definition = (name: string, tools: string[], extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name,
  instructions: 'secret instructions',
  provider: { type: 'scripted', script: [{ final: 'x' }] },
  tools,
  maxIterations: 3,
  ...extra,
});

const EFFECTS: Record<string, ToolEffect> = { 'files.read': 'READ_ONLY', 'files.append': 'NON_IDEMPOTENT_WRITE' };
const registry = { effectFor: (name: string): ToolEffect => EFFECTS[name] ?? 'NON_IDEMPOTENT_WRITE' };

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
        { name: 'files.append', effect: 'NON_IDEMPOTENT_WRITE' },
        { name: 'gone.tool', effect: 'NON_IDEMPOTENT_WRITE' },
      ],
      approvals: { preApproved: ['files.append'], onDenial: 'tellModel' },
    });
    expect(summaries[2]).toMatchObject({ description: null, approvals: { preApproved: [], onDenial: 'endRun' } });
    expect(JSON.stringify(summaries)).not.toMatch(/secret|scripted/);
  });

  it('keeps the entitled agents only, and none for an empty list', () => {
    expect(agentSummaries(agents, registry, ['zeta', 'nobody']).map((s) => s.name)).toEqual(['zeta']);
    expect(agentSummaries(agents, registry, [])).toEqual([]);
  });
});
