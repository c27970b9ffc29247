import type { JsonObject } from '@agent-ledger/domain';
import type { AgentTool, ToolContext } from '../agent-tool';
import { Tool } from '../tool.decorator';
import { UserInputRequired } from '../user-input-required';

/** The arguments of `user.ask`. */
export interface UserAskArgs extends JsonObject {
  readonly question: string;
}

/**
 * `user.ask`: asks the user a question and returns the answer they submit.
 * `READ_ONLY` (it declares no effect). The first call throws
 * {@link UserInputRequired} with the question: the run waits
 * (`WAITING_FOR_INPUT`) until a person submits the answer, then the call is
 * made again with `context.userInput` and returns `{ question, answer }`.
 * Its results are `personal` data: they hold what a person wrote.
 */
@Tool({
  name: 'user.ask',
  description: 'Asks the user a question and returns the answer they submit',
  parameters: {
    type: 'object',
    properties: { question: { type: 'string', minLength: 1, maxLength: 2000 } },
    required: ['question'],
    additionalProperties: false,
  },
  dataClass: 'personal',
})
export class UserAskTool implements AgentTool<UserAskArgs> {
  async execute(args: UserAskArgs, context: ToolContext): Promise<JsonObject> {
    if (context.userInput === undefined) {
      throw new UserInputRequired(args.question);
    }
    return { question: args.question, answer: context.userInput };
  }
}
