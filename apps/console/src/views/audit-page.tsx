import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { LatestOnly } from './latest-only';
import type { AuditReviewAnswer as AuditReview, AuditReviewTotals, AuditRunRow as AuditRun, AuditWriteView as AuditWrite, AuditStoreVerdict as ChainsVerification, StoreWrite, StoreWriteWithoutAudit } from '@agent-ledger/client';
import { auditWritesCsv } from '../audit/audit-csv';
import { verdictSummary } from '../audit/verdict-summary';
import { failureBuckets } from '../audit/failure-buckets';
import { useSession } from '../auth/session';
import { EffectBadge } from '../components/badges';
import { ErrorBanner } from '../components/error-banner';
import { LiveIndicator } from '../components/live-indicator';
import { FailureChart } from '../components/failure-chart';
import { formatTime } from '../components/format';
import { hashOf } from '../routing/route';
import { useLiveRefresh } from './use-live';

const TOTALS: readonly [keyof AuditReviewTotals, string][] = [
  ['writesExecuted', 'writes executed'],
  ['writesAudited', 'writes audited'],
  ['auditedLate', 'writes audited late'],
  ['writesWithoutAudit', 'writes without audit'],
  ['gapsDetected', 'gaps detected'],
  ['runsFailedClosed', 'runs failed closed'],
  ['runsFailedAuditMissing', 'runs failed AUDIT_MISSING'],
  ['interruptedWrites', 'writes interrupted in flight'],
  ['approvalsGranted', 'approvals granted'],
  ['approvalsDenied', 'approvals denied'],
];
const FINDINGS = new Set<keyof AuditReviewTotals>(['writesWithoutAudit', 'gapsDetected', 'runsFailedClosed', 'runsFailedAuditMissing', 'interruptedWrites']);

/**
 * The audit review: the integrity verdict read from the stores (its check
 * comes with every load of `GET /audit/review`), the read model's totals,
 * writes without audit, gaps, writes audited late, runs failed closed, a
 * chart of audit failures by effect over time, a full verification on demand
 * (`GET /audit/chains`), and exports (CSV of the writes, JSON of the whole
 * report).
 */
export function AuditPage() {
  const { client, can } = useSession();
  const [review, setReview] = useState<AuditReview | null>(null);
  const [chains, setChains] = useState<ChainsVerification | null>(null);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const answers = useMemo(() => new LatestOnly(), []);
  const load = useCallback(() => {
    answers.track(
      client.auditReview({ limit: 10_000 }),
      (answer) => {
        setReview(answer);
        setError(null);
      },
      setError,
    );
  }, [client, answers]);
  useEffect(load, [load]);
  // Audit events are not on /events (run streams only): a run event refreshes, and a slow poll catches the rest.
  const live = useLiveRefresh(can.streamAllRuns ? 'allRuns' : null, load, { pollMs: 5_000 });
  useEffect(() => {
    if (!can.streamAllRuns) return;
    const timer = setInterval(load, 10_000);
    return () => clearInterval(timer);
  }, [can.streamAllRuns, load]);

  const buckets = useMemo(() => failureBuckets(review?.writesWithoutAudit ?? []), [review]);
  const verify = async () => {
    setChecking(true);
    try {
      setChains(await client.auditChains());
    } catch (failure) {
      setError(failure);
    } finally {
      setChecking(false);
    }
  };
  const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

  return (
    <section>
      <div class="title-row">
        <h1>Audit review</h1>
        <LiveIndicator live={live} offline={'polling'} />
        <span class="spacer" />
        <button type="button" data-testid="export-csv" disabled={review === null} onClick={() => review && download(`audit-review-${stamp()}.csv`, 'text/csv', auditWritesCsv(review.writes))}>
          Export writes (CSV)
        </button>
        <button type="button" data-testid="export-json" disabled={review === null} onClick={() => review && download(`audit-review-${stamp()}.json`, 'application/json', JSON.stringify({ exportedAt: new Date().toISOString(), review, chains }, null, 2))}>
          Export report (JSON)
        </button>
      </div>
      <ErrorBanner error={error} />
      <h2>Verdict from the stores</h2>
      <p data-testid="audit-verdict" data-findings={review === null ? undefined : String(review.verdict.findings)} class={review === null ? '' : review.verdict.findings ? 'finding' : 'ok'}>
        {review === null ? 'Checking…' : verdictSummary(review.verdict)}{' '}
        {review === null ? null : (
          <span data-testid="audit-verdict-mode">
            ({review.verdict.verification.mode} verification, {review.verdict.verification.durationMs} ms)
          </span>
        )}
      </p>
      {review !== null && review.verdict.writesWithoutAudit.length > 0 ? (
        <>
          <h2>Writes without audit in the store</h2>
          <StoreWritesTable testId="store-writes-without-audit" rowTestId="store-write-without-audit-row" writes={review.verdict.writesWithoutAudit} />
        </>
      ) : null}
      <h2>Read model</h2>
      <div class="totals" data-testid="audit-totals">
        {TOTALS.map(([name, label]) => {
          const value = review?.totals[name] ?? 0;
          return (
            <div key={name} class={`total ${FINDINGS.has(name) && value > 0 ? 'finding' : ''}`}>
              <span class="n" data-testid={`total-${name}`}>
                {review === null ? '…' : value}
              </span>
              <span class="label">{label}</span>
            </div>
          );
        })}
      </div>
      <h2>Audit failures by effect over time</h2>
      <FailureChart buckets={buckets} />
      <h2>Audit chains</h2>
      <p>
        <button type="button" data-testid="verify-chains" disabled={checking} onClick={verify}>
          {checking ? 'Verifying…' : 'Verify everything (full pass)'}
        </button>{' '}
        <span data-testid="chains-result" class={chains === null ? '' : chains.brokenRuns.length > 0 ? 'finding' : 'ok'}>
          {chains === null
            ? 'Not verified yet.'
            : chains.brokenRuns.length === 0
              ? `${plural(chains.runs, 'chain')}, ${plural(chains.records, 'record')}: every chain intact.${chains.findings ? ` ${verdictSummary(chains)}` : ''}`
              : `${plural(chains.brokenRuns.length, 'broken chain')}: ${chains.brokenRuns.join(', ')}`}
        </span>
      </p>
      {chains !== null && chains.breaks.length > 0 ? (
        <table data-testid="chain-breaks">
          <tbody>
            {chains.breaks.map((b, i) => (
              <tr key={i}>
                <td class="mono">{b.runId}</td>
                <td>
                  <code>{JSON.stringify(b)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Runs failed closed (AUDIT_PERSISTENCE_FAILED)</h2>
      <RunsTable testId="runs-failed-closed" rowTestId="failed-closed-row" runs={review?.runsFailedClosed ?? []} />
      <h2>Writes without audit</h2>
      <WritesTable testId="writes-without-audit" rowTestId="write-without-audit-row" writes={review?.writesWithoutAudit ?? []} />
      <h2>Gaps detected by the saga</h2>
      <WritesTable testId="audit-gaps" rowTestId="audit-gap-row" writes={review?.gaps ?? []} />
      <h2>Runs failed AUDIT_MISSING</h2>
      <RunsTable testId="runs-failed-audit-missing" rowTestId="failed-audit-missing-row" runs={review?.runsFailedAuditMissing ?? []} />
      <h2>Writes audited late</h2>
      <StoreWritesTable testId="audited-late" rowTestId="audited-late-row" writes={review?.verdict.auditedLate ?? []} />
    </section>
  );
}

function RunsTable({ runs, testId, rowTestId }: { runs: readonly AuditRun[]; testId: string; rowTestId: string }) {
  if (runs.length === 0) return <p class="empty" data-testid={testId}>None.</p>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>Run</th>
          <th>Reason</th>
          <th>Failure class</th>
          <th>Write in flight</th>
          <th>Settled</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.runId} data-testid={rowTestId} data-run-id={r.runId}>
            <td>
              <a class="mono" href={hashOf({ page: 'run', runId: r.runId })}>
                {r.runId}
              </a>
            </td>
            <td>{r.reason}</td>
            <td>{r.failureClass ?? '—'}</td>
            <td class="mono">{r.inFlightStepId ?? '—'}</td>
            <td>{formatTime(r.settledAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function WritesTable({ writes, testId, rowTestId }: { writes: readonly AuditWrite[]; testId: string; rowTestId: string }) {
  if (writes.length === 0) return <p class="empty" data-testid={testId}>None.</p>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>Step</th>
          <th>Tool</th>
          <th>Executed</th>
          <th>Outcome</th>
          <th>Gap detected</th>
          <th>Run failed as</th>
        </tr>
      </thead>
      <tbody>
        {writes.map((w) => (
          <tr key={w.stepId} data-testid={rowTestId} data-step-id={w.stepId}>
            <td>
              <a class="mono" href={hashOf({ page: 'run', runId: w.runId })}>
                {w.stepId}
              </a>
            </td>
            <td>
              {w.toolName} <EffectBadge effect={w.effect} />
            </td>
            <td>{formatTime(w.executedAt)}</td>
            <td>{w.outcome ?? 'not recorded'}</td>
            <td>{w.gapDetectedAt === null ? '—' : `${formatTime(w.gapDetectedAt)} by ${w.gapDetectedBy ?? '?'}`}</td>
            <td>{w.failedRunReason ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function StoreWritesTable({ writes, testId, rowTestId }: { writes: readonly (StoreWrite | StoreWriteWithoutAudit)[]; testId: string; rowTestId: string }) {
  if (writes.length === 0) return <p class="empty" data-testid={testId}>None.</p>;
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>Step</th>
          <th>Tool</th>
          <th>Executed</th>
          <th>Executed by attempt</th>
          <th>Audited by attempt</th>
          <th>Run ended</th>
          <th>Allowed by</th>
        </tr>
      </thead>
      <tbody>
        {writes.map((w) => (
          <tr key={w.stepId} data-testid={rowTestId} data-run-id={w.runId} data-step-id={w.stepId}>
            <td>
              <a class="mono" href={hashOf({ page: 'run', runId: w.runId })}>
                {w.stepId}
              </a>
            </td>
            <td>
              {w.toolName} <EffectBadge effect={w.effect} />
            </td>
            <td>{formatTime(w.executedAt)}</td>
            <td>{w.executedAttempt}</td>
            <td>{w.auditAttempt ?? '—'}</td>
            <td>{'runEnd' in w ? w.runEnd : '—'}</td>
            <td>{'runEnd' in w ? (w.allowedBy ?? 'nothing') : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function download(name: string, type: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
