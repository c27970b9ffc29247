import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { ConfigurationError } from '@agent-ledger/domain';
import type { AgentCatalog } from './agent-catalog';
import { AGENT_CATALOG } from './agent-catalog';
import type { ToolCatalog } from './tool-catalog';
import { TOOL_CATALOG } from './tool-catalog';

/**
 * Refuses to start when an agent offers a tool that no module registered:
 * better a clear start-up error than a run that finds out mid-way.
 */
@Injectable()
export class AgentToolsCheck implements OnApplicationBootstrap {
  constructor(
    @Inject(AGENT_CATALOG) private readonly agents: AgentCatalog,
    @Inject(TOOL_CATALOG) private readonly tools: ToolCatalog,
  ) {}

  onApplicationBootstrap(): void {
    const problems: string[] = [];
    for (const name of this.agents.names()) {
      const agent = this.agents.get(name);
      for (const tool of agent?.definition.tools ?? []) {
        if (this.tools.get(tool) === undefined) problems.push(`agent "${name}" offers tool "${tool}", which is not registered`);
      }
    }
    if (problems.length > 0) throw new ConfigurationError(`Agents offer unknown tools: ${problems.join('; ')}`);
  }
}
