import { ConfigurationError } from '@agent-ledger/domain';
import type { JsonObject, JsonValue, ModelResponse } from '@agent-ledger/domain';
import type { ScriptedRound } from '../../agents/agent-definition';
import type { ConversationMessage } from '../conversation';
import type { ModelProvider, ModelRequest } from '../model-provider';
import { ScriptEndedError } from './script-ended.error';
import { ScriptPlaceholderError } from './script-placeholder.error';
import type { RecordedCall } from './script-template';
import { fillPlaceholder, parseScriptTemplate, scriptTemplateIssues } from './script-template';

/**
 * A model provider that plays a fixed script, for demos and tests: round N of
 * the script answers round N of the run (`toolCalls` become a `toolCalls`
 * response, `final` a final answer). It does no I/O and a retried run sees the
 * same answers: deterministic.
 *
 * Its texts (a final answer, the strings of a call's arguments) may hold
 * placeholders, filled from the conversation (the calls' recorded results
 * and outcomes): `{{result:files.read/content}}`, `{{outcome:files.append}}`,
 * `{{error:2.0}}`. A final round's `finalIfDenied` answers instead of `final`
 * when a person denied a call of the run, its `finalIfFailed` when a call
 * failed. A placeholder that cannot be filled throws
 * {@link ScriptPlaceholderError} (naming the agent, the round and the
 * placeholder): never an answer with the placeholder left in.
 *
 * Past the script's end (a script without a final round, or a run whose
 * rounds outnumber the script) it throws {@link ScriptEndedError}, naming the
 * agent and the round: the run fails with a configuration error rather than
 * completing with an answer nobody wrote.
 *
 * It honours cancellation: an aborted `signal` rejects with the signal's reason.
 */
export class ScriptedModelProvider implements ModelProvider {
  /**
   * @throws ConfigurationError when a placeholder is malformed, unknown, or
   *   refers to a call no earlier round of the script makes.
   */
  constructor(private readonly script: readonly ScriptedRound[]) {
    const issues = scriptTemplateIssues(script);
    if (issues.length > 0) {
      throw new ConfigurationError(`The script is invalid: ${issues.map((issue) => `script${issue.path} ${issue.message}`).join('; ')}`);
    }
  }

  async respond(request: ModelRequest): Promise<ModelResponse> {
    request.signal.throwIfAborted();
    const round = this.script[request.round];
    if (round === undefined) {
      throw new ScriptEndedError(request.agent, request.round, this.script.length);
    }
    const calls = recordedCalls(request.messages);
    const fill = (text: string): string => fillText(text, calls, request);
    if ('final' in round) {
      const denied = calls.some((call) => call.outcome === 'denied');
      const failed = calls.some((call) => call.outcome === 'failed');
      const chosen = (denied ? round.finalIfDenied : undefined) ?? (failed && !denied ? round.finalIfFailed : undefined) ?? round.final;
      return { type: 'final', content: fill(chosen) };
    }
    return {
      type: 'toolCalls',
      // The configuration loader checked that every argument is JSON data.
      calls: round.toolCalls.map((call) => ({ toolName: call.tool, arguments: fillStrings(call.arguments as JsonObject, fill) as JsonObject })),
    };
  }
}

function fillText(text: string, calls: readonly RecordedCall[], request: ModelRequest): string {
  const template = parseScriptTemplate(text);
  // The constructor refused every malformed placeholder.
  if ('problem' in template) throw new ConfigurationError(`The script of agent ${request.agent}, round ${request.round}: ${template.problem}`);
  return template
    .map((part) => {
      if (typeof part === 'string') return part;
      const filled = fillPlaceholder(part, calls);
      if ('problem' in filled) throw new ScriptPlaceholderError(request.agent, request.round, part.text, filled.problem);
      return filled.value;
    })
    .join('');
}

function fillStrings(value: JsonValue, fill: (text: string) => string): JsonValue {
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((item) => fillStrings(item, fill));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, fillStrings(child, fill)]));
  return value;
}

/** The conversation's tool calls, round by round (each assistant message is a round), with what their results say. */
function recordedCalls(messages: readonly ConversationMessage[]): RecordedCall[] {
  const results = new Map<string, Extract<ConversationMessage, { role: 'tool' }>>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, message);
  const calls: RecordedCall[] = [];
  let round = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    message.toolCalls.forEach((call, callIndex) => {
      const result = results.get(call.id);
      calls.push({
        toolName: call.toolName,
        round,
        callIndex,
        outcome: result === undefined ? null : result.denied === true ? 'denied' : result.isError ? 'failed' : 'succeeded',
        content: result?.content ?? null,
      });
    });
    round++;
  }
  return calls;
}
