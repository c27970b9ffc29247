import type { ToolEffectConflict } from '@agent-ledger/domain';
import type { ToolOrigin } from './tool-origin';

/**
 * What a step of a tool records about its effect's conflict
 * (`StartStep.tool.effectConflict`, recorded as `ToolEffectConflictRecorded`
 * before the step's `StepStarted`): for an MCP tool whose binding's
 * declaration and server's hints disagree, the declaration, the hints and
 * whether they are trusted; `undefined` for any other tool (a tool of code, an
 * MCP tool without a conflict, or no origin known).
 */
export function stepEffectConflict(origin: ToolOrigin | undefined): ToolEffectConflict | undefined {
  if (origin?.kind !== 'mcp' || !origin.conflict || origin.declared === null || origin.hinted === null) return undefined;
  return { server: origin.server, tool: origin.tool, declared: origin.declared, hinted: origin.hinted, trusted: origin.trusted };
}
