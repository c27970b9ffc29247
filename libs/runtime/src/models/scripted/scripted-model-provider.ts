import type { JsonObject, ModelResponse } from '@agent-ledger/domain';
import type { ScriptedRound } from '../../agents/agent-definition';
import type { ModelProvider, ModelRequest } from '../model-provider';
import { ScriptEndedError } from './script-ended.error';

/**
 * A model provider that plays a fixed script, for demos and tests: round N of
 * the script answers round N of the run (`toolCalls` become a `toolCalls`
 * response, `final` a final answer). It ignores the conversation and the
 * offered tools, so a retried run sees the same answers: deterministic, no I/O.
 *
 * Past the script's end (a script without a final round, or a run whose
 * rounds outnumber the script) it throws {@link ScriptEndedError}, naming the
 * agent and the round: the run fails with a configuration error rather than
 * completing with an answer nobody wrote.
 *
 * It honours cancellation: an aborted `signal` rejects with the signal's reason.
 */
export class ScriptedModelProvider implements ModelProvider {
  constructor(private readonly script: readonly ScriptedRound[]) {}

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const round = this.script[request.round];
    if (round === undefined) {
      throw new ScriptEndedError(request.agent, request.round, this.script.length);
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
