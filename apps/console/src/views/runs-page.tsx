import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { LatestOnly } from './latest-only';
import type { AgentSummary as AgentInfo, RunPage as RunPageAnswer, RunStatus, RunStatusRow as RunRow, TerminationReason } from '@agent-ledger/client';
import { RUN_STATUSES } from '@agent-ledger/client';
import { useSession } from '../auth/session';
import { EffectBadge, StatusBadge } from '../components/badges';
import { ErrorBanner } from '../components/error-banner';
import { LiveIndicator } from '../components/live-indicator';
import { formatTime } from '../components/format';
import { hashOf } from '../routing/route';
import { toolSourceLabel } from '../tools/tool-source-label';
import { useLiveRefresh } from './use-live';

const PAGE_SIZE = 25;

interface Filters {
  readonly status: string;
  readonly agent: string;
  readonly reason: string;
  /** `datetime-local` values (the browser's time zone), '' for none. */
  readonly since: string;
  readonly until: string;
}

/**
 * The runs list: filters, cursor pages, newest first, refreshed live from
 * `GET /events` (new events only); a key limited to some agents polls. With
 * `runs:submit`, a form starts a run.
 */
export function RunsPage() {
  const { client, can } = useSession();
  const [filters, setFilters] = useState<Filters>({ status: '', agent: '', reason: '', since: '', until: '' });
  const [cursors, setCursors] = useState<readonly (string | null)[]>([null]);
  const [page, setPage] = useState<RunPageAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const cursor = cursors[cursors.length - 1] ?? null;

  const answers = useMemo(() => new LatestOnly(), []);
  const load = useCallback(() => {
    const at = (bound: 'since' | 'until') => {
      const ms = filters[bound] === '' ? NaN : new Date(filters[bound]).getTime();
      return Number.isNaN(ms) ? undefined : ms;
    };
    answers.track(
      client.listRuns({
        limit: PAGE_SIZE,
        status: filters.status === '' ? undefined : (filters.status as RunStatus),
        agent: filters.agent.trim() === '' ? undefined : filters.agent.trim(),
        // Checked by the service: an unknown reason is refused (400, naming the field) and shown.
        reason: filters.reason.trim() === '' ? undefined : (filters.reason.trim() as TerminationReason),
        since: at('since'),
        until: at('until'),
        cursor: cursor ?? undefined,
      }),
      (answer) => {
        setPage(answer);
        setError(null);
      },
      setError,
    );
  }, [client, answers, filters, cursor]);

  useEffect(load, [load]);
  const live = useLiveRefresh(can.streamAllRuns ? 'allRuns' : null, load);

  // A new filter starts again from the first page; applying the same value again changes nothing.
  const setFilter = useCallback((name: keyof Filters, value: string) => setFilters((f) => (f[name] === value ? f : { ...f, [name]: value })), []);
  useEffect(() => setCursors([null]), [filters]);
  const applyAgent = useCallback((value: string) => setFilter('agent', value), [setFilter]);
  const applyReason = useCallback((value: string) => setFilter('reason', value), [setFilter]);

  return (
    <section>
      <div class="title-row">
        <h1>Runs</h1>
        <LiveIndicator live={live} offline={can.streamAllRuns ? 'connecting…' : 'polling every 3 s'} />
      </div>
      {can.submitRuns ? <StartRunForm /> : null}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select data-testid="filter-status" value={filters.status} onChange={(e) => setFilter('status', (e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <TextFilter testId="filter-agent" placeholder="any" onApply={applyAgent} />
        </label>
        <label>
          Reason
          <TextFilter testId="filter-reason" placeholder="e.g. AUDIT_PERSISTENCE_FAILED" onApply={applyReason} />
        </label>
        <label>
          Requested from
          <input type="datetime-local" step={1} data-testid="filter-since" value={filters.since} onChange={(e) => setFilter('since', (e.target as HTMLInputElement).value)} />
        </label>
        <label>
          before
          <input type="datetime-local" step={1} data-testid="filter-until" value={filters.until} onChange={(e) => setFilter('until', (e.target as HTMLInputElement).value)} />
        </label>
      </form>
      <ErrorBanner error={error} />
      <RunsTable runs={page?.runs ?? []} />
      <div class="pager">
        <button type="button" data-testid="runs-previous-page" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <span>Page {cursors.length}</span>
        <button type="button" data-testid="runs-next-page" disabled={page?.nextCursor === null || page === null} onClick={() => page?.nextCursor && setCursors((c) => [...c, page.nextCursor])}>
          Older →
        </button>
      </div>
    </section>
  );
}

const TYPING_PAUSE_MS = 400;

/**
 * A text filter that keeps what is typed (its own state: a live refresh of the
 * list re-renders the page without touching it) and applies it after a pause
 * in typing, or at once on Enter or when the field loses focus.
 */
function TextFilter({ testId, placeholder, onApply }: { testId: string; placeholder: string; onApply: (value: string) => void }) {
  const [draft, setDraft] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => onApply(draft), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [draft, onApply]);
  return (
    <input
      data-testid={testId}
      value={draft}
      placeholder={placeholder}
      onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
      onChange={(e) => onApply((e.target as HTMLInputElement).value)}
    />
  );
}

function RunsTable({ runs }: { runs: readonly RunRow[] }) {
  if (runs.length === 0) return <p class="empty" data-testid="runs-table">No runs match.</p>;
  return (
    <table data-testid="runs-table">
      <thead>
        <tr>
          <th>Run</th>
          <th>Agent</th>
          <th>Status</th>
          <th>Reason</th>
          <th>Steps</th>
          <th>Requested</th>
          <th>Settled</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.runId} data-testid="run-row" data-run-id={run.runId} data-status={run.status}>
            <td>
              <a href={hashOf({ page: 'run', runId: run.runId })} class="mono">
                {run.runId}
              </a>
            </td>
            <td>{run.agent}</td>
            <td>
              <StatusBadge status={run.status} />
              {run.deadLettered === true ? <span class="badge dead">dead-lettered</span> : null}
            </td>
            <td>{run.reason ?? '—'}</td>
            <td class="num">{run.stepsTotal}</td>
            <td>{formatTime(run.requestedAt)}</td>
            <td>{formatTime(run.settledAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StartRunForm() {
  const { client } = useSession();
  const [agents, setAgents] = useState<readonly AgentInfo[]>([]);
  const [agent, setAgent] = useState('');
  const [input, setInput] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    client
      .listAgents()
      .then((answer) => {
        setAgents(answer.agents);
        setAgent((current) => (current === '' ? (answer.agents[0]?.name ?? '') : current));
      })
      .catch(setError);
  }, [client]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const started = await client.startRun({ agent, input });
      location.hash = hashOf({ page: 'run', runId: started.runId });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const chosen = agents.find((a) => a.name === agent);
  return (
    <form class="start-run" onSubmit={submit}>
      <h2>Start a run</h2>
      <label>
        Agent
        <select data-testid="start-agent" value={agent} onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}>
          {agents.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      {chosen === undefined ? null : (
        <p class="hint" data-testid="start-agent-tools">
          {chosen.description ?? ''} Tools:{' '}
          {chosen.tools.length === 0
            ? 'none'
            : chosen.tools.map((t, i) => {
                const source = toolSourceLabel(t.source);
                return (
                  <span key={t.name} data-testid="agent-tool" data-tool={t.name} data-effect={t.effect} data-source={t.source?.kind ?? ''}>
                    {i === 0 ? '' : ', '}
                    {t.name} <EffectBadge effect={t.effect} />
                    {source === null ? null : (
                      <span class={source.conflict ? 'tool-source conflict' : 'tool-source'} data-testid="agent-tool-source" title={source.title}>
                        {' '}
                        ({source.text})
                      </span>
                    )}
                  </span>
                );
              })}
        </p>
      )}
      <label>
        Input
        <textarea data-testid="start-input" rows={2} value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} placeholder="The task for the agent" />
      </label>
      <button type="submit" data-testid="start-submit" disabled={busy || agent === ''}>
        Start (queued)
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}
