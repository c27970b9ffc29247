import { useCallback, useMemo, useState } from 'preact/hooks';
import type { ApprovalRow, RunStatusRow, StepRow, StreamedEvent } from '@agent-ledger/client';
import { AgentLedgerApiError } from '@agent-ledger/client';
import { useSession } from '../auth/session';
import { EffectBadge, StatusBadge } from '../components/badges';
import { ErrorBanner } from '../components/error-banner';
import { LiveIndicator } from '../components/live-indicator';
import { formatTime } from '../components/format';
import { hashOf } from '../routing/route';
import { withAuditEntries } from '../timeline/merge-audit';
import type { TimelineEntry } from '../timeline/timeline-entry';
import { principalText, timelineEntryOf } from '../timeline/timeline-entry';
import { DecisionButtons } from './decision-buttons';
import { useLiveRefresh } from './use-live';

const TERMINAL: Readonly<Record<string, string>> = { RunCompleted: 'COMPLETED', RunFailed: 'FAILED', RunCancelled: 'CANCELLED' };

/**
 * One run: its status, a timeline of its events (live from the run's event
 * stream), the write in flight if any, and the actions the key may take.
 */
export function RunPage({ runId }: { runId: string }) {
  const { client, can } = useSession();
  const [run, setRun] = useState<RunStatusRow | null>(null);
  const [steps, setSteps] = useState<readonly StepRow[]>([]);
  const [pendingRound, setPendingRound] = useState<number | null>(null);
  const [pendingApproval, setPendingApproval] = useState<ApprovalRow | null>(null);
  const [events, setEvents] = useState<readonly StreamedEvent[]>([]);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => {
    Promise.all([client.getRun(runId), client.getSteps(runId)])
      .then(async ([row, stepAnswer]) => {
        setRun(row);
        setSteps(stepAnswer.steps);
        if (row.status === 'WAITING_FOR_APPROVAL') {
          const approvals = await client.listApprovals({ runId, state: 'pending' });
          setPendingApproval(approvals.approvals[0] ?? null);
          setPendingRound(approvals.approvals[0]?.round ?? row.approvalRound);
        } else {
          setPendingApproval(null);
          setPendingRound(null);
        }
        setError(null);
      })
      // Right after a start the read model may not have the run yet: the stream will bring it.
      .catch((failure: unknown) => setError(failure instanceof AgentLedgerApiError && failure.status === 404 ? null : failure));
  }, [client, runId]);

  const onEvent = useCallback((event: StreamedEvent) => setEvents((all) => (all.some((e) => e.position === event.position) ? all : [...all, event])), []);
  // The run's stream sends its history at once: its events drive the first read of the row and steps, which
  // spares the read model a request for a run it has not projected yet (right after a start: a 404).
  const live = useLiveRefresh(useMemo(() => ({ runId }), [runId]), load, { onEvent, onFatal: setError, refreshOnConnect: false });

  const terminal = events.find((e) => TERMINAL[e.type] !== undefined);
  // The stream is ahead of the read model: a settlement it brought wins over a row not yet updated.
  const status = terminal !== undefined ? TERMINAL[terminal.type]! : (run?.status ?? (events.length > 0 ? 'QUEUED' : '…'));
  const reason = terminal !== undefined ? String(fieldOf(terminal, 'reason') ?? '') : (run?.reason ?? null);
  const entries = useMemo<TimelineEntry[]>(() => withAuditEntries(events.map(timelineEntryOf), steps, terminal !== undefined), [events, steps, terminal]);
  const inFlight = run?.inFlightStepId === null || run === null ? undefined : steps.find((s) => s.stepId === run.inFlightStepId);
  const settled = terminal !== undefined || ['COMPLETED', 'FAILED', 'CANCELLED'].includes(status);
  const requested = events.find((e) => e.type === 'RunRequested');
  const completed = terminal?.type === 'RunCompleted' ? terminal : undefined;

  return (
    <section>
      <p class="crumbs">
        <a href={hashOf({ page: 'runs' })}>Runs</a> / <span class="mono">{runId}</span>
      </p>
      <div class="title-row">
        <h1>
          Run <span class="mono">{runId}</span>
        </h1>
        <LiveIndicator live={live} offline={'connecting…'} />
      </div>
      <ErrorBanner error={error} />
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="run-status" data-status={status}>
          <StatusBadge status={status} />
        </dd>
        <dt>Reason</dt>
        <dd data-testid="run-reason">{reason ?? '—'}</dd>
        <dt>Agent</dt>
        <dd>{run?.agent ?? '—'}</dd>
        <dt>Started by</dt>
        <dd data-testid="run-started-by">{requested === undefined ? (run?.startedBy ?? '—') : principalText(fieldOf(requested, 'requestedBy'))}</dd>
        <dt>Attempts / retries</dt>
        <dd>
          {run?.attempts ?? '—'} / {run?.requeues ?? '—'}
        </dd>
        <dt>Requested</dt>
        <dd>{formatTime(run?.requestedAt)}</dd>
        <dt>Input</dt>
        <dd>{requested === undefined ? '—' : <JsonBlock value={fieldOf(requested, 'input')} testId="run-input" />}</dd>
        {completed === undefined ? null : (
          <>
            <dt>Final answer</dt>
            <dd>
              <JsonBlock value={fieldOf(completed, 'finalAnswer')} testId="run-answer" />
            </dd>
          </>
        )}
        <dt>Settled</dt>
        <dd>{formatTime(run?.settledAt)}</dd>
        {run?.failureClass ? (
          <>
            <dt>Failure</dt>
            <dd>
              {run.failureClass} {run.failureCode ?? ''}: {run.failureMessage}
              {run.deadLettered ? <span class="badge dead">dead-lettered</span> : null}
            </dd>
          </>
        ) : null}
        {run?.continuationOf ? (
          <>
            <dt>Continues</dt>
            <dd>
              <a href={hashOf({ page: 'run', runId: run.continuationOf })}>{run.continuationOf}</a>
            </dd>
          </>
        ) : null}
        {run?.continuedAs ? (
          <>
            <dt>Continued as</dt>
            <dd>
              <a href={hashOf({ page: 'run', runId: run.continuedAs })}>{run.continuedAs}</a>
            </dd>
          </>
        ) : null}
      </dl>
      {inFlight === undefined ? null : (
        <div class="in-flight" data-testid="in-flight-write">
          Write in flight: <strong>{inFlight.toolName}</strong> <EffectBadge effect={inFlight.effect} /> at <span class="mono">{inFlight.stepId}</span>
        </div>
      )}
      {status === 'WAITING_FOR_APPROVAL' && pendingApproval !== null && pendingApproval.round === pendingRound ? <ApprovalPanel approval={pendingApproval} /> : null}
      <Actions runId={runId} run={run} status={status} settled={settled} pendingRound={pendingRound} inFlight={inFlight} canApprove={can.approve} canOperate={can.operate} onChange={load} />
      {status === 'WAITING_FOR_INPUT' && can.submitRuns ? <InputForm runId={runId} question={lastQuestion(events)} onSubmitted={load} /> : null}
      <h2>Timeline</h2>
      <ol class="timeline" data-testid="timeline">
        {entries.map((entry) => (
          <li key={entry.key} class={`tone-${entry.tone}`} data-testid="timeline-event" data-type={entry.type}>
            <time>{entry.at.replace('T', ' ').replace('Z', '')}</time>
            <span class="what">
              {entry.title} <EffectBadge effect={entry.effect} />
            </span>
            {entry.detail === '' ? null : <span class="detail">{entry.detail}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * What the run waits to have approved: each call of the round with its tool,
 * declared effect, why it needs a person, and its arguments as the model gave
 * them (pretty JSON). The decision buttons are in the actions below.
 */
function ApprovalPanel({ approval }: { approval: ApprovalRow }) {
  return (
    <div class="approval-panel" data-testid="approval-panel" data-round={approval.round}>
      <p>
        Waits for approval of model round {approval.round} since {formatTime(approval.requestedAt)}; one decision covers every call below (a denial:{' '}
        {approval.onDenial === 'tellModel' ? 'the model is told' : 'the run ends'}).
      </p>
      <ol class="calls">
        {approval.calls.map((call) => (
          <li key={call.stepId} data-testid="approval-call" data-tool={call.toolName}>
            <strong>{call.toolName}</strong> <EffectBadge effect={call.effect} />{' '}
            <span class="hint">{call.requirement === 'write' ? `a write ${approval.agent} does not pre-approve` : 'the tool asks for approval whatever its effect'}</span>
            <JsonBlock value={call.arguments} testId="approval-arguments" />
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A JSON value shown whole: a text as it is, anything else as indented JSON. */
function JsonBlock({ value, testId }: { value: unknown; testId: string }) {
  return (
    <pre class="json" data-testid={testId}>
      {typeof value === 'string' ? value : JSON.stringify(value ?? null, null, 2)}
    </pre>
  );
}

/** The question of the run's latest `InputRequested`, if any. */
function lastQuestion(events: readonly StreamedEvent[]): string | null {
  const asked = events.filter((e) => e.type === 'InputRequested').at(-1);
  return asked === undefined ? null : String(fieldOf(asked, 'prompt') ?? '');
}

/** A field of an event's payload (an object for every run event). */
function fieldOf(event: StreamedEvent, name: string): unknown {
  return typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>)[name] : undefined;
}

/** Answers a run whose tool asked for input (`POST /runs/{runId}/input`, `runs:submit`); the answer is sent as text. */
function InputForm({ runId, question, onSubmitted }: { runId: string; question: string | null; onSubmitted: () => void }) {
  const { client } = useSession();
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await client.submitInput(runId, answer);
      onSubmitted();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="input-form" onSubmit={submit}>
      <p>
        The run asks: <strong data-testid="input-question">{question ?? '…'}</strong>
      </p>
      <textarea data-testid="input-answer" rows={2} value={answer} onInput={(e) => setAnswer((e.target as HTMLTextAreaElement).value)} placeholder="Your answer" />
      <button type="submit" data-testid="submit-input" disabled={busy}>
        Answer
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}

function Actions(props: {
  runId: string;
  run: RunStatusRow | null;
  status: string;
  settled: boolean;
  pendingRound: number | null;
  inFlight: StepRow | undefined;
  canApprove: boolean;
  canOperate: boolean;
  onChange: () => void;
}) {
  const { client } = useSession();
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<'executed' | 'notExecuted'>('notExecuted');
  const [note, setNote] = useState('');
  const { runId, run, settled } = props;
  const act = async (action: () => Promise<object>) => {
    setError(null);
    try {
      const answer = await action();
      // A requeue answers the continuation run: the page follows it.
      if ('continuationRunId' in answer && typeof answer.continuationRunId === 'string') location.hash = hashOf({ page: 'run', runId: answer.continuationRunId });
      props.onChange();
    } catch (failure) {
      setError(failure);
    }
  };
  const canCancel = props.canOperate && !settled && run?.cancelRequested !== true;
  const canRequeue = props.canOperate && run?.status === 'FAILED' && run.deadLettered === true && run.continuedAs === null;
  const needsResolution = props.inFlight?.effect === 'NON_IDEMPOTENT_WRITE';
  const waiting = props.status === 'WAITING_FOR_APPROVAL' && props.pendingRound !== null;
  if (!canCancel && !canRequeue && !(waiting && props.canApprove)) return <ErrorBanner error={error} />;
  return (
    <div class="actions">
      {waiting && props.canApprove ? (
        <span>
          Waits for approval (round {props.pendingRound}): <DecisionButtons runId={runId} round={props.pendingRound!} testIds={{ approve: 'approve-run', deny: 'deny-run' }} onDecided={props.onChange} />
        </span>
      ) : null}
      {canCancel ? (
        <button type="button" class="bad" data-testid="cancel-run" onClick={() => act(() => client.cancelRun(runId, { reason: 'cancelled from the console' }))}>
          Cancel run
        </button>
      ) : null}
      {canRequeue ? (
        <form
          class="requeue"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => client.requeueRun(runId, needsResolution ? { reason: 'requeued from the console', resolution: { outcome, note } } : { reason: 'requeued from the console' }));
          }}
        >
          {needsResolution ? (
            <>
              <span>A non-idempotent write was in flight: state whether it happened before requeueing.</span>
              <select data-testid="requeue-outcome" value={outcome} onChange={(e) => setOutcome((e.target as HTMLSelectElement).value as 'executed' | 'notExecuted')}>
                <option value="notExecuted">it did not happen</option>
                <option value="executed">it happened</option>
              </select>
              <input data-testid="requeue-note" required placeholder="How you know (recorded in the audit chain)" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
            </>
          ) : null}
          <button type="submit" data-testid="requeue-run">
            Requeue as a continuation run
          </button>
        </form>
      ) : null}
      <ErrorBanner error={error} />
    </div>
  );
}
