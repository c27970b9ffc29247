import type { ApprovalPage, ListApprovalsQuery, ListRunsQuery, ProjectionQueries, RunPage } from '@agent-ledger/projections';
import { encodePageCursor } from '@agent-ledger/projections';

/**
 * `GET /runs` for a key limited to `agents`: the runs of those agents only,
 * in the same order and with the same cursor (the read model's own
 * `encodePageCursor`) as an unlimited listing. A
 * filter on another agent gives an empty page (its runs do not exist for this
 * key). Several agents: one page per agent, merged.
 */
export function listEntitledRuns(queries: ProjectionQueries, query: ListRunsQuery, agents: readonly string[]): RunPage {
  if (query.agent !== undefined) return agents.includes(query.agent) ? queries.listRuns(query) : { runs: [], nextCursor: null };
  if (agents.length === 1) return queries.listRuns({ ...query, agent: agents[0] });
  const limit = query.limit ?? 50;
  const pages = agents.map((agent) => queries.listRuns({ ...query, agent, limit }));
  const merged = pages
    .flatMap((page) => page.runs)
    .sort((a, b) => b.requestedAt - a.requestedAt || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
  const runs = merged.slice(0, limit);
  const more = merged.length > limit || pages.some((page) => page.nextCursor !== null);
  const last = runs[runs.length - 1];
  return { runs, nextCursor: more && last !== undefined ? encodePageCursor('listRuns', { requestedAt: last.requestedAt, id: last.runId }) : null };
}

/**
 * `GET /approvals` for a key limited to `agents`, exactly as
 * {@link listEntitledRuns} for `GET /runs`: the requests of those agents'
 * runs only, in the same order and with the same cursor as an unlimited
 * listing; a filter on another agent gives an empty page; several agents,
 * one page per agent, merged.
 */
export function listEntitledApprovals(queries: ProjectionQueries, query: ListApprovalsQuery, agents: readonly string[]): ApprovalPage {
  if (query.agent !== undefined) return agents.includes(query.agent) ? queries.listApprovals(query) : { approvals: [], nextCursor: null };
  if (agents.length === 1) return queries.listApprovals({ ...query, agent: agents[0] });
  const limit = query.limit ?? 50;
  const pages = agents.map((agent) => queries.listApprovals({ ...query, agent, limit }));
  const merged = pages
    .flatMap((page) => page.approvals)
    .sort((a, b) => b.requestedAt - a.requestedAt || (a.approvalId < b.approvalId ? 1 : a.approvalId > b.approvalId ? -1 : 0));
  const approvals = merged.slice(0, limit);
  const more = merged.length > limit || pages.some((page) => page.nextCursor !== null);
  const last = approvals[approvals.length - 1];
  return { approvals, nextCursor: more && last !== undefined ? encodePageCursor('listApprovals', { requestedAt: last.requestedAt, id: last.approvalId }) : null };
}
