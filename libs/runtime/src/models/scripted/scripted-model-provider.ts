import type { JsonObject, ModelResponse } from '@agent-ledger/domain';
import type { ScriptedRound } from '../../agents/agent-definition';
import type { ModelProvider, ModelRequest } from '../model-provider';

/**
 * The final answer a scripted agent gives for a round past the end of its
 * script. The run ends there, as with any final answer.
 */
export function scriptEndedAnswer(agent: string, round: number, rounds: number): string {
  return `The script of agent ${agent} has ${rounds} ${rounds === 1 ? 'round' : 'rounds'} and was asked for round ${round}: the script ended, so the run ends here.`;
}

/**
 * A model provider that plays a fixed script, for demos and tests: round N of
 * the script answers round N of the run (`toolCalls` become a `toolCalls`
 * response, `final` a final answer). It ignores the conversation and the
 * offered tools, so a retried run sees the same answers: deterministic, no I/O.
 *
 * Past the script's end (a script without a final round, or a run whose
 * rounds outnumber the script) it answers the final message of
 * {@link scriptEndedAnswer} rather than failing, so the run completes and its
 * record says why.
 *
 * It honours cancellation: an aborted `signal` rejects with the signal's reason.
 */
export class ScriptedModelProvider implements ModelProvider {
  constructor(private readonly script: readonly ScriptedRound[]) {}

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const round = this.script[request.round];
    if (round === undefined) {
      return { type: 'final', content: scriptEndedAnswer(request.agent, request.round, this.script.length) };
    }
    if ('final' in round) {
      return { type: 'final', content: round.final };
    }
    return {
      type: 'toolCalls',
      // The configuration loader checked that every argument is JSON data.
      calls: round.toolCalls.map((call) => ({ toolName: call.tool, arguments: call.arguments as JsonObject })),
    };
  }
}
