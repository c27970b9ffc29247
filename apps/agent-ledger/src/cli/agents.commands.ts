import type { AgentLedgerClient, AgentSummary } from '@agent-ledger/client';
import type { CliOutput } from './cli-output';
import { ExitCode, table } from './cli-output';
import { toolSourceText } from './tool-source-text';

/**
 * `agents list [--json]`: `GET /agents`, the agents the key may use, with
 * each tool, its effect, where the effect was declared (`code`, plugins'
 * tools included, or an MCP server's binding: {@link toolSourceText}), and
 * whether a call waits for a person: a write not pre-approved does, a
 * read-only tool never.
 */
export async function agentsList(client: AgentLedgerClient, options: { json: boolean }, output: CliOutput): Promise<ExitCode> {
  const answer = await client.listAgents();
  if (options.json) {
    output.out(JSON.stringify(answer, null, 2));
    return ExitCode.OK;
  }
  if (answer.agents.length === 0) {
    output.out('No agents (or none this key may use).');
    return ExitCode.OK;
  }
  const rows = answer.agents.flatMap((agent) =>
    agent.tools.length === 0
      ? [[agent.name, '-', '-', '-', '-', agent.approvals.onDenial]]
      : agent.tools.map((tool) => [agent.name, tool.name, tool.effect, toolSourceText(tool.source), approvalOf(agent, tool.name, tool.effect), agent.approvals.onDenial]),
  );
  for (const line of table(['agent', 'tool', 'effect', 'source', 'approval', 'on denial'], rows)) output.out(line);
  return ExitCode.OK;
}

/** `-` for a read-only tool; `pre-approved` for a write the agent pre-approves; `asks a person` for any other write. */
function approvalOf(agent: AgentSummary, tool: string, effect: string): string {
  if (effect === 'READ_ONLY') return '-';
  return agent.approvals.preApproved.includes(tool) ? 'pre-approved' : 'asks a person';
}
