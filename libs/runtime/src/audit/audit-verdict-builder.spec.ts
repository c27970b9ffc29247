import type { AuditRecordContent } from '@agent-ledger/domain';
import { auditRecordHash } from '@agent-ledger/domain';
import type { RecordedEvent } from '@agent-ledger/event-store';
import { positionFromParts } from '@agent-ledger/event-store';
import type { AuditVerdictRunState, RotatingHeads } from './audit-verdict-builder';
import { AuditVerdictBuilder } from './audit-verdict-builder';

const FULL = { mode: 'full', fullBecause: 'test', eventsRead: 0, headsChecked: 0, headRounds: 0, checkpoint: null, durationMs: 0 } as const;
let position = 0n;

function event(streamName: string, type: string, data: Record<string, unknown>, revision = 0n): RecordedEvent {
  position += 1n;
  return { streamName, id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`, type, revision, position: positionFromParts({ commit: position, prepare: position }), data, metadata: {}, created: new Date(0) };
}

const executed = (runId: string, call: number, effect: string, attempt = 1) =>
  event(`run-${runId}`, 'ToolExecuted', { runId, stepId: `${runId}/r0/t${call}`, toolName: 'test.tool', effect, attempt, executedAt: 1 });
const inFlight = (runId: string, call: number) => ({ stepId: `${runId}/r0/t${call}`, toolName: 'test.tool', effect: 'NON_IDEMPOTENT_WRITE', idempotencyKey: 'k', startedAt: 1, attempt: 1 });

/** A run's audit chain of `AuditRecorded` for the given calls, hashed and linked as the runtime writes them. */
function auditChain(runId: string, calls: readonly { call: number; attempt: number; effect: string }[]): RecordedEvent[] {
  let previousHash: string | null = null;
  return calls.map(({ call, attempt, effect }, i) => {
    const content = { runId, stepId: `${runId}/r0/t${call}`, sequence: i + 1, kind: 'tool', toolName: 'test.tool', effect, idempotencyKey: 'k', outcome: 'succeeded', attempt, recordedAt: 1, previousHash } as const;
    const hash = auditRecordHash(content as AuditRecordContent);
    previousHash = hash;
    return event(`audit-${runId}`, 'AuditRecorded', { ...content, hash }, BigInt(i));
  });
}

describe('AuditVerdictBuilder', () => {
  it('tells apart writes audited, audited late, awaiting audit, and without audit as the contract allows or not', () => {
    const builder = new AuditVerdictBuilder();
    const runEvents = [
      // ok: two writes, the second audited late by attempt 2; a read-only call is not a write.
      event('run-ok', 'RunRequested', { runId: 'ok' }),
      executed('ok', 0, 'IDEMPOTENT_WRITE'),
      executed('ok', 1, 'NON_IDEMPOTENT_WRITE'),
      executed('ok', 2, 'READ_ONLY'),
      event('run-ok', 'RunCompleted', { runId: 'ok' }),
      // running: executed, not settled yet.
      event('run-running', 'RunRequested', { runId: 'running' }),
      executed('running', 0, 'IDEMPOTENT_WRITE'),
      // closed: failed closed; cancelled: cancelled naming the write; other-cancel: cancelled naming another step.
      event('run-closed', 'RunRequested', { runId: 'closed' }),
      executed('closed', 0, 'NON_IDEMPOTENT_WRITE'),
      event('run-closed', 'RunFailed', { runId: 'closed', reason: 'AUDIT_PERSISTENCE_FAILED', inFlightWrite: null }),
      event('run-cancelled', 'RunRequested', { runId: 'cancelled' }),
      executed('cancelled', 0, 'NON_IDEMPOTENT_WRITE'),
      event('run-cancelled', 'RunCancelled', { runId: 'cancelled', inFlightWrite: inFlight('cancelled', 0) }),
      event('run-other-cancel', 'RunRequested', { runId: 'other-cancel' }),
      executed('other-cancel', 0, 'IDEMPOTENT_WRITE'),
      event('run-other-cancel', 'RunCancelled', { runId: 'other-cancel', inFlightWrite: inFlight('other-cancel', 1) }),
    ];
    const audits = [
      ...auditChain('ok', [
        { call: 0, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
        { call: 2, attempt: 1, effect: 'READ_ONLY' },
        { call: 1, attempt: 2, effect: 'NON_IDEMPOTENT_WRITE' },
      ]),
      ...auditChain('stranger', [{ call: 0, attempt: 1, effect: 'IDEMPOTENT_WRITE' }]),
    ];
    // The stores may be read in any interleaving.
    for (const e of audits.slice(0, 2)) builder.addAuditEvent(e);
    for (const e of runEvents) builder.addRunEvent(e);
    for (const e of audits.slice(2)) builder.addAuditEvent(e);

    const verdict = builder.verdict(100, FULL);
    expect(verdict.totals).toEqual({
      writesExecuted: 6,
      writesAudited: 2,
      auditedLate: 1,
      writesWithoutAudit: 3,
      writesWithoutAuditNotAllowed: 1,
      writesAwaitingAudit: 1,
      runsWithoutAuditStream: 1,
      auditedRunsUnknownToRunStore: 1,
    });
    expect(verdict.auditedLate.map((w) => [w.stepId, w.executedAttempt, w.auditAttempt])).toEqual([['ok/r0/t1', 1, 2]]);
    expect(verdict.writesAwaitingAudit.map((w) => w.stepId)).toEqual(['running/r0/t0']);
    expect(verdict.writesWithoutAudit.map((w) => [w.stepId, w.runEnd, w.allowedBy])).toEqual([
      ['cancelled/r0/t0', 'CANCELLED', 'cancelledInFlight'],
      ['closed/r0/t0', 'AUDIT_PERSISTENCE_FAILED', 'failedClosed'],
      ['other-cancel/r0/t0', 'CANCELLED', null],
    ]);
    expect(verdict.auditedRunsUnknownToRunStore).toEqual(['stranger']);
    expect(verdict).toMatchObject({ findings: true, runs: 2, records: 4, brokenRuns: [], breaks: [] });
    expect(verdict.problems).toEqual([
      'the run store holds 1 executed write whose audit records are not in this audit store, in runs that neither failed closed nor were cancelled naming the write',
      '1 run that executed writes has no audit stream in this audit store (is this the audit store those runs were audited in?)',
      'the audit store holds the audit of 1 run that the run store does not know (is this the run store those audits belong to?)',
    ]);
  });

  it('finds a record removed inside a chain, keeps each list to the limit with complete totals, and remembers each audit head', () => {
    const builder = new AuditVerdictBuilder();
    const chain = auditChain('r', [
      { call: 0, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
      { call: 1, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
    ]);
    builder.addRunEvent(event('run-r', 'RunRequested', { runId: 'r' }));
    for (const call of [0, 1, 2]) builder.addRunEvent(executed('r', call, 'IDEMPOTENT_WRITE'));
    builder.addRunEvent(event('run-r', 'RunCompleted', { runId: 'r' }));
    // The second record removed: the third is not linked to the first.
    builder.addAuditEvent(chain[0] as RecordedEvent);
    const third = auditChain('r', [
      { call: 0, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
      { call: 1, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
      { call: 2, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
    ])[2] as RecordedEvent;
    builder.addAuditEvent(third);
    const verdict = builder.verdict(1, FULL);
    expect(verdict.brokenRuns).toEqual(['r']);
    expect(verdict.breaks.map((b) => b.problem)).toEqual(['brokenLink']);
    expect(verdict.totals).toMatchObject({ writesExecuted: 3, writesAudited: 2, writesWithoutAudit: 1 });
    expect(verdict.writesWithoutAudit).toHaveLength(1);
    expect(verdict.problems[0]).toBe('1 audit chain is broken (a record edited, removed, inserted or reordered)');
    expect(builder.auditHeads()).toEqual([{ runId: 'r', revision: 2n, eventId: third.id, hash: third.data['hash'] }]);
  });

  it('continues from its runs\' states as plain data (a checkpoint) as it would have gone on itself', () => {
    const chain = auditChain('a', [
      { call: 0, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
      { call: 1, attempt: 1, effect: 'IDEMPOTENT_WRITE' },
      { call: 1, attempt: 2, effect: 'IDEMPOTENT_WRITE' },
    ]);
    const before = [event('run-a', 'RunRequested', { runId: 'a' }), executed('a', 0, 'IDEMPOTENT_WRITE'), executed('a', 1, 'IDEMPOTENT_WRITE')];
    const after = [event('run-a', 'RunCompleted', { runId: 'a' }), event('run-b', 'RunRequested', { runId: 'b' })];
    const whole = new AuditVerdictBuilder();
    const first = new AuditVerdictBuilder();
    for (const builder of [whole, first]) {
      for (const e of before) builder.addRunEvent(e);
      for (const e of chain.slice(0, 2)) builder.addAuditEvent(e);
    }
    expect(first.takeChangedRuns()).toEqual(['a']);
    // Through JSON, as the checkpoint file keeps them.
    const states = JSON.parse(JSON.stringify([...first.runStates()])) as AuditVerdictRunState[];
    const restored = AuditVerdictBuilder.restore(states, first.breaksFound());
    expect(restored.verdict(100, FULL)).toEqual(first.verdict(100, FULL));
    for (const builder of [whole, restored]) {
      for (const e of after) builder.addRunEvent(e);
      // A second audit of step 1: the checker restored remembers the step, and finds the duplicate.
      builder.addAuditEvent(chain[2] as RecordedEvent);
    }
    expect(restored.verdict(100, FULL)).toEqual(whole.verdict(100, FULL));
    expect(restored.verdict(100, FULL).breaks).toEqual([{ runId: 'a', index: 2, stepId: 'a/r0/t1', problem: 'duplicateStep' }]);
    expect(restored.takeChangedRuns()).toEqual(['a', 'b']);
    expect(restored.rotatingHeads(0, 5)).toEqual({ heads: [restored.auditHead('a')], cursor: 0, wrapped: true });
    expect(() => AuditVerdictBuilder.restore([{ ...(states[0] as AuditVerdictRunState), ordinal: 1 }], [])).toThrow('no run has the ordinal 0');
  });

  it('gives the heads to re-read in turns of a fixed size, going round, each head at most once a turn', () => {
    const builder = new AuditVerdictBuilder();
    // Runs a, b (no audit stream), c, d in that order.
    for (const id of ['a', 'b', 'c', 'd']) builder.addRunEvent(event(`run-${id}`, 'RunRequested', { runId: id }));
    for (const id of ['a', 'c', 'd']) builder.addAuditEvent(auditChain(id, [{ call: 0, attempt: 1, effect: 'READ_ONLY' }])[0] as RecordedEvent);
    const ids = (turn: RotatingHeads) => turn.heads.map((h) => h.runId);
    const one = builder.rotatingHeads(0, 2);
    expect([ids(one), one.cursor, one.wrapped]).toEqual([['a', 'c'], 3, false]);
    const two = builder.rotatingHeads(one.cursor, 2);
    expect([ids(two), two.cursor, two.wrapped]).toEqual([['d', 'a'], 1, true]);
    expect(ids(builder.rotatingHeads(1, 10))).toEqual(['c', 'd', 'a']);
    expect(builder.rotatingHeads(1, 0)).toEqual({ heads: [], cursor: 1, wrapped: false });
  });
});
