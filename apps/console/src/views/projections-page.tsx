import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ProjectionName, ProjectionsAnswer, RebuildRecord, RebuildState } from '@agent-ledger/client';
import { useSession } from '../auth/session';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration, formatTime } from '../components/format';

const REFRESH_MS = 2_000;
const REBUILD_POLL_MS = 300;

/**
 * Projections: each read model's checkpoint, head and lag, and a rebuild
 * (from the start of the history into fresh tables, swapped in when caught
 * up) with its progress. Operators only (`operate`).
 */
export function ProjectionsPage() {
  const { client } = useSession();
  const [answer, setAnswer] = useState<ProjectionsAnswer | null>(null);
  const [rebuild, setRebuild] = useState<RebuildState | null>(null);
  const [history, setHistory] = useState<readonly RebuildRecord[]>([]);
  const [which, setWhich] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    Promise.all([client.projections(), client.rebuildStatus()])
      .then(([status, state]) => {
        setAnswer(status);
        setRebuild(state.rebuild);
        setHistory(state.history);
        setError(null);
      })
      .catch(setError);
  }, [client]);
  useEffect(load, [load]);
  const running = rebuild?.state === 'running';
  useEffect(() => {
    const timer = setInterval(load, running ? REBUILD_POLL_MS : REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, running]);

  const start = async () => {
    setError(null);
    try {
      const started = await client.startRebuild(which === '' ? {} : { projection: which as ProjectionName });
      setRebuild(started.rebuild);
      setHistory(started.history);
    } catch (failure) {
      setError(failure);
    }
  };

  const names = [...new Set((answer?.projections ?? []).map((p) => p.projection))];
  return (
    <section>
      <h1>Projections</h1>
      <ErrorBanner error={error} />
      <table data-testid="projections-table">
        <thead>
          <tr>
            <th>Projection</th>
            <th>Source</th>
            <th>Checkpoint</th>
            <th>Head</th>
            <th>Events applied</th>
            <th>Lag (events)</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {(answer?.projections ?? []).map((p) => (
            <tr key={`${p.projection}/${p.source}`} data-testid="projection-row" data-projection={p.projection} data-caught-up={String(p.caughtUp)}>
              <td>
                {p.projection}
                {p.rebuilding ? <span class="badge warn">rebuild tables present</span> : null}
              </td>
              <td>{p.source}</td>
              <td class="mono">{p.position ?? '—'}</td>
              <td class="mono">{p.headPosition ?? '—'}</td>
              <td class="num">{p.eventsApplied}</td>
              <td class={`num ${p.lag !== null && p.lag.events > 0 ? 'finding' : ''}`}>{p.lag === null ? '—' : `${p.lag.atLeast ? '≥ ' : ''}${p.lag.events}`}</td>
              <td>{formatTime(p.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Rebuild</h2>
      <p class="hint">A rebuild replays the whole history into fresh tables; the console and the API keep answering from the current tables until the new ones are swapped in.</p>
      <div class="rebuild">
        <select data-testid="rebuild-projection" value={which} onChange={(e) => setWhich((e.target as HTMLSelectElement).value)} disabled={running}>
          <option value="">every projection</option>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <button type="button" data-testid="rebuild" disabled={running || rebuild === null} onClick={start}>
          Rebuild
        </button>
      </div>
      <RebuildProgress rebuild={rebuild} />
      <h2>Rebuilds swapped in</h2>
      <p class="hint">Recorded in the read models' file by whichever process ran them: this service (asked by an API key), another one, or the CLI (agent-ledger projections rebuild: cli:&lt;user&gt;@&lt;host&gt;).</p>
      {history.length === 0 ? (
        <p class="empty" data-testid="rebuild-history-empty">
          No rebuild recorded yet.
        </p>
      ) : (
        <table data-testid="rebuild-history">
          <thead>
            <tr>
              <th>Swapped in</th>
              <th>Projections</th>
              <th>Asked by</th>
              <th>Events (applied)</th>
              <th>Took</th>
            </tr>
          </thead>
          <tbody>
            {history.map((r) => (
              <tr key={`${r.finishedAt}/${r.startedAt}/${r.projections.join(',')}`} data-testid="rebuild-record" data-requested-by={r.requestedBy ?? ''} data-projections={r.projections.join(',')}>
                <td>{formatTime(r.finishedAt)}</td>
                <td>{r.projections.join(', ')}</td>
                <td class="mono">{r.requestedBy ?? '—'}</td>
                <td class="num">
                  {r.eventsDone} ({r.eventsApplied})
                </td>
                <td>{formatDuration(r.elapsedMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RebuildProgress({ rebuild }: { rebuild: RebuildState | null }) {
  const state = rebuild?.state ?? 'idle';
  const p = rebuild?.progress ?? null;
  return (
    <div class={`rebuild-progress ${state}`} data-testid="rebuild-progress" data-state={state}>
      {state === 'idle' ? <span>This service has not rebuilt since it started (rebuilds made elsewhere are listed below).</span> : null}
      {state === 'running' ? (
        <>
          <progress max={1} value={p?.fractionDone ?? undefined} />
          <span>
            {p === null ? 'starting' : `${p.phase}${p.source === null ? '' : ` ${p.source}`}: ${p.eventsDone} events, ${Math.round(p.eventsPerSecond)} events/s${p.etaMs === null ? '' : `, ${formatDuration(p.etaMs)} left`}`}
          </span>
        </>
      ) : null}
      {state === 'succeeded' && rebuild?.result ? (
        <span>
          Rebuilt {rebuild.result.projections.join(', ')}: {rebuild.result.eventsDone} events ({rebuild.result.eventsApplied} applied) in {formatDuration(rebuild.result.elapsedMs)}, finished {formatTime(rebuild.finishedAt)}
          {rebuild.requestedBy === null ? '' : `, asked by ${rebuild.requestedBy}`}.
        </span>
      ) : null}
      {state === 'failed' ? <span class="error">Rebuild failed: {rebuild?.error}</span> : null}
    </div>
  );
}
