import { auditReviewProjection } from './audit-review/audit-review.projection';
import { AUDIT_INTERRUPTIONS_TABLE, AUDIT_RUNS_TABLE, AUDIT_WRITES_TABLE } from './audit-review/audit-review-rows';
import { guardTableOf } from './core/projection-definition';
import type { ProjectedEvent } from './core/projected-event';
import { ALL_PROJECTIONS } from './core/projections';
import { runStatusProjection } from './run-status/run-status.projection';
import { RUNS_TABLE } from './run-status/run-status-row';
import { parseStepId, stepsProjection } from './steps/steps.projection';
import { STEPS_TABLE } from './steps/step-row';
import { EventLog } from './testing/event-builders';
import { projectInMemory } from './testing/in-memory-row-store';
import { everyFlow } from './testing/approval-flows';
import { ALICE, runEvents } from './testing/run-event-fixtures';

const W = 'test.put';

/** A run that completes after a read and an idempotent write, each audited. */
function completedRun(log: EventLog, runId: string): void {
  const e = runEvents(runId);
  log.run(e.requested(), e.claimed(), e.llmStarted(0), e.responded(0, false), e.toolStarted(0, 0, 'test.read', 'READ_ONLY'), e.executed(0, 0, 'test.read', 'READ_ONLY'));
  log.run(e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE'), e.executed(0, 1, W, 'IDEMPOTENT_WRITE'), e.llmStarted(1), e.responded(1, true), e.completed());
  log.audit(e.audited(1, 0, undefined, null, null), e.audited(2, 0, 0, 'test.read', 'READ_ONLY'), e.audited(3, 0, 1, W, 'IDEMPOTENT_WRITE'), e.audited(4, 1, undefined, null, null));
}

describe('run status (pure mapping)', () => {
  it('follows a run from request to completion, counting distinct steps by effect', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const [row] = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    expect(row).toMatchObject({
      runId: 'a',
      status: 'COMPLETED',
      reason: 'COMPLETED',
      deadLettered: false,
      attempts: 1,
      leaseOwner: null,
      currentStepId: null,
      stepsTotal: 4,
      llmSteps: 2,
      readOnlySteps: 1,
      idempotentWriteSteps: 1,
      nonIdempotentWriteSteps: 0,
      streamRevision: 10,
    });
  });

  it('shows the lease and the current step while running, and the write in flight', () => {
    const log = new EventLog();
    const e = runEvents('b');
    log.run(e.requested(), e.claimed(), e.llmStarted(0), e.responded(0, false), e.toolStarted(0, 0, W, 'NON_IDEMPOTENT_WRITE'));
    const [row] = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    expect(row).toMatchObject({ status: 'RUNNING', leaseOwner: 'worker:host:1', currentStepId: 'b/r0/t0', inFlightStepId: 'b/r0/t0', nonIdempotentWriteSteps: 1 });
    expect(row?.leaseExpiresAt).toBe(Date.UTC(2026, 0, 1) + 4000 + 120_000);
  });

  it('counts a step restarted by a retry once, and keeps the requeue count, the failure and the retried attempt', () => {
    const log = new EventLog();
    const e = runEvents('c');
    log.run(e.requested(), e.claimed(), e.llmStarted(0), e.responded(0, false), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE'));
    log.run(e.requeued(1, e.inFlight(0, 0, W, 'IDEMPOTENT_WRITE')));
    const queued = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE)[0];
    expect(queued).toMatchObject({ status: 'QUEUED', requeues: 1, leaseOwner: null, inFlightStepId: 'c/r0/t0', failureCode: 'LEASE_EXPIRED' });
    log.run(e.claimed(2), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE', 2), e.executed(0, 0, W, 'IDEMPOTENT_WRITE', 'succeeded', 2), e.completed(2));
    const [row] = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    expect(row).toMatchObject({ status: 'COMPLETED', attempts: 2, requeues: 1, stepsTotal: 2, idempotentWriteSteps: 1, inFlightStepId: null });
  });

  it('records reason, failure class and dead letter of a failed run, and a cancellation', () => {
    const log = new EventLog();
    const f = runEvents('f');
    log.run(f.requested(), f.claimed(), f.failed('AUDIT_PERSISTENCE_FAILED', { failureClass: 'unknown', message: 'audit lost', code: 'AUDIT_PERSISTENCE_FAILED' }));
    const c = runEvents('g');
    log.run(c.requested(), c.claimed(), c.cancelRequested(), c.cancelled());
    const rows = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    expect(rows[0]).toMatchObject({ runId: 'f', status: 'FAILED', reason: 'AUDIT_PERSISTENCE_FAILED', failureClass: 'unknown', deadLettered: true });
    expect(rows[1]).toMatchObject({ runId: 'g', status: 'CANCELLED', reason: 'CANCELLED', cancelRequested: true, cancelRequestedBy: 'key:alice' });
  });

  it('keeps the final answer of a completed run, and links a dead-lettered run and its continuation both ways', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const d = runEvents('d');
    log.run(d.requested(), d.claimed(), d.failed('NOT_RETRYABLE', { failureClass: 'auth', message: 'key revoked' }));
    log.run({
      type: 'RunRequeuedByOperator',
      data: { runId: 'd', continuationRunId: 'd-2', requestedBy: ALICE, reason: null, inFlightWrite: null, resolution: null, requeuedAt: Date.UTC(2026, 0, 2) },
    });
    const requested = runEvents('d-2').requested();
    if (requested.type !== 'RunRequested') throw new Error('a RunRequested');
    log.run({ ...requested, data: { ...requested.data, continuation: { of: 'd', idempotencyRoot: 'd', carriedSteps: [] } } });
    const rows = projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE);
    expect(rows.find((r) => r.runId === 'a')).toMatchObject({ finalAnswer: 'done', continuationOf: null, continuedAs: null });
    expect(rows.find((r) => r.runId === 'd')).toMatchObject({ status: 'FAILED', finalAnswer: null, continuedAs: 'd-2', updatedAt: Date.UTC(2026, 0, 2) });
    expect(rows.find((r) => r.runId === 'd-2')).toMatchObject({ status: 'QUEUED', continuationOf: 'd', continuedAs: null });
  });

  it('ignores events of a run whose request it never saw', () => {
    const log = new EventLog();
    log.run(runEvents('z').claimed());
    expect(projectInMemory([runStatusProjection], log.events).rows(RUNS_TABLE)).toEqual([]);
  });
});

describe('steps (pure mapping)', () => {
  it('gives each step its effect, outcome, idempotency key and audit state', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const rows = projectInMemory([stepsProjection], log.events).rows(STEPS_TABLE);
    expect(rows.map((r) => [r.stepId, r.kind, r.effect, r.outcome, r.auditState])).toEqual([
      ['a/r0/llm', 'llm', null, 'responded', 'recorded'],
      ['a/r0/t0', 'tool', 'READ_ONLY', 'succeeded', 'recorded'],
      ['a/r0/t1', 'tool', 'IDEMPOTENT_WRITE', 'succeeded', 'recorded'],
      ['a/r1/llm', 'llm', null, 'responded', 'recorded'],
    ]);
    expect(rows[2]).toMatchObject({ idempotencyKey: 'agent-ledger:a/r0/t1', round: 0, callIndex: 1, starts: 1, auditSequence: 3 });
  });

  it('marks a write whose gap was detected as missing, and one without audit as pending', () => {
    const log = new EventLog();
    const e = runEvents('m');
    log.run(e.requested(), e.claimed(), e.toolStarted(0, 0, W, 'NON_IDEMPOTENT_WRITE'), e.executed(0, 0, W, 'NON_IDEMPOTENT_WRITE'), e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE'));
    log.run(e.gap(0, 0, W, 'NON_IDEMPOTENT_WRITE', false));
    const rows = projectInMemory([stepsProjection], log.events).rows(STEPS_TABLE);
    expect(rows.map((r) => [r.stepId, r.status, r.auditState])).toEqual([
      ['m/r0/t0', 'completed', 'missing'],
      ['m/r0/t1', 'started', 'pending'],
    ]);
  });

  it("carries an MCP tool's effect conflict on its step; the other read models skip the event", () => {
    const e = runEvents('c');
    const run = (withConflict: boolean) => {
      const log = new EventLog();
      const conflict = e.effectConflict(0, 0, 'fs.write_file', { declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, effect: 'IDEMPOTENT_WRITE' });
      log.run(e.requested(), e.claimed(), ...(withConflict ? [conflict] : []), e.toolStarted(0, 0, 'fs.write_file', 'IDEMPOTENT_WRITE'), e.executed(0, 0, 'fs.write_file', 'IDEMPOTENT_WRITE'), e.toolStarted(0, 1, W, 'IDEMPOTENT_WRITE'));
      log.audit(e.audited(1, 0, 0, 'fs.write_file', 'IDEMPOTENT_WRITE'));
      return projectInMemory(ALL_PROJECTIONS, log.events);
    };
    const [withConflict, without] = [run(true), run(false)];
    const steps = withConflict.rows(STEPS_TABLE);
    expect(steps.map((r) => [r.stepId, r.effect, r.conflictServer, r.conflictDeclared, r.conflictHinted, r.conflictTrusted])).toEqual([
      ['c/r0/t0', 'IDEMPOTENT_WRITE', 'fs', 'READ_ONLY', 'IDEMPOTENT_WRITE', false],
      ['c/r0/t1', 'IDEMPOTENT_WRITE', null, null, null, null],
    ]);
    expect(steps[0]).toMatchObject({ status: 'completed', outcome: 'succeeded', starts: 1, auditState: 'recorded' });
    const conflictFree = (row: Record<string, unknown>) => ({ ...row, conflictServer: null, conflictDeclared: null, conflictHinted: null, conflictTrusted: null });
    expect(steps.map(conflictFree)).toEqual(without.rows(STEPS_TABLE));
    // The run's row only counts one more event of its stream.
    const [runRow] = withConflict.rows(RUNS_TABLE);
    expect(withConflict.rows(RUNS_TABLE)).toEqual(without.rows(RUNS_TABLE).map((row) => ({ ...row, streamRevision: runRow?.streamRevision ?? 0 })));
    expect(runRow?.streamRevision).toBe((without.rows(RUNS_TABLE)[0]?.streamRevision ?? 0) + 1);
    expect(withConflict.rows(AUDIT_WRITES_TABLE)).toEqual(without.rows(AUDIT_WRITES_TABLE));
    expect(withConflict.rows(AUDIT_RUNS_TABLE)).toEqual(without.rows(AUDIT_RUNS_TABLE));
  });

  it('ends with the same rows whichever store (run or audit) is projected first', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const runSide = log.events.filter((e) => e.streamName.startsWith('run-'));
    const auditSide = log.events.filter((e) => e.streamName.startsWith('audit-'));
    const runFirst = projectInMemory(ALL_PROJECTIONS, [...runSide, ...auditSide]).snapshot();
    const auditFirst = projectInMemory(ALL_PROJECTIONS, [...auditSide, ...runSide]).snapshot();
    const interleaved = projectInMemory(ALL_PROJECTIONS, interleave(auditSide, runSide)).snapshot();
    expect(auditFirst).toEqual(runFirst);
    expect(interleaved).toEqual(runFirst);
  });

  it('reads round and call index from a step id', () => {
    expect(parseStepId('run-1/r3/llm')).toEqual({ round: 3, callIndex: null });
    expect(parseStepId('x/r0/t12')).toEqual({ round: 0, callIndex: 12 });
    expect(parseStepId('nonsense')).toEqual({ round: null, callIndex: null });
  });
});

describe('audit review (pure mapping)', () => {
  it('lists every write with its audit state, the runs failed closed, the gaps and the writes interrupted in flight', () => {
    const log = new EventLog();
    completedRun(log, 'ok');
    const closed = runEvents('closed');
    log.run(closed.requested(), closed.claimed(), closed.toolStarted(0, 0, 'test.append', 'NON_IDEMPOTENT_WRITE'), closed.executed(0, 0, 'test.append', 'NON_IDEMPOTENT_WRITE'));
    log.run(closed.failed('AUDIT_PERSISTENCE_FAILED', { failureClass: 'unknown', message: 'audit lost' }));
    const reaped = runEvents('reaped');
    const inFlight = reaped.inFlight(0, 0, 'test.append', 'NON_IDEMPOTENT_WRITE');
    log.run(reaped.requested(), reaped.claimed(), reaped.toolStarted(0, 0, 'test.append', 'NON_IDEMPOTENT_WRITE'));
    log.run(reaped.failed('WRITE_INTERRUPTED', { failureClass: 'connection', message: 'lease expired', code: 'LEASE_EXPIRED' }, inFlight));
    const missing = runEvents('missing');
    log.run(missing.requested(), missing.claimed(), missing.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE'), missing.executed(0, 0, W, 'IDEMPOTENT_WRITE'));
    log.run(missing.gap(0, 0, W, 'IDEMPOTENT_WRITE', false), missing.failed('AUDIT_MISSING', { failureClass: 'unknown', message: 'gap' }));
    const rows = projectInMemory([auditReviewProjection], log.events);
    expect(rows.rows(AUDIT_WRITES_TABLE).map((w) => [w.stepId, w.executedAt !== null, w.audited, w.gapDetectedAt !== null])).toEqual([
      ['closed/r0/t0', true, false, false],
      ['missing/r0/t0', true, false, true],
      ['ok/r0/t1', true, true, false],
      ['reaped/r0/t0', false, false, false],
    ]);
    expect(rows.rows(AUDIT_RUNS_TABLE).map((r) => [r.runId, r.reason, r.inFlightStepId])).toEqual([
      ['closed', 'AUDIT_PERSISTENCE_FAILED', null],
      ['missing', 'AUDIT_MISSING', null],
      ['ok', 'COMPLETED', null],
      ['reaped', 'WRITE_INTERRUPTED', 'reaped/r0/t0'],
    ]);
    expect(rows.rows(AUDIT_INTERRUPTIONS_TABLE)).toEqual([
      expect.objectContaining({ runId: 'reaped', stepId: 'reaped/r0/t0', eventType: 'RunFailed', reason: 'WRITE_INTERRUPTED', effect: 'NON_IDEMPOTENT_WRITE' }),
    ]);
  });

  it('records a requeue with an idempotent write in flight, once per event', () => {
    const log = new EventLog();
    const e = runEvents('r');
    log.run(e.requested(), e.claimed(), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE'), e.requeued(1, e.inFlight(0, 0, W, 'IDEMPOTENT_WRITE')));
    log.run(e.claimed(2), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE', 2), e.executed(0, 0, W, 'IDEMPOTENT_WRITE', 'succeeded', 2), e.completed(2));
    const rows = projectInMemory([auditReviewProjection], log.events);
    expect(rows.rows(AUDIT_INTERRUPTIONS_TABLE)).toEqual([expect.objectContaining({ interruptionId: 'r@3', eventType: 'RunRequeued', cause: 'leaseExpired', reason: null })]);
    expect(rows.rows(AUDIT_WRITES_TABLE)[0]).toMatchObject({ starts: 2, outcome: 'succeeded' });
  });
});

describe('duplicate delivery', () => {
  it('gives the same rows when every event is delivered twice, in a row or after the others', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const e = runEvents('b');
    log.run(e.requested(), e.claimed(), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE'), e.requeued(1, e.inFlight(0, 0, W, 'IDEMPOTENT_WRITE')), e.claimed(2));
    const once = projectInMemory(ALL_PROJECTIONS, log.events).snapshot();
    const doubled = projectInMemory(ALL_PROJECTIONS, log.events.flatMap((ev) => [ev, ev])).snapshot();
    const replayed = projectInMemory(ALL_PROJECTIONS, [...log.events, ...log.events]).snapshot();
    expect(doubled).toEqual(once);
    expect(replayed).toEqual(once);
    expect(once[guardTableOf(runStatusProjection).name]).toEqual([
      { streamName: 'audit-a', revision: 3 },
      { streamName: 'run-a', revision: 10 },
      { streamName: 'run-b', revision: 4 },
    ]);
  });

  it('skips an older revision of a stream delivered late (it was applied already)', () => {
    const log = new EventLog();
    completedRun(log, 'a');
    const late: ProjectedEvent | undefined = log.events.find((ev) => ev.type === 'StepStarted');
    const once = projectInMemory(ALL_PROJECTIONS, log.events).snapshot();
    expect(projectInMemory(ALL_PROJECTIONS, [...log.events, late as ProjectedEvent]).snapshot()).toEqual(once);
  });
});

describe('event types a projection ignores', () => {
  it('are skipped without changing a row: the same read models as applying every event (guard rows aside)', () => {
    const log = everyFlow();
    completedRun(log, 'c');
    const e = runEvents('d');
    log.run(e.requested(), e.claimed(), e.toolStarted(0, 0, W, 'IDEMPOTENT_WRITE'), e.requeued(1, e.inFlight(0, 0, W, 'IDEMPOTENT_WRITE')), e.claimed(2));
    const filtered = ALL_PROJECTIONS.filter((p) => p.eventTypes !== undefined);
    expect(filtered.map((p) => p.name).sort()).toEqual(['approvals', 'auditReview']);
    for (const projection of filtered) {
      const withoutGuard = (snapshot: Record<string, unknown[]>) =>
        Object.fromEntries(Object.entries(snapshot).filter(([table]) => table !== guardTableOf(projection).name));
      const skipping = withoutGuard(projectInMemory([projection], log.events).snapshot());
      const everything = withoutGuard(projectInMemory([{ ...projection, eventTypes: undefined }], log.events).snapshot());
      expect(Object.values(skipping).some((rows) => rows.length > 0)).toBe(true);
      expect(skipping).toEqual(everything);
    }
  });
});

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i] as T);
    if (i < b.length) out.push(b[i] as T);
  }
  return out;
}
