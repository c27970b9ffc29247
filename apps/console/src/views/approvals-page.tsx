import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { LatestOnly } from './latest-only';
import type { ApprovalPage, ApprovalState } from '@agent-ledger/client';
import { useSession } from '../auth/session';
import { EffectBadge } from '../components/badges';
import { ErrorBanner } from '../components/error-banner';
import { LiveIndicator } from '../components/live-indicator';
import { formatTime } from '../components/format';
import { hashOf } from '../routing/route';
import { DecisionButtons } from './decision-buttons';
import { useLiveRefresh } from './use-live';

const STATES = ['pending', 'approved', 'denied', 'cancelled'] as const;

/**
 * The approvals inbox: requests for approval (pending first by default),
 * each with its calls, their effects and arguments; approve or deny with
 * `runs:approve`. Refreshed live.
 */
export function ApprovalsPage() {
  const { client, can } = useSession();
  const [state, setState] = useState<string>('pending');
  const [page, setPage] = useState<ApprovalPage | null>(null);
  const [error, setError] = useState<unknown>(null);

  const answers = useMemo(() => new LatestOnly(), []);
  const load = useCallback(() => {
    answers.track(
      client.listApprovals({ limit: 100, state: state === '' ? undefined : (state as ApprovalState) }),
      (answer) => {
        setPage(answer);
        setError(null);
      },
      setError,
    );
  }, [client, answers, state]);
  useEffect(load, [load]);
  const live = useLiveRefresh(can.streamAllRuns ? 'allRuns' : null, load);

  const approvals = page?.approvals ?? [];
  return (
    <section>
      <div class="title-row">
        <h1>Approvals</h1>
        <LiveIndicator live={live} offline={can.streamAllRuns ? 'connecting…' : 'polling every 3 s'} />
      </div>
      {can.approve ? null : <p class="hint">This key may read requests but not decide (it lacks runs:approve).</p>}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select data-testid="filter-approval-state" value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorBanner error={error} />
      {approvals.length === 0 ? (
        <p class="empty" data-testid="approvals-empty">
          Nothing here.
        </p>
      ) : (
        <table data-testid="approvals-table">
          <thead>
            <tr>
              <th>Run</th>
              <th>Agent</th>
              <th>Round</th>
              <th>Calls</th>
              <th>Requested</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {approvals.map((a) => (
              <tr key={a.approvalId} data-testid="approval-row" data-run-id={a.runId} data-state={a.state}>
                <td>
                  <a class="mono" href={hashOf({ page: 'run', runId: a.runId })}>
                    {a.runId}
                  </a>
                </td>
                <td>{a.agent}</td>
                <td class="num">{a.round}</td>
                <td>
                  <ul class="calls">
                    {a.calls.map((c) => (
                      <li key={c.stepId}>
                        <strong>{c.toolName}</strong> <EffectBadge effect={c.effect} /> <code>{JSON.stringify(c.arguments)}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{formatTime(a.requestedAt)}</td>
                <td>
                  {a.state}
                  {a.decidedBy === null ? null : <span class="hint"> by {a.decidedBy}</span>}
                </td>
                <td>{a.state === 'pending' && can.approve ? <DecisionButtons runId={a.runId} round={a.round} testIds={{ approve: 'approve', deny: 'deny' }} onDecided={load} /> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
