import type { AuditCommand, AuditDecision, AuditEvent, AuditRecorded, AuditState, DecisionStatement } from '@agent-ledger/domain';
import { accepted, auditDecider, busPrincipal, isAuditEventType, statementCommand, verifyAuditChain } from '@agent-ledger/domain';
import type { EventStore, ReadStreamOptions } from '@agent-ledger/event-store';
import { deterministicEventId, ExpectedRevision, WrongExpectedRevisionError } from '@agent-ledger/event-store';
import type { StoreFixture, StoreKind } from '../testing/store-fixture';
import { startStores } from '../testing/store-fixture';
import type { DeciderCommandHandlerOptions } from './decider-command-handler';
import { DeciderCommandHandler } from './decider-command-handler';
import { DeciderFailedError } from './decider-failed.error';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

const STREAM = auditStreamName('run-1');

const recordStep = (n: number, now = 1000 + n): AuditCommand => ({
  type: 'RecordAudit',
  data: { runId: 'run-1', stepId: `run-1/r0/t${n}`, kind: 'tool', toolName: 'bench.put', effect: 'IDEMPOTENT_WRITE', idempotencyKey: `k${n}`, outcome: 'succeeded', attempt: 1 },
  metadata: { now },
});

const approval: DecisionStatement = {
  kind: 'approval',
  data: {
    runId: 'run-1',
    round: 0,
    decision: 'approved',
    calls: [{ stepId: 'run-1/r0/t1', toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'a'.repeat(64) }],
    decidedBy: busPrincipal('alice'),
    reason: null,
  },
};
const APPROVAL_ID = deterministicEventId(`${STREAM}|statement|approval:0`);

type AuditHandlerOptions = DeciderCommandHandlerOptions<AuditCommand, AuditState, AuditEvent, AuditDecision>;

function auditHandler(store: EventStore, metrics: RuntimeMetrics, options: Partial<AuditHandlerOptions> = {}) {
  return new DeciderCommandHandler<AuditCommand, AuditState, AuditEvent, AuditDecision>({
    name: 'TestHandler',
    store,
    decider: auditDecider,
    isEventType: isAuditEventType,
    maxConflictRetries: 3,
    metrics,
    conflictCounter: 'runCommandConflicts',
    cachedStreams: 16,
    ...options,
  });
}

/** The real store, counting the reads of whole streams, and running `afterRead` after each (a writer of another process). */
function watchedReads(store: EventStore, afterRead: () => Promise<void> = async () => undefined): { store: EventStore; reads: () => number } {
  let reads = 0;
  const watched = Object.create(store) as EventStore;
  watched.readStream = async (name: string, options?: ReadStreamOptions) => {
    const read = await store.readStream(name, options);
    if (options?.fromRevision === undefined) {
      reads += 1;
      await afterRead();
    }
    return read;
  };
  return { store: watched, reads: () => reads };
}

async function chain(store: EventStore): Promise<AuditRecorded['data'][]> {
  const read = await store.readStream(STREAM);
  return read.events.map((event) => event.data as unknown as AuditRecorded['data']);
}

describe.each<StoreKind>(['sqlite', 'eventstoredb'])('DeciderCommandHandler on %s (integration)', (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await startStores(kind);
  });
  afterEach(async () => {
    await fixture.close();
  });

  it('appends what the decider accepts at the revision it decided on, and decides on its cache without reading the stream again', async () => {
    const { auditStore } = fixture.open();
    const watched = watchedReads(auditStore);
    const handler = auditHandler(watched.store, new RuntimeMetrics());
    const first = await handler.handle(STREAM, recordStep(0), { causation: { correlationId: 'run-1', causationId: 'cmd-1' } });
    expect(first.decision.kind).toBe('accepted');
    expect(first.appended).toHaveLength(1);
    expect(first.revision).toBe(0n);
    const second = await handler.handle(STREAM, recordStep(1));
    expect(second.revision).toBe(1n);
    expect(second.state.sequence).toBe(2);
    expect(watched.reads()).toBe(1);
    const stored = await auditStore.readStream(STREAM);
    expect(stored.events[0]?.metadata).toMatchObject({ $correlationId: 'run-1', $causationId: 'cmd-1' });
    expect(verifyAuditChain(await chain(auditStore))).toEqual([]);
  });

  it('decides again on the fresh stream when another process appended first (its cache was stale), and counts the lost race', async () => {
    const here = fixture.open();
    const elsewhere = fixture.open();
    const metrics = new RuntimeMetrics();
    const handler = auditHandler(here.auditStore, metrics);
    await handler.handle(STREAM, recordStep(0));
    await auditHandler(elsewhere.auditStore, new RuntimeMetrics()).handle(STREAM, recordStep(1));
    const outcome = await handler.handle(STREAM, recordStep(2));
    expect(metrics.get('runCommandConflicts')).toBe(1);
    expect(outcome.revision).toBe(2n);
    expect((await chain(here.auditStore)).map((r) => [r.stepId, r.sequence])).toEqual([
      ['run-1/r0/t0', 1],
      ['run-1/r0/t1', 2],
      ['run-1/r0/t2', 3],
    ]);
    expect(verifyAuditChain(await chain(here.auditStore))).toEqual([]);
  });

  it('throws the conflict after its last retry when the stream moves on before every append', async () => {
    const { auditStore } = fixture.open();
    const other = auditHandler(fixture.open().auditStore, new RuntimeMetrics());
    let n = 100;
    // Another process records a step between each read and the append decided on it.
    const watched = watchedReads(auditStore, async () => {
      await other.handle(STREAM, recordStep(n++));
    });
    const metrics = new RuntimeMetrics();
    const handler = auditHandler(watched.store, metrics, { maxConflictRetries: 2, cachedStreams: undefined });
    await expect(handler.handle(STREAM, recordStep(0))).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(metrics.get('runCommandConflicts')).toBe(2);
    expect(watched.reads()).toBe(3);
    expect((await chain(auditStore)).map((r) => r.stepId)).toEqual(['run-1/r0/t100', 'run-1/r0/t101', 'run-1/r0/t102']);
  });

  it('returns a rejected decision as it is and appends nothing', async () => {
    const { auditStore } = fixture.open();
    const handler = auditHandler(auditStore, new RuntimeMetrics());
    const malformed: AuditCommand = { ...recordStep(0), data: { ...recordStep(0).data, stepId: 'run-2/r0/t0' } } as AuditCommand;
    const outcome = await handler.handle(STREAM, malformed);
    expect(outcome.decision).toMatchObject({ kind: 'rejected', error: { code: 'INVALID_FIELD', field: 'data.stepId' } });
    expect(outcome.appended).toEqual([]);
    expect(outcome.revision).toBe(ExpectedRevision.NO_STREAM);
    expect((await auditStore.readStream(STREAM)).streamExists).toBe(false);
  });

  it('a decider that throws is a bug: DeciderFailedError, counted as deciderFailures, nothing appended', async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const bug = new TypeError('Cannot read properties of undefined');
    const handler = auditHandler(auditStore, metrics, {
      decider: {
        ...auditDecider,
        decide: () => {
          throw bug;
        },
      },
    });
    const failure = await handler.handle(STREAM, recordStep(0)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DeciderFailedError);
    expect(failure).toMatchObject({ code: 'DECIDER_FAILED', failureClass: 'unknown', stream: STREAM, commandType: 'RecordAudit', cause: bug });
    expect(metrics.get('deciderFailures')).toBe(1);
    expect(metrics.get('runCommandConflicts')).toBe(0);
    expect((await auditStore.readStream(STREAM)).streamExists).toBe(false);
  });

  it('under a given event id, tells its own event from a concurrent caller\'s stored under the same id, and folds the one stored', async () => {
    const here = fixture.open();
    const elsewhere = fixture.open();
    const handler = auditHandler(here.auditStore, new RuntimeMetrics());
    await handler.handle(STREAM, recordStep(0));
    // Another process states the same decision at another time (its own recordedAt, so its own hash) first.
    const theirs = await auditHandler(elsewhere.auditStore, new RuntimeMetrics()).handle(STREAM, statementCommand(approval, 5000), { eventId: APPROVAL_ID });
    expect(theirs.appended).toHaveLength(1);
    // Decided on a stale cache at revision 0: the store answers the append under the same id as a repeat.
    const ours = await handler.handle(STREAM, statementCommand(approval, 6000), { eventId: APPROVAL_ID });
    expect(ours.decision.kind).toBe('accepted');
    expect(ours.appended).toEqual([]);
    expect(ours.revision).toBe(1n);
    expect(ours.state.lastHash).toBe(theirs.state.lastHash);
    // The state it keeps is the stored chain's: the next record chains after the other caller's statement.
    const next = await handler.handle(STREAM, recordStep(1));
    expect(next.revision).toBe(2n);
    const records = await chain(here.auditStore);
    expect(records.map((r) => [r.sequence, r.recordedAt])).toEqual([
      [1, 1000],
      [2, 5000],
      [3, 1001],
    ]);
    expect(verifyAuditChain(records)).toEqual([]);
    const stored = await here.auditStore.readStream(STREAM);
    expect(stored.events[1]?.id).toBe(APPROVAL_ID);
  });

  it('starts from a snapshot the caller holds, without reading the stream', async () => {
    const { auditStore } = fixture.open();
    const first = await auditHandler(auditStore, new RuntimeMetrics()).handle(STREAM, recordStep(0));
    const watched = watchedReads(auditStore);
    const handler = auditHandler(watched.store, new RuntimeMetrics(), { cachedStreams: undefined });
    await expect(handler.handle(STREAM, recordStep(1), { known: first })).resolves.toMatchObject({ revision: 1n, state: { sequence: 2 } });
    expect(watched.reads()).toBe(0);
  });

  it('refuses to append several events under one given id, and appends nothing', async () => {
    const { auditStore } = fixture.open();
    const twice: AuditHandlerOptions['decider'] = {
      ...auditDecider,
      decide: (command, state) => {
        const decision = auditDecider.decide(command, state);
        return decision.kind === 'accepted' ? accepted(...decision.events, ...decision.events) : decision;
      },
    };
    const handler = auditHandler(auditStore, new RuntimeMetrics(), { decider: twice });
    await expect(handler.handle(STREAM, statementCommand(approval, 5000), { eventId: APPROVAL_ID })).rejects.toThrow('takes one event');
    expect((await auditStore.readStream(STREAM)).streamExists).toBe(false);
  });
});
