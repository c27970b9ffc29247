import type { AgentLedgerClient, ApprovalCall, ApprovalRow, ApprovalState } from '@agent-ledger/client';
import { APPROVAL_STATES } from '@agent-ledger/client';
import type { CliOutput } from './cli-output';
import { timeAndAge } from './age';
import { ExitCode, fields } from './cli-output';
import { clip } from './event-format';
import { UsageError } from './service-client';

export { APPROVAL_STATES };

/** `approvals list` options. */
export interface ApprovalListOptions {
  readonly state: string | undefined;
  readonly agent: string | undefined;
  readonly runId: string | undefined;
  /** Ms since the epoch or an ISO 8601 date-time, passed on as given (the service checks it). */
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly limit: string | undefined;
  readonly cursor: string | undefined;
  readonly json: boolean;
}

/** The longest arguments `approvals list` prints on a line; longer ones are clipped (`--json` prints them whole). */
export const ARGUMENTS_SHOWN_CHARS = 200;

/**
 * `approvals list`: `GET /approvals` with filters, one page, newest first.
 * For each request, when and why: its run, agent and model round, when it
 * was requested (ISO 8601 and its age at `now`), each call with its tool, the
 * effect its code declares and its arguments (clipped to
 * {@link ARGUMENTS_SHOWN_CHARS}), why it needs a person, what a denial does;
 * for a decided one, who decided, when and why. `--json` prints the
 * service's answer. The next page's cursor is printed last.
 */
export async function approvalsList(client: AgentLedgerClient, options: ApprovalListOptions, output: CliOutput, now: number = Date.now()): Promise<ExitCode> {
  const state = options.state?.toLowerCase();
  if (state !== undefined && !(APPROVAL_STATES as readonly string[]).includes(state)) {
    throw new UsageError(`--state must be one of ${APPROVAL_STATES.join(', ')} (got "${options.state}")`);
  }
  if (options.limit !== undefined && !/^\d+$/.test(options.limit)) throw new UsageError(`--limit must be a whole number (got "${options.limit}")`);
  const page = await client.listApprovals({
    state: state as ApprovalState | undefined,
    agent: options.agent,
    runId: options.runId,
    since: options.since,
    until: options.until,
    limit: options.limit === undefined ? undefined : Number(options.limit),
    cursor: options.cursor,
  });
  if (options.json) {
    output.out(JSON.stringify(page, null, 2));
    return ExitCode.OK;
  }
  if (page.approvals.length === 0) {
    output.out('No approvals.');
  } else {
    page.approvals.forEach((approval, i) => {
      if (i > 0) output.out('');
      for (const line of approvalLines(approval, now)) output.out(line);
    });
    if (page.approvals.some((a) => a.state === 'pending')) {
      output.out('');
      output.out('Decide: agent-ledger runs approve|deny <run> [--reason R] (one decision covers every call of the round)');
    }
  }
  if (page.nextCursor !== null) {
    output.out('');
    output.out(`More: --cursor ${page.nextCursor}`);
  }
  return ExitCode.OK;
}

/** One request for approval, for people: a title line, then when, each call and why, what a denial does, the decision. */
export function approvalLines(approval: ApprovalRow, now: number): string[] {
  const pairs: [string, string][] = [['requested', timeAndAge(approval.requestedAt, now)]];
  approval.calls.forEach((call) => {
    pairs.push([`call ${call.callIndex}`, `${call.toolName} (${call.effect}) ${argumentsOf(call)}`]);
    pairs.push(['  why', whyOf(call, approval.agent)]);
  });
  pairs.push(['on denial', approval.onDenial === 'tellModel' ? 'tellModel (the model is told; the run goes on)' : 'endRun (the run ends FAILED, APPROVAL_DENIED)']);
  const decided = decisionOf(approval, now);
  if (decided !== null) pairs.push(['decided', decided]);
  return [`${approval.approvalId}: ${approval.state}, run ${approval.runId}, agent ${approval.agent}, model round ${approval.round}`, ...fields(pairs).map((line) => `  ${line}`)];
}

/** The arguments as JSON on one line, clipped. */
function argumentsOf(call: ApprovalCall): string {
  const text = JSON.stringify(call.arguments);
  return text.length <= ARGUMENTS_SHOWN_CHARS ? text : `${clip(text, ARGUMENTS_SHOWN_CHARS)} (${text.length} characters; --json for all)`;
}

/** Why the call waits for a person. */
function whyOf(call: ApprovalCall, agent: string): string {
  return call.requirement === 'write'
    ? `a ${call.effect} that ${agent} does not pre-approve (approvals.preApproved in its agents file)`
    : `the tool asks for approval whatever its effect (requiresApproval in its code)`;
}

/** Who decided, when and why; null while pending. */
function decisionOf(approval: ApprovalRow, now: number): string | null {
  if (approval.state === 'pending') return null;
  const when = approval.decidedAt === null ? 'at an unknown time' : timeAndAge(approval.decidedAt, now);
  if (approval.state === 'cancelled') {
    return `cancelled ${when}: the run was settled while it waited${approval.reason === null ? '' : ` (${approval.reason})`}`;
  }
  return `${approval.state} by ${approval.decidedBy ?? 'unknown'} ${when}${approval.reason === null ? ', no reason given' : `: "${approval.reason}"`}`;
}
