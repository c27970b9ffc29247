import type { RunState } from '@agent-ledger/domain';
import { stepIdFor } from '@agent-ledger/domain';
import type { AgentDefinition } from '../agents/agent-definition';
import type { ConversationMessage } from '../models/conversation';

/**
 * The conversation a model sees before round `round`, rebuilt from the run's
 * recorded steps only: the agent's instructions, the run's input, then every
 * earlier round's tool calls and their recorded results. A retried run shows
 * the model exactly what it saw before. Tool call ids are the tool steps' ids.
 */
export function buildConversation(agent: AgentDefinition, state: RunState, round: number): ConversationMessage[] {
  const runId = state.runId ?? '';
  const messages: ConversationMessage[] = [
    { role: 'system', content: agent.instructions },
    { role: 'user', content: typeof state.input === 'string' ? state.input : JSON.stringify(state.input) },
  ];
  for (let r = 0; r < round; r++) {
    const response = state.steps.get(stepIdFor({ runId, round: r }))?.response;
    if (response === undefined) break;
    if (response.type === 'final') {
      messages.push({ role: 'assistant', content: response.content, toolCalls: [] });
      break;
    }
    const ids = response.calls.map((_, callIndex) => stepIdFor({ runId, round: r, callIndex }));
    messages.push({
      role: 'assistant',
      content: null,
      toolCalls: response.calls.map((call, i) => ({ id: ids[i] ?? '', toolName: call.toolName, arguments: call.arguments })),
    });
    response.calls.forEach((call, i) => {
      const step = state.steps.get(ids[i] ?? '');
      if (step?.status !== 'completed') return;
      const isError = step.outcome === 'failed';
      messages.push({
        role: 'tool',
        toolCallId: ids[i] ?? '',
        toolName: call.toolName,
        content: isError ? { error: step.error?.message ?? 'failed', failureClass: step.error?.failureClass ?? 'unknown' } : (step.result ?? null),
        isError,
        ...(step.denied === true ? { denied: true as const } : {}),
      });
    });
  }
  return messages;
}
