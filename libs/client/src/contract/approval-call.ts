import type { Infer } from './schema';
import { s } from './schema';
import { TOOL_EFFECTS } from './vocabulary';

/** One tool call that waits for approval: what it would do, exactly as the model asked for it. */
export const approvalCallSchema = s
  .object({
    stepId: s.string(),
    callIndex: s.integer().describe("The call's position in the round"),
    toolName: s.string(),
    effect: s.enum(TOOL_EFFECTS),
    arguments: s.record(s.json()).describe('The arguments the model gave'),
    requirement: s.enum(['write', 'tool']).describe('`write`: a write the agent does not pre-approve; `tool`: the tool asks for approval whatever its effect'),
  })
  .named('ApprovalCall')
  .describe('One tool call that waits for approval: what it would do, exactly as the model asked for it');

/** {@link approvalCallSchema}'s type. */
export type ApprovalCall = Infer<typeof approvalCallSchema>;
