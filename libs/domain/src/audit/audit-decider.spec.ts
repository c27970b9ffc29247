import { foldEvents } from '../decider';
import { deciderSpecification } from '../testing/decider-specification';
import { InvalidFieldError } from '../errors/invalid-field.error';
import { AuditStatementConflictError } from '../errors/audit-statement-conflict.error';
import type { AuditCommand, RecordApprovalDecision, RecordAudit, RecordInputAnswer, RecordRunStart, RecordWriteResolution } from './audit-commands';
import { auditRecordHash, verifyAuditChain } from './audit-chain';
import { auditDecider } from './audit-decider';
import type { AuditEvent } from './audit-events';
import { apiKeyPrincipal, busPrincipal } from '../principal/principal';

const ALICE = apiKeyPrincipal('alice');

const T0 = Date.UTC(2026, 0, 1);
const record = (stepId: string, overrides: Partial<RecordAudit['data']> = {}): RecordAudit => ({
  type: 'RecordAudit',
  data: {
    runId: 'run-1',
    stepId,
    kind: 'tool',
    toolName: 'files.append',
    effect: 'NON_IDEMPOTENT_WRITE',
    idempotencyKey: `agent-ledger:${stepId}`,
    outcome: 'succeeded',
    attempt: 1,
    ...overrides,
  },
  metadata: { now: T0 },
});
const spec = deciderSpecification(auditDecider);
/** The events `command` appends after `given`; fails unless it is accepted. */
const decide = (given: readonly AuditEvent[], command: AuditCommand) => spec.given(given).when(command).events;

describe('audit decider', () => {
  it('records a step\'s audit with the next sequence number', () => {
    const first = decide([], record('run-1/r0/t0'));
    const content = { ...record('run-1/r0/t0').data, sequence: 1, recordedAt: T0, previousHash: null };
    expect(first).toEqual([{ type: 'AuditRecorded', data: { ...content, hash: auditRecordHash(content) } }]);
    expect(decide(first, record('run-1/r0/t1'))).toMatchObject([{ data: { stepId: 'run-1/r0/t1', sequence: 2, previousHash: first[0]?.data.hash } }]);
  });

  it('records each step once, however often it is sent', () => {
    const first = decide([], record('run-1/r0/t0'));
    spec.given(first).when(record('run-1/r0/t0')).thenNothing();
  });

  it('records model steps without a tool', () => {
    expect(decide([], record('run-1/r0/llm', { kind: 'llm', toolName: null, effect: null, idempotencyKey: null, outcome: 'responded' }))).toHaveLength(1);
  });

  it.each([
    ['data.stepId', { stepId: 'run-2/r0/t0' }],
    ['data.toolName', { toolName: null }],
    ['data.effect', { effect: 'WRITE' as never }],
    ['data.kind', { kind: 'other' as never }],
    ['data.runId', { runId: '' }],
  ])('refuses a record whose %s is malformed', (field, overrides) => {
    const stepId = (overrides as { stepId?: string }).stepId ?? 'run-1/r0/t0';
    spec.given([]).when(record(stepId, overrides)).thenRejects(InvalidFieldError, { field });
  });
});

describe('audit decider: approval decisions', () => {
  const decision = (overrides: Partial<RecordApprovalDecision['data']> = {}): RecordApprovalDecision => ({
    type: 'RecordApprovalDecision',
    data: {
      runId: 'run-1',
      round: 0,
      decision: 'approved',
      calls: [{ stepId: 'run-1/r0/t1', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'a'.repeat(64) }],
      decidedBy: ALICE,
      reason: null,
      ...overrides,
    },
    metadata: { now: T0 },
  });
  const decideAny = decide;

  it('chains a decision after the step records, and the chain verifies', () => {
    const first = decideAny([], record('run-1/r0/llm', { kind: 'llm', toolName: null, effect: null, idempotencyKey: null, outcome: 'responded' }));
    const approved = decideAny(first, decision());
    expect(approved).toMatchObject([{ type: 'ApprovalDecisionRecorded', data: { sequence: 2, previousHash: first[0]?.data.hash, decision: 'approved', decidedBy: ALICE } }]);
    const after = decideAny([...first, ...approved], record('run-1/r0/t1'));
    expect(after).toMatchObject([{ data: { sequence: 3, previousHash: approved[0]?.data.hash } }]);
    expect(verifyAuditChain([...first, ...approved, ...after].map((e) => e.data))).toEqual([]);
  });

  it('records every decision (each is a fact of its own), and a tampered one breaks the chain', () => {
    const one = decideAny([], decision());
    const two = decideAny(one, decision({ decision: 'denied', round: 1, calls: [{ stepId: 'run-1/r1/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'b'.repeat(64) }] }));
    expect(two).toHaveLength(1);
    const tampered = [{ ...one[0]!.data, decidedBy: apiKeyPrincipal('mallory') }, two[0]!.data];
    expect(verifyAuditChain(tampered)).toMatchObject([{ index: 0, problem: 'hashMismatch' }]);
  });

  it.each<[string, Partial<RecordApprovalDecision['data']>]>([
    ['data.decision', { decision: 'maybe' as never }],
    ['data.calls', { calls: [] }],
    ['data.calls[0].stepId', { calls: [{ stepId: 'run-2/r0/t0', toolName: 'x', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: '' }] }],
    ['data.calls[0].effect', { calls: [{ stepId: 'run-1/r0/t0', toolName: 'x', effect: 'SOME' as never, argumentsHash: '' }] }],
    ['data.decidedBy', { decidedBy: 'alice' as never }],
    ['data.decidedBy.id', { decidedBy: { kind: 'apiKey', id: ' ' } }],
    ['data.decidedBy.kind', { decidedBy: { kind: 'root', id: 'alice' } as never }],
    ['data.decidedBy', { decidedBy: { kind: 'unverified', name: 'alice', id: 'x' } as never }],
  ])('refuses a decision whose %s is malformed', (field, overrides) => {
    spec.given([]).when(decision(overrides)).thenRejects(InvalidFieldError, { field });
  });

  it('states a decision recorded before principals were typed with its unverified name (it derives from an upcast version 1 event)', () => {
    const unverified = { kind: 'unverified', name: 'alice' } as const;
    expect(decideAny([], decision({ decidedBy: unverified }))).toMatchObject([{ type: 'ApprovalDecisionRecorded', data: { decidedBy: unverified } }]);
  });
});

describe('audit decider: one statement per decision', () => {
  const approval = (overrides: Partial<RecordApprovalDecision['data']> = {}): RecordApprovalDecision => ({
    type: 'RecordApprovalDecision',
    data: {
      runId: 'run-1',
      round: 0,
      decision: 'approved',
      calls: [{ stepId: 'run-1/r0/t1', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'a'.repeat(64) }],
      decidedBy: busPrincipal('alice'),
      reason: null,
      ...overrides,
    },
    metadata: { now: T0 },
  });
  const answer = (overrides: Partial<RecordInputAnswer['data']> = {}): RecordInputAnswer => ({
    type: 'RecordInputAnswer',
    data: { runId: 'run-1', stepId: 'run-1/r0/t0', inputHash: 'c'.repeat(64), answeredBy: busPrincipal('dave'), answeredAt: T0, ...overrides },
    metadata: { now: T0 + 5 },
  });
  const resolution = (overrides: Partial<RecordWriteResolution['data']> = {}): RecordWriteResolution => ({
    type: 'RecordWriteResolution',
    data: {
      runId: 'run-1',
      stepId: 'run-1/r0/t1',
      toolName: 'files.append',
      effect: 'NON_IDEMPOTENT_WRITE',
      idempotencyKey: 'agent-ledger:run-1/r0/t1',
      outcome: 'notExecuted',
      note: 'checked',
      resolvedBy: busPrincipal('op'),
      continuationRunId: 'run-2',
      ...overrides,
    },
    metadata: { now: T0 },
  });
  const after = decide;

  it.each<[string, AuditCommand, AuditCommand]>([
    ['an approval round', approval(), approval({ decision: 'denied', decidedBy: busPrincipal('bob') })],
    ['an input answer', answer(), answer({ inputHash: 'd'.repeat(64) })],
    ['a resolution', resolution(), resolution({ outcome: 'executed' })],
  ])('%s: the same statement again records nothing, a different one for the same decision is refused', (_what, first, other) => {
    const stored = after([], first);
    expect(stored).toHaveLength(1);
    // Sent again later (a late try, another caller): already there, whatever the time.
    spec.given(stored).when({ ...first, metadata: { now: T0 + 60_000 } }).thenNothing();
    spec.given(stored).when(other).thenRejects(AuditStatementConflictError, { code: 'AUDIT_STATEMENT_CONFLICT', runId: 'run-1' });
  });

  it('states the decision that took effect after a version 1 statement of another one (stated before it was decided), but not after a statement of this version', () => {
    const v1 = after([], approval({ decision: 'denied', decidedBy: { kind: 'unverified', name: 'bob' } }));
    expect(after(v1, approval())).toMatchObject([{ type: 'ApprovalDecisionRecorded', data: { sequence: 2, decidedBy: busPrincipal('alice') } }]);
    const typed = after([], approval({ decision: 'denied', decidedBy: busPrincipal('bob') }));
    spec.given(typed).when(approval()).thenRejects(AuditStatementConflictError);
  });

  it('states other decisions of the run (another round, another step, another continuation)', () => {
    const one = after([], approval());
    expect(after(one, approval({ round: 1, calls: [{ stepId: 'run-1/r1/t0', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'b'.repeat(64) }] }))).toHaveLength(1);
    const two = after([], resolution());
    expect(after(two, resolution({ continuationRunId: 'run-3', outcome: 'executed' }))).toHaveLength(1);
  });

  it('reads an old chain holding several statements of one round, and takes any of them as already stated', () => {
    const approved = after([], approval());
    const denied = auditDecider.decide(approval({ decision: 'denied', decidedBy: busPrincipal('bob') }), { ...foldEvents(auditDecider, approved), statements: new Map() });
    expect(denied.kind).toBe('accepted');
    const chain = [...approved, ...(denied.kind === 'accepted' ? denied.events : [])];
    spec.given(chain).when(approval({ decision: 'denied', decidedBy: busPrincipal('bob') })).thenNothing();
    spec.given(chain).when(approval()).thenNothing();
  });

  it('an input answer is chained with the SHA-256 of the input, and the step audit of the same step does not break the chain', () => {
    const stated = after([], answer());
    expect(stated).toMatchObject([{ type: 'InputAnswerRecorded', data: { sequence: 1, inputHash: 'c'.repeat(64), answeredBy: busPrincipal('dave'), recordedAt: T0 + 5, previousHash: null } }]);
    const stepAudit = after(stated, record('run-1/r0/t0', { toolName: 'test.ask', effect: 'READ_ONLY', idempotencyKey: null }));
    expect(stepAudit).toHaveLength(1);
    expect(verifyAuditChain([...stated, ...stepAudit].map((e) => e.data))).toEqual([]);
  });

  it.each<[string, Partial<RecordInputAnswer['data']>]>([
    ['data.stepId', { stepId: 'run-2/r0/t0' }],
    ['data.inputHash', { inputHash: 'not a hash' }],
    ['data.answeredBy.id', { answeredBy: busPrincipal('') }],
    ['data.answeredBy', { answeredBy: '' as never }],
    ['data.answeredAt', { answeredAt: Number.NaN }],
  ])('refuses an input answer whose %s is malformed', (field, overrides) => {
    spec.given([]).when(answer(overrides)).thenRejects(InvalidFieldError, { field });
  });
});

describe('audit decider: who started the run', () => {
  const start = (overrides: Partial<RecordRunStart['data']> = {}): RecordRunStart => ({
    type: 'RecordRunStart',
    data: { runId: 'run-1', agent: 'clerk', mode: 'queued', inputHash: 'a'.repeat(64), requestedBy: ALICE, requestedAt: T0, continuationOf: null, ...overrides },
    metadata: { now: T0 + 5 },
  });

  it('states the start first in the chain, once: the same statement again records nothing, another is refused', () => {
    const first = decide([], start());
    const content = { ...start().data, sequence: 1, recordedAt: T0 + 5, previousHash: null };
    expect(first).toEqual([{ type: 'RunStartRecorded', data: { ...content, hash: auditRecordHash(content) } }]);
    expect(decide(first, start())).toEqual([]);
    spec.given(first).when(start({ requestedBy: busPrincipal('mallory') })).thenRejects(AuditStatementConflictError);
    const chained = [...first, ...decide(first, record('run-1/r0/t0'))];
    expect(chained.map((e) => e.data.sequence)).toEqual([1, 2]);
    expect(verifyAuditChain(chained.map((e) => e.data))).toEqual([]);
  });

  it.each([
    ['data.agent', { agent: ' ' }],
    ['data.mode', { mode: 'batch' as never }],
    ['data.inputHash', { inputHash: 'not-a-hash' }],
    ['data.requestedBy', { requestedBy: 'alice' as never }],
    ['data.requestedAt', { requestedAt: Number.NaN }],
    ['data.continuationOf', { continuationOf: 'has/slash' }],
  ])('refuses a start statement whose %s is malformed, naming the field', (field, overrides) => {
    spec.given([]).when(start(overrides)).thenRejects(InvalidFieldError, { field });
  });
});
