/**
 * What a waiting run waits for, as the CLI finds it out: the run-status row
 * (`GET /runs/...`) says that a run waits and since when, and the CLI asks
 * for the rest: the calls waiting for approval from `GET /approvals`, the
 * prompt of a tool waiting for input from the run's events (its
 * `InputRequested`).
 */
import type { AgentLedgerClient, ApprovalCall, PendingApproval, PendingInput, RunStatusRow } from '@agent-ledger/client';
import { AgentLedgerApiError, AgentLedgerError } from '@agent-ledger/client';

/** How long the CLI reads a run's events for the prompt it waits on before it gives up and shows the step only. */
export const PROMPT_LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The pending requests for approval of these runs, by run, from one
 * `GET /approvals?state=pending` (filtered by run when there is one run).
 * Null when the service refuses the query (a key without `runs:read` on
 * approvals, an older service): the caller then shows less.
 */
export async function pendingApprovalsOf(client: AgentLedgerClient, runs: readonly RunStatusRow[]): Promise<Map<string, PendingApproval> | null> {
  const only = runs.length === 1 ? runs[0] : undefined;
  try {
    const page = await client.listApprovals(only !== undefined ? { state: 'pending', runId: only.runId } : { state: 'pending', limit: 1000 });
    const found = new Map<string, PendingApproval>();
    for (const a of page.approvals) if (!found.has(a.runId)) found.set(a.runId, { round: a.round, calls: a.calls, onDenial: a.onDenial, requestedAt: a.requestedAt });
    return found;
  } catch (error) {
    if (error instanceof AgentLedgerApiError && error.status < 500) return null;
    throw error;
  }
}

/**
 * The input a `WAITING_FOR_INPUT` run waits for: the run's `InputRequested`
 * for the row's step and time, read from `GET /runs/{runId}/events` (its
 * history comes first). Null when it cannot be read in
 * {@link PROMPT_LOOKUP_TIMEOUT_MS}, is refused, or the connection fails
 * (not retried): the caller shows the step only.
 */
export async function pendingInputOf(client: AgentLedgerClient, row: RunStatusRow, timeoutMs = PROMPT_LOOKUP_TIMEOUT_MS): Promise<PendingInput | null> {
  if (row.inputStepId === null) return null;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for await (const event of client.runEvents(row.runId, { signal, reconnect: { maxAttempts: 0 } })) {
      const data = event.data as Partial<PendingInput> | null;
      if (event.type === 'InputRequested' && data?.stepId === row.inputStepId && (row.waitingSince === null || data.requestedAt === row.waitingSince)) {
        return { stepId: row.inputStepId, round: data.round ?? 0, callIndex: data.callIndex ?? 0, toolName: String(data.toolName), prompt: String(data.prompt), requestedAt: data.requestedAt ?? 0 };
      }
    }
    // The signal ended the iteration: not found in time.
    return null;
  } catch (error) {
    if (error instanceof AgentLedgerError) return null;
    throw error;
  }
}

/** `r2/t0` for `<runId>/r2/t0`. */
export function shortStep(runId: string, stepId: string): string {
  return stepId.startsWith(`${runId}/`) ? stepId.slice(runId.length + 1) : stepId;
}

/** `files.append (NON_IDEMPOTENT_WRITE)`, for each call. */
export function toolsOf(calls: readonly ApprovalCall[]): string {
  return calls.map((c) => `${c.toolName} (${c.effect})`).join(', ');
}
