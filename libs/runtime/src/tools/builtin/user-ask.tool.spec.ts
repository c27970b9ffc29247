import { ToolEffect, effectOf } from '@agent-ledger/domain';
import type { ToolContext } from '../agent-tool';
import { getToolMetadata } from '../tool.decorator';
import { UserInputRequired } from '../user-input-required';
import { UserAskTool } from './user-ask.tool';

const context: ToolContext = { runId: 'run-1', stepId: 'step-1', idempotencyKey: 'key-1', attempt: 1, signal: new AbortController().signal };

describe('user.ask', () => {
  const tool = new UserAskTool();

  it('is declared READ_ONLY (it declares no effect), personal, without requiresApproval', () => {
    expect(effectOf(tool)).toBe(ToolEffect.READ_ONLY);
    expect(getToolMetadata(UserAskTool)).toMatchObject({ name: 'user.ask', dataClass: 'personal' });
    expect(getToolMetadata(UserAskTool)).not.toHaveProperty('requiresApproval');
  });

  it('asks the user: throws UserInputRequired with the question as its prompt while no input was submitted', async () => {
    const thrown: unknown = await tool.execute({ question: 'Which file should I read?' }, context).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(UserInputRequired);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ code: 'USER_INPUT_REQUIRED', prompt: 'Which file should I read?', name: 'UserInputRequired' });
    expect((thrown as Error).message).toContain('Which file should I read?');
  });

  it.each([['notes.txt'], [''], [{ file: 'notes.txt', lines: [1, 2] }], [null], [0], [false]])(
    'returns the question and the submitted answer %j',
    async (userInput) => {
      await expect(tool.execute({ question: 'Which file?' }, { ...context, userInput })).resolves.toEqual({ question: 'Which file?', answer: userInput });
    },
  );
});
