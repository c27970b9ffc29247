import type { AgentLedgerClient, ApprovalState } from '@agent-ledger/client';
import { APPROVAL_STATES } from '@agent-ledger/client';
import type { CliOutput } from './cli-output';
import { ExitCode, table } from './cli-output';
import { UsageError } from './service-client';
import { toolsOf } from './waiting';

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

/**
 * `approvals list`: `GET /approvals` with filters, one page, newest first:
 * a table (request, run, agent, state, the tools and their effects, when it
 * was requested, who decided) or the service's answer (`--json`, with each
 * call's arguments). The next page's cursor is printed below the table.
 */
export async function approvalsList(client: AgentLedgerClient, options: ApprovalListOptions, output: CliOutput): Promise<ExitCode> {
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
    const rows = page.approvals.map((a) => [a.approvalId, a.runId, a.agent, a.state, toolsOf(a.calls), new Date(a.requestedAt).toISOString(), a.decidedBy ?? '-']);
    for (const line of table(['approval', 'run', 'agent', 'state', 'tools', 'requested', 'decided by'], rows)) output.out(line);
    if (page.approvals.some((a) => a.state === 'pending')) {
      output.out('');
      output.out('The arguments: agent-ledger runs get <run> (or --json here). Decide: agent-ledger runs approve|deny <run> [--reason R]');
    }
  }
  if (page.nextCursor !== null) {
    output.out('');
    output.out(`More: --cursor ${page.nextCursor}`);
  }
  return ExitCode.OK;
}
