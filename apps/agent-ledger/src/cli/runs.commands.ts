import type { AgentLedgerClient, PendingApproval, PendingInput, RunResumeAnswer, RunStatus, RunStatusRow as RunRow, RunView } from '@agent-ledger/client';
import { RUN_STATUSES, TERMINAL_RUN_STATUSES } from '@agent-ledger/client';
import type { CliOutput } from './cli-output';
import { ExitCode, fields, table } from './cli-output';
import { clip, previewText } from './event-format';
import { UsageError } from './service-client';
import type { ToolCallResult } from './tool-results';
import { toolResultLines, toolResultsOf } from './tool-results';
import { pendingApprovalsOf, pendingInputOf, shortStep, toolsOf } from './waiting';

/** `runs list` looks up the prompts of at most this many runs waiting for input on a page (one event stream each). */
const LIST_PROMPT_LOOKUPS = 20;

export { RUN_STATUSES };

/** `runs start` options. */
export interface StartOptions {
  readonly agent: string;
  readonly input: string;
  readonly mode: 'queued' | 'interactive';
  readonly idempotencyKey: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
}

/**
 * `--input`: JSON when the text is valid JSON (`{"task":"x"}`, `42`,
 * `"quoted"`), otherwise the text itself.
 */
export function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `runs start`: `POST /runs`. Exit 0 for a queued run (recorded), and for an
 * interactive run that completed; 1 for an interactive run that settled
 * otherwise (failed, cancelled) or did not settle in its segment.
 */
export async function runsStart(client: AgentLedgerClient, options: StartOptions, output: CliOutput): Promise<ExitCode> {
  const result = await client.startRun({
    agent: options.agent,
    input: parseInput(options.input),
    mode: options.mode,
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
  });
  if (options.json) output.out(JSON.stringify(result, null, 2));
  else if (options.quiet) output.out(result.runId);
  if (result.mode === 'queued') {
    if (!options.json && !options.quiet) {
      for (const line of fields([
        ['run', result.runId],
        ['mode', 'queued'],
        ['status', result.status],
        ['replayed', result.replayed ? 'yes: this idempotency key started it before; nothing new was started' : 'no'],
      ]))
        output.out(line);
      output.out('');
      output.out(`Follow it: agent-ledger events follow ${result.runId}`);
    }
    return ExitCode.OK;
  }
  if (!options.json && !options.quiet) {
    printRunView(result.run, output, [
      ['segment', result.segment ?? '-'],
      ['replayed', result.replayed ? 'yes' : 'no'],
    ]);
  }
  return result.run.status === 'COMPLETED' ? ExitCode.OK : ExitCode.FINDINGS;
}

/**
 * `runs get <runId> [--full]`: `GET /runs/{runId}` (the run-status read
 * model), then each completed tool call with its result (cut at 200
 * characters unless `--full`), its failure or its denial
 * ({@link toolResultsOf}), then what a waiting run waits for.
 */
export async function runsGet(client: AgentLedgerClient, runId: string, options: { json: boolean; full?: boolean }, output: CliOutput): Promise<ExitCode> {
  const row = await client.getRun(runId);
  if (options.json) {
    output.out(JSON.stringify(row, null, 2));
    return ExitCode.OK;
  }
  const failure = row.failureClass === null ? '-' : `${row.failureClass}${row.failureCode === null ? '' : `/${row.failureCode}`}: ${row.failureMessage ?? ''}`;
  for (const line of fields([
    ['run', row.runId],
    ['agent', row.agent],
    ['mode', row.mode],
    // An older service's row has no startedBy; one written before starts were recorded holds null until rebuilt.
    ['started by', typeof row.startedBy === 'string' ? row.startedBy : '-'],
    ['status', row.status],
    ['reason', row.reason ?? '-'],
    ['dead-lettered', row.deadLettered === null ? '-' : yesNo(row.deadLettered)],
    ['failure', failure],
    ['attempts', String(row.attempts)],
    ['requeues', String(row.requeues)],
    ['steps', String(row.stepsTotal)],
    ['current step', row.currentStepId ?? '-'],
    ['write in flight', row.inFlightStepId ?? '-'],
    ['lease owner', row.leaseOwner ?? '-'],
    ['cancel requested', row.cancelRequested ? `yes (by ${row.cancelRequestedBy ?? '?'})` : 'no'],
    ['audit gaps', String(row.auditGaps)],
    ['requested', time(row.requestedAt)],
    ['settled', row.settledAt === null ? '-' : time(row.settledAt)],
    // The model's final answer, once the run completed (an older service's row has no finalAnswer).
    ...(typeof row.finalAnswer !== 'string' ? [] : [['answer', previewText(row.finalAnswer, { full: options.full === true })] as const]),
    // An older service's row has no waitingSince at all.
    ...(typeof row.waitingSince !== 'number' ? [] : [['waiting since', time(row.waitingSince)] as const]),
  ]))
    output.out(line);
  if (row.stepsTotal > 0) printToolResults(row.runId, await toolResultsOf(client, row.runId), options.full === true, output);
  if (row.status === 'WAITING_FOR_APPROVAL') printPendingApproval(row, (await pendingApprovalsOf(client, [row]))?.get(row.runId) ?? null, output);
  if (row.status === 'WAITING_FOR_INPUT') printPendingInput(row, await pendingInputOf(client, row), output);
  return ExitCode.OK;
}

/** The run's tool results (none: nothing), or a line saying they could not be read. */
function printToolResults(runId: string, results: readonly ToolCallResult[] | null, full: boolean, output: CliOutput): void {
  if (results !== null && results.length === 0) return;
  output.out('');
  if (results === null) {
    output.out(`Tool results: not available (the steps could not be read; agent-ledger events follow ${runId})`);
    return;
  }
  output.out('Tool results:');
  for (const line of toolResultLines(runId, results, { full })) output.out(line);
}

/**
 * What a `WAITING_FOR_APPROVAL` run waits for: each call with its tool,
 * effect and arguments exactly as the model asked for them, and how to decide.
 */
function printPendingApproval(row: RunRow, pending: PendingApproval | null, output: CliOutput): void {
  output.out('');
  if (pending === null) {
    output.out(`Waiting for approval of round ${row.approvalRound ?? '?'} (its calls: agent-ledger approvals list --run-id ${row.runId} --json).`);
  } else {
    output.out(`Waiting for approval of round ${pending.round} (requested ${time(pending.requestedAt)}; a denial: ${pending.onDenial}):`);
    const rows = pending.calls.map((c) => [shortStep(row.runId, c.stepId), c.toolName, c.effect, c.requirement, JSON.stringify(c.arguments)]);
    for (const line of table(['step', 'tool', 'effect', 'needs', 'arguments'], rows)) output.out(line);
  }
  output.out('');
  output.out(`Decide: agent-ledger runs approve ${row.runId}   or   agent-ledger runs deny ${row.runId} --reason '...'`);
}

/** What a `WAITING_FOR_INPUT` run waits for: the tool's prompt, and how to answer. */
function printPendingInput(row: RunRow, pending: PendingInput | null, output: CliOutput): void {
  output.out('');
  if (pending === null) {
    output.out(`Waiting for input at step ${row.inputStepId === null ? '?' : shortStep(row.runId, row.inputStepId)} (its prompt: agent-ledger events follow ${row.runId}).`);
  } else {
    output.out(`Waiting for input: ${pending.toolName} (step ${shortStep(row.runId, pending.stepId)}, asked ${time(pending.requestedAt)}) asks:`);
    output.out(`  ${pending.prompt}`);
  }
  output.out('');
  output.out(`Answer: agent-ledger runs input ${row.runId} --input '<JSON>'`);
}

/** `runs list` options. */
export interface ListOptions {
  readonly status: string | undefined;
  readonly agent: string | undefined;
  readonly limit: string | undefined;
  readonly cursor: string | undefined;
  readonly json: boolean;
}

/** `runs list`: `GET /runs` with filters, one page; the next page's cursor is printed below the table. */
export async function runsList(client: AgentLedgerClient, options: ListOptions, output: CliOutput): Promise<ExitCode> {
  if (options.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(options.status.toUpperCase())) {
    throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')} (got "${options.status}")`);
  }
  if (options.limit !== undefined && !/^\d+$/.test(options.limit)) throw new UsageError(`--limit must be a whole number (got "${options.limit}")`);
  const page = await client.listRuns({
    status: options.status === undefined ? undefined : (options.status.toUpperCase() as RunStatus),
    agent: options.agent,
    limit: options.limit === undefined ? undefined : Number(options.limit),
    cursor: options.cursor,
  });
  if (options.json) {
    output.out(JSON.stringify(page, null, 2));
    return ExitCode.OK;
  }
  if (page.runs.length === 0) {
    output.out('No runs.');
  } else {
    const waiting = page.runs.filter((r) => r.status === 'WAITING_FOR_APPROVAL' || r.status === 'WAITING_FOR_INPUT');
    const forApproval = waiting.filter((r) => r.status === 'WAITING_FOR_APPROVAL');
    const forInput = waiting.filter((r) => r.status === 'WAITING_FOR_INPUT').slice(0, LIST_PROMPT_LOOKUPS);
    const [approvals, inputs] = await Promise.all([
      forApproval.length === 0 ? null : pendingApprovalsOf(client, forApproval),
      Promise.all(forInput.map(async (r) => [r.runId, await pendingInputOf(client, r)] as const)),
    ]);
    const prompts = new Map(inputs);
    const rows = page.runs.map((r) => {
      const row = [r.runId, r.agent, r.mode, r.status, r.reason ?? '-', String(r.attempts), String(r.stepsTotal), time(r.requestedAt)];
      return waiting.length === 0 ? row : [...row, waitingFor(r, approvals?.get(r.runId) ?? null, prompts.get(r.runId) ?? null)];
    });
    const headers = ['run', 'agent', 'mode', 'status', 'reason', 'attempts', 'steps', 'requested'];
    for (const line of table(waiting.length === 0 ? headers : [...headers, 'waiting for'], rows)) output.out(line);
  }
  if (page.nextCursor !== null) {
    output.out('');
    output.out(`More: --cursor ${page.nextCursor}`);
  }
  return ExitCode.OK;
}

/** The `waiting for` cell of `runs list`: the tools waiting for approval, or the tool waiting for input and its prompt. */
function waitingFor(row: RunRow, approval: PendingApproval | null, input: PendingInput | null): string {
  if (row.status === 'WAITING_FOR_APPROVAL') return `approval: ${approval === null ? `round ${row.approvalRound ?? '?'}` : toolsOf(approval.calls)}`;
  if (row.status === 'WAITING_FOR_INPUT') {
    if (input !== null) return `input: ${input.toolName} asks ${JSON.stringify(clip(input.prompt, 60))}`;
    return `input: step ${row.inputStepId === null ? '?' : shortStep(row.runId, row.inputStepId)}`;
  }
  return '-';
}

/**
 * `runs cancel <runId> [--reason R]`: `POST /runs/{runId}/cancel`. A settled
 * run is refused (409, exit 4). Who asks is the CLI's API key, as the service
 * authenticated it (`development` without keys): the body only gives a reason.
 */
export async function runsCancel(client: AgentLedgerClient, runId: string, options: { reason: string | undefined; json: boolean }, output: CliOutput): Promise<ExitCode> {
  const answer = await client.cancelRun(runId, { reason: options.reason });
  if (options.json) {
    output.out(JSON.stringify(answer, null, 2));
  } else if (answer.run.status !== null && (TERMINAL_RUN_STATUSES as readonly string[]).includes(answer.run.status)) {
    // Settled at once (200): the run was not executing. A running one (202) stops at its next step boundary.
    output.out(`Run ${runId} cancelled (status ${answer.run.status ?? '-'}).`);
  } else {
    output.out(`Run ${runId}: cancel requested. It is running; it stops at its next step boundary (its model or tool call is aborted).`);
    output.out(`Watch it: agent-ledger events follow ${runId}`);
  }
  return ExitCode.OK;
}

/**
 * `runs requeue <runId> [--reason R] [--write-executed NOTE | --write-not-executed NOTE] [-q]`:
 * `POST /runs/{runId}/requeue`; `quiet` prints the continuation run's id only. Refusals (not dead-lettered, requeued already,
 * a non-idempotent write in flight without a statement) are exit 4. Who
 * requeues is the CLI's API key.
 */
export async function runsRequeue(
  client: AgentLedgerClient,
  runId: string,
  options: { reason: string | undefined; resolution: { outcome: 'executed' | 'notExecuted'; note: string } | undefined; json: boolean; quiet?: boolean },
  output: CliOutput,
): Promise<ExitCode> {
  const answer = await client.requeueRun(runId, { reason: options.reason, resolution: options.resolution });
  if (options.json) {
    output.out(JSON.stringify(answer, null, 2));
  } else if (options.quiet === true) {
    output.out(answer.continuationRunId);
  } else {
    output.out(`Run ${runId} requeued: it stays FAILED; run ${answer.continuationRunId} continues it.`);
    output.out(`Watch it: agent-ledger events follow ${answer.continuationRunId}`);
  }
  return ExitCode.OK;
}

/** Says on standard error that a decision's statement is not stored yet: it took effect, and nothing it allows happens before the statement is stored. */
function warnIfStatementPending(answer: RunResumeAnswer, output: CliOutput): void {
  if (answer.auditStatement !== 'pending') return;
  output.err(
    'Warning: it took effect on the run, but its statement could not be stored in the audit trail yet; nothing it allows happens before it is stored (or the run fails closed). Do not send it again.',
  );
}

/** `runs approve|deny` options. */
export interface DecideOptions {
  readonly decision: 'approve' | 'deny';
  readonly reason: string | undefined;
  /** The model round the decision is for; the service refuses it for another round (`APPROVAL_ROUND_MISMATCH`). */
  readonly round: number | undefined;
  readonly json: boolean;
}

/**
 * `runs approve <runId>` / `runs deny <runId>` `[--reason R] [--round N]`:
 * `POST /runs/{runId}/approval`. Who decided is the API key's id (the
 * service's, not the command line's). Refusals are exit 4: not waiting
 * (`RUN_NOT_WAITING_FOR_APPROVAL`), settled (`RUN_ALREADY_SETTLED`), another
 * round (`APPROVAL_ROUND_MISMATCH`). A decision whose statement the audit
 * trail could not store yet (`auditStatement: pending`) took effect: exit 0,
 * with a warning on standard error.
 */
export async function runsDecide(client: AgentLedgerClient, runId: string, options: DecideOptions, output: CliOutput): Promise<ExitCode> {
  const answer = await client.decideApproval(runId, {
    decision: options.decision,
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.round === undefined ? {} : { round: options.round }),
  });
  warnIfStatementPending(answer, output);
  if (options.json) {
    output.out(JSON.stringify(answer, null, 2));
    return ExitCode.OK;
  }
  const run = answer.run;
  const status = answer.status ?? run.status ?? '-';
  const settled = run.reason !== null ? `, reason ${run.reason}` : '';
  output.out(`Run ${runId} ${options.decision === 'approve' ? 'approved' : 'denied'}: status ${status}${settled}.`);
  if (run.reason === null) output.out(`Watch it: agent-ledger events follow ${runId}`);
  return ExitCode.OK;
}

/**
 * `runs input <runId> --input JSON`: `POST /runs/{runId}/input`, the answer
 * to the prompt of a tool (`user.ask`) of a `WAITING_FOR_INPUT` run. A run
 * that does not wait for input is refused (`RUN_NOT_WAITING_FOR_INPUT`, exit 4).
 */
export async function runsInput(client: AgentLedgerClient, runId: string, options: { input: unknown; json: boolean }, output: CliOutput): Promise<ExitCode> {
  const answer = await client.submitInput(runId, options.input);
  warnIfStatementPending(answer, output);
  if (options.json) {
    output.out(JSON.stringify(answer, null, 2));
    return ExitCode.OK;
  }
  output.out(`Run ${runId}: input submitted; status ${answer.status ?? answer.run.status ?? '-'}.`);
  if (answer.run.reason === null) output.out(`Watch it: agent-ledger events follow ${runId}`);
  return ExitCode.OK;
}

/** `--input` of `runs input`: JSON, strictly (a text is `'"a text"'`). */
export function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${name} must be JSON, e.g. '"notes.txt"' or '{"file":"notes.txt"}' (${error instanceof Error ? error.message : String(error)})`);
  }
}

function printRunView(run: RunView, output: CliOutput, extra: readonly (readonly [string, string])[]): void {
  for (const line of fields([
    ['run', run.runId],
    ['agent', run.agent ?? '-'],
    ['mode', run.mode ?? '-'],
    ['started by', typeof run.startedBy === 'string' ? run.startedBy : '-'],
    ['status', run.status ?? '-'],
    ['reason', run.reason ?? '-'],
    ['dead-lettered', run.deadLettered === null ? '-' : yesNo(run.deadLettered)],
    ['attempts', String(run.attempts)],
    ...extra,
    ['answer', run.answer ?? '-'],
  ]))
    output.out(line);
  if (run.steps.length > 0) {
    output.out('');
    const rows = run.steps.map((s) => [s.stepId, s.kind, s.toolName ?? '-', s.effect ?? '-', s.status, s.outcome ?? '-']);
    for (const line of table(['step', 'kind', 'tool', 'effect', 'status', 'outcome'], rows)) output.out(line);
  }
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

function time(ms: number): string {
  return new Date(ms).toISOString();
}
