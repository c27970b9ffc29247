/**
 * Thrown by a `READ_ONLY` tool to ask the user for input it needs (a
 * question, a choice, a missing detail). The run then waits
 * (`WAITING_FOR_INPUT`), holding no lease, with `prompt` recorded in its
 * events (`InputRequested`). When a person submits the input, the tool is
 * called again, for the same step, with the same arguments and
 * `context.userInput` set to what was submitted.
 *
 * Only a read may ask: a write that throws it is recorded as a failed call
 * (a write never waits in flight, since it might already have changed
 * something).
 *
 * @example
 * ```ts
 * async execute(args: { question: string }, context: ToolContext) {
 *   if (context.userInput === undefined) throw new UserInputRequired(args.question);
 *   return { answer: context.userInput };
 * }
 * ```
 */
export class UserInputRequired extends Error {
  readonly code = 'USER_INPUT_REQUIRED' as const;

  /** @param prompt - what the user is asked, as shown to them. */
  constructor(readonly prompt: string) {
    super(`The tool asks the user for input: ${prompt}`);
    this.name = 'UserInputRequired';
  }
}
