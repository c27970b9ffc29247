/**
 * The results of a run's tool calls, as `runs get` shows them: which calls
 * completed comes from the steps read model (`GET /runs/{runId}/steps`), what
 * each returned from the run's events (`GET /runs/{runId}/events`, its
 * `ToolExecuted`, or the `ApprovalDenied` of a call a person denied), the
 * read models holding no result.
 */
import type { AgentLedgerClient, StepRow } from '@agent-ledger/client';
import { AgentLedgerError } from '@agent-ledger/client';
import type { Principal } from '@agent-ledger/domain';
import { principalLabel } from '@agent-ledger/domain';
import type { ResultDisplay } from './event-format';
import { resultText, TERMINAL_EVENT_TYPES } from './event-format';
import { PROMPT_LOOKUP_TIMEOUT_MS, shortStep } from './waiting';

/** What one completed tool call of a run gave. */
export interface ToolCallResult {
  readonly stepId: string;
  readonly toolName: string;
  readonly outcome: 'succeeded' | 'failed' | 'denied';
  /** The recorded result (succeeded), the failure (failed) or the person's denial (denied); undefined when the events did not show it in time. */
  readonly recorded?: { readonly result?: unknown; readonly failure?: string; readonly denial?: string };
}

/**
 * The run's completed tool calls, by round then call, each with what its
 * events recorded. The events are read until every such call's event has
 * come, the run's last event has, or `timeoutMs` has passed (a call then has
 * no `recorded`). Null when the steps cannot be read (a refusal, a lost
 * connection): the caller shows the run without them.
 */
export async function toolResultsOf(client: AgentLedgerClient, runId: string, timeoutMs = PROMPT_LOOKUP_TIMEOUT_MS): Promise<ToolCallResult[] | null> {
  let steps: readonly StepRow[];
  try {
    steps = (await client.getSteps(runId)).steps;
  } catch (error) {
    if (error instanceof AgentLedgerError) return null;
    throw error;
  }
  const calls = steps.filter((s) => s.kind === 'tool' && s.status === 'completed' && (s.outcome === 'succeeded' || s.outcome === 'failed' || s.outcome === 'denied'));
  if (calls.length === 0) return [];
  const recorded = new Map<string, NonNullable<ToolCallResult['recorded']>>();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for await (const event of client.runEvents(runId, { signal, reconnect: { maxAttempts: 0 } })) {
      const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
      if (event.type === 'ToolExecuted' && typeof data.stepId === 'string') {
        recorded.set(data.stepId, data.outcome === 'succeeded' ? { result: data.result } : { failure: failureText(data.error) });
      } else if (event.type === 'ApprovalDenied' && Array.isArray(data.stepIds)) {
        const denial = `denied by ${typeof data.decidedBy === 'object' && data.decidedBy !== null ? principalLabel(data.decidedBy as Principal) : 'a person'}${typeof data.reason === 'string' ? `: ${data.reason}` : ''}; not executed`;
        for (const stepId of data.stepIds) if (typeof stepId === 'string') recorded.set(stepId, { denial });
      }
      if (TERMINAL_EVENT_TYPES.has(event.type) || calls.every((c) => recorded.has(c.stepId))) break;
    }
  } catch (error) {
    // Not read in time, or the stream broke off: the calls not seen are shown without their results.
    if (!(error instanceof AgentLedgerError)) throw error;
  }
  return calls.map((c) => {
    const found = recorded.get(c.stepId);
    return { stepId: c.stepId, toolName: c.toolName ?? '?', outcome: c.outcome as ToolCallResult['outcome'], ...(found === undefined ? {} : { recorded: found }) };
  });
}

/**
 * The lines `runs get` prints for the results: `r0/t0 files.read succeeded:
 * {"path":...}` (cut at 200 characters unless `display.full`), a failure's
 * class and message, a denial's who and why.
 */
export function toolResultLines(runId: string, results: readonly ToolCallResult[], display: ResultDisplay): string[] {
  return results.map((r) => {
    const head = `  ${shortStep(runId, r.stepId)} ${r.toolName} ${r.outcome}`;
    if (r.recorded === undefined) return `${head}: (not read from the run's events; agent-ledger events follow ${runId})`;
    if (r.recorded.denial !== undefined) return `${head}: ${r.recorded.denial}`;
    if (r.recorded.failure !== undefined) return `${head}: ${r.recorded.failure}`;
    return `${head}: ${resultText(r.recorded.result, display)}`;
  });
}

function failureText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'failed';
  const { failureClass, code, message } = error as { failureClass?: unknown; code?: unknown; message?: unknown };
  return `${String(failureClass ?? 'unknown')}${typeof code === 'string' ? `/${code}` : ''}: ${String(message ?? '')}`;
}
