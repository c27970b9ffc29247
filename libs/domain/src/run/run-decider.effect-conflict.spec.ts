import { InvalidFieldError } from '../errors/invalid-field.error';
import { ApprovalRequiredError } from '../errors/run-rule-violations';
import { decodeRunEvent, encodeEvent } from '../events/event-codec';
import { RunHistory } from '../testing/run-history';
import { runDeciderSpecification } from '../testing/run-decider-specification';
import { createRunDecider } from './run-decider';
import type { StartStep, StepTool, ToolEffectConflict } from './run-commands';
import type { RunEvent } from './run-events';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const WORKER = 'worker:host-a:101';
const LEASE = { owner: WORKER, attempt: 1 };
const decider = createRunDecider();
const spec = runDeciderSpecification(decider);
const toolCalls = {
  type: 'toolCalls',
  calls: [
    { toolName: 'fs.read_text_file', arguments: { path: 'a.txt' } },
    { toolName: 'fs.write_file', arguments: { path: 'a.txt', content: 'x' } },
  ],
} as const;
const responded = () => new RunHistory(decider).request(T0).claim(WORKER, T0).startLlm(LEASE, 0, T0).respond(LEASE, 0, toolCalls, T0);

/** `fs.write_file` declared READ_ONLY, hinted IDEMPOTENT_WRITE by its untrusted server: the stricter, the hint, wins. */
const WRITE_CONFLICT: ToolEffectConflict = { server: 'fs', tool: 'write_file', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false };
const WRITE: StepTool = { name: 'fs.write_file', effect: 'IDEMPOTENT_WRITE', effectConflict: WRITE_CONFLICT };
/** `fs.read_text_file` declared IDEMPOTENT_WRITE, hinted READ_ONLY by a trusted server: the hint wins. */
const READ: StepTool = {
  name: 'fs.read_text_file',
  effect: 'READ_ONLY',
  effectConflict: { server: 'fs', tool: 'read_text_file', declared: 'IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: true },
};

const start = (callIndex: number, tool: StepTool, now = T0 + SECOND, lease = LEASE): StartStep => ({
  type: 'StartStep',
  data: { runId: 'run-1', ...lease, round: 0, callIndex, tool },
  metadata: { now },
});

const conflictOf = (events: readonly RunEvent[]) => events.filter((e) => e.type === 'ToolEffectConflictRecorded');

describe("run decider: a tool's effect conflict is recorded with the step", () => {
  it('records ToolEffectConflictRecorded right before StepStarted, in the same decision', () => {
    const { decision } = spec.given(responded().events).when(start(0, READ));
    expect(decision).toEqual({
      kind: 'accepted',
      events: [
        {
          type: 'ToolEffectConflictRecorded',
          data: {
            runId: 'run-1',
            stepId: 'run-1/r0/t0',
            round: 0,
            callIndex: 0,
            toolName: 'fs.read_text_file',
            server: 'fs',
            tool: 'read_text_file',
            declared: 'IDEMPOTENT_WRITE',
            hinted: 'READ_ONLY',
            trusted: true,
            effect: 'READ_ONLY',
            effectSource: 'hint',
            recordedAt: T0 + SECOND,
          },
        },
        expect.objectContaining({ type: 'StepStarted', data: expect.objectContaining({ stepId: 'run-1/r0/t0', effect: 'READ_ONLY' }) }),
      ],
    });
  });

  it('goes after a pre-approval and before the fence of a write: one append of three events', () => {
    const { decision, stateAfter } = spec.given(responded().events).when(start(1, { ...WRITE, preApprovedBy: 'demo-agent' }));
    expect(decision).toMatchObject({
      kind: 'accepted',
      events: [
        { type: 'ToolCallPreApproved', data: { stepId: 'run-1/r0/t1' } },
        { type: 'ToolEffectConflictRecorded', data: { stepId: 'run-1/r0/t1', declared: 'READ_ONLY', hinted: 'IDEMPOTENT_WRITE', trusted: false, effect: 'IDEMPOTENT_WRITE', effectSource: 'hint' } },
        { type: 'StepStarted', data: { stepId: 'run-1/r0/t1', effect: 'IDEMPOTENT_WRITE' } },
      ],
    });
    expect(stateAfter.inFlightWrite).toMatchObject({ stepId: 'run-1/r0/t1', effect: 'IDEMPOTENT_WRITE' });
  });

  it('names the declaration as the source when it is the stricter one', () => {
    const liar: StepTool = {
      name: 'fs.write_file',
      effect: 'NON_IDEMPOTENT_WRITE',
      effectConflict: { server: 'fs', tool: 'write_file', declared: 'NON_IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: false },
      preApprovedBy: 'demo-agent',
    };
    const { decision } = spec.given(responded().events).when(start(1, liar));
    expect(conflictOf(decision.kind === 'accepted' ? decision.events : [])).toMatchObject([{ data: { effect: 'NON_IDEMPOTENT_WRITE', effectSource: 'declared' } }]);
  });

  it('is recorded at each start of the step (a read started again after a requeue), once per start', () => {
    const history = responded().startTool(LEASE, 0, 0, READ, T0 + SECOND);
    expect(conflictOf(history.events)).toHaveLength(1);
    const requeued = history.fail(LEASE, { failureClass: 'connection', message: 'reset' }, T0 + 2 * SECOND).claim(WORKER, T0 + 60 * SECOND);
    const { decision } = spec.given(requeued.events).when(start(0, READ, T0 + 61 * SECOND, { owner: WORKER, attempt: 2 }));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'ToolEffectConflictRecorded', data: { recordedAt: T0 + 61 * SECOND } }, { type: 'StepStarted' }] });
  });

  it('records nothing more without a conflict', () => {
    const { decision } = spec.given(responded().events).when(start(0, { name: 'fs.read_text_file', effect: 'READ_ONLY' }));
    expect(decision).toMatchObject({ kind: 'accepted', events: [{ type: 'StepStarted' }] });
    expect(decision.kind === 'accepted' && decision.events).toHaveLength(1);
  });

  it('leaves the run state as the StepStarted alone leaves it', () => {
    const withConflict = spec.given(responded().events).when(start(0, READ)).stateAfter;
    const without = spec.given(responded().events).when(start(0, { name: 'fs.read_text_file', effect: 'READ_ONLY' })).stateAfter;
    expect(withConflict).toEqual(without);
    expect(withConflict.steps.get('run-1/r0/t0')).toMatchObject({ status: 'started', effect: 'READ_ONLY', starts: 1 });
  });

  it('still refuses a write that is not approved, conflict or not', () => {
    spec.given(responded().events).when(start(1, WRITE)).thenRejects(ApprovalRequiredError);
  });

  it('refuses a conflict that is not one, an effect the rule does not give, and a refused call', () => {
    const given = spec.given(responded().events);
    given.when(start(0, { ...READ, effectConflict: { ...WRITE_CONFLICT, hinted: 'READ_ONLY' } })).thenRejects(InvalidFieldError, { field: 'data.tool.effectConflict.hinted' });
    // Untrusted hints may only make the effect stricter: READ_ONLY hinted over a declared IDEMPOTENT_WRITE is not the effect.
    given.when(start(0, { ...READ, effectConflict: { server: 'fs', tool: 'read_text_file', declared: 'IDEMPOTENT_WRITE', hinted: 'READ_ONLY', trusted: false } })).thenRejects(InvalidFieldError, {
      field: 'data.tool.effect',
    });
    given.when(start(0, { ...READ, effectConflict: { ...WRITE_CONFLICT, declared: 'WRITE' as never } })).thenRejects(InvalidFieldError, { field: 'data.tool.effectConflict.declared' });
    given.when(start(0, { ...READ, effectConflict: { ...WRITE_CONFLICT, server: '' } })).thenRejects(InvalidFieldError, { field: 'data.tool.effectConflict.server' });
    given.when(start(0, { ...READ, effectConflict: { ...WRITE_CONFLICT, trusted: 'yes' as never } })).thenRejects(InvalidFieldError, { field: 'data.tool.effectConflict.trusted' });
    given.when(start(1, { ...WRITE, refused: true })).thenRejects(InvalidFieldError, { field: 'data.tool.effectConflict' });
  });
});

describe('the ToolEffectConflictRecorded event in the codec', () => {
  it('is stored with schema version 1 and reads back as it was written', () => {
    const { decision } = spec.given(responded().events).when(start(0, READ));
    const [event] = conflictOf(decision.kind === 'accepted' ? decision.events : []);
    const encoded = encodeEvent(event as RunEvent, { correlationId: 'run-1' });
    expect(encoded.metadata).toEqual({ schemaVersion: 1, $correlationId: 'run-1' });
    const stored = JSON.parse(JSON.stringify(encoded)) as { type: string; data: Record<string, unknown>; metadata: unknown };
    expect(decodeRunEvent(stored)).toEqual(event);
  });
});
