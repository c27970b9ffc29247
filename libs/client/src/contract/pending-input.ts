import type { Infer } from './schema';
import { s } from './schema';

/** What a `WAITING_FOR_INPUT` run waits for: the input a tool asked a person for. */
export const pendingInputSchema = s
  .object({
    stepId: s.string(),
    round: s.integer(),
    callIndex: s.integer(),
    toolName: s.string(),
    prompt: s.string().describe('The question, as the tool asked it'),
    requestedAt: s.integer().describe('ms since the epoch'),
  })
  .named('PendingInput')
  .describe('The input a tool of the run asked a person for');

/** {@link pendingInputSchema}'s type. */
export type PendingInput = Infer<typeof pendingInputSchema>;
