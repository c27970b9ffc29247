import type { ApprovalPage, ApprovalRow, ListApprovalsQuery, ListRunsQuery, PagedList, PageCursor, ProjectionQueries, RunPage, RunStatusRow } from '@agent-ledger/projections';
import { encodePageCursor } from '@agent-ledger/projections';

/** A newest-first list of the read models, as the entitled listings see it. */
interface PagedListing<Q extends { readonly agent?: string; readonly limit?: number }, R> {
  readonly list: PagedList;
  /** One page of the list, unlimited by key. */
  page(query: Q): { readonly rows: readonly R[]; readonly nextCursor: string | null };
  /** The sort key of a row (`requestedAt`, then its id, both descending). */
  keyOf(row: R): PageCursor;
}

/**
 * A listing for a key limited to `agents`: the rows of those agents only, in
 * the same order and with the same cursor (the read model's own
 * `encodePageCursor`) as an unlimited listing. A filter on another agent
 * gives an empty page (its rows do not exist for this key). Several agents:
 * one page per agent, merged.
 */
function listEntitled<Q extends { readonly agent?: string; readonly limit?: number }, R>(
  listing: PagedListing<Q, R>,
  query: Q,
  agents: readonly string[],
): { rows: readonly R[]; nextCursor: string | null } {
  if (query.agent !== undefined) return agents.includes(query.agent) ? listing.page(query) : { rows: [], nextCursor: null };
  if (agents.length === 1) return listing.page({ ...query, agent: agents[0] });
  const limit = query.limit ?? 50;
  const pages = agents.map((agent) => listing.page({ ...query, agent, limit }));
  const newestFirst = (a: R, b: R): number => {
    const [x, y] = [listing.keyOf(a), listing.keyOf(b)];
    return y.requestedAt - x.requestedAt || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0);
  };
  const merged = pages.flatMap((page) => page.rows).sort(newestFirst);
  const rows = merged.slice(0, limit);
  const more = merged.length > limit || pages.some((page) => page.nextCursor !== null);
  const last = rows[rows.length - 1];
  return { rows, nextCursor: more && last !== undefined ? encodePageCursor(listing.list, listing.keyOf(last)) : null };
}

/** `GET /runs` for a key limited to `agents` (see {@link listEntitled}). */
export function listEntitledRuns(queries: ProjectionQueries, query: ListRunsQuery, agents: readonly string[]): RunPage {
  const { rows, nextCursor } = listEntitled<ListRunsQuery, RunStatusRow>(
    {
      list: 'listRuns',
      page: (q) => {
        const page = queries.listRuns(q);
        return { rows: page.runs, nextCursor: page.nextCursor };
      },
      keyOf: (run) => ({ requestedAt: run.requestedAt, id: run.runId }),
    },
    query,
    agents,
  );
  return { runs: rows, nextCursor };
}

/** `GET /approvals` for a key limited to `agents`: the requests of those agents' runs only (see {@link listEntitled}). */
export function listEntitledApprovals(queries: ProjectionQueries, query: ListApprovalsQuery, agents: readonly string[]): ApprovalPage {
  const { rows, nextCursor } = listEntitled<ListApprovalsQuery, ApprovalRow>(
    {
      list: 'listApprovals',
      page: (q) => {
        const page = queries.listApprovals(q);
        return { rows: page.approvals, nextCursor: page.nextCursor };
      },
      keyOf: (row) => ({ requestedAt: row.requestedAt, id: row.approvalId }),
    },
    query,
    agents,
  );
  return { approvals: rows, nextCursor };
}
