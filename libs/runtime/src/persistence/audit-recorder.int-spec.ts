import type { AuditRecorded, DecisionStatement } from '@agent-ledger/domain';
import { auditDecider, busPrincipal, verifyAuditChain } from '@agent-ledger/domain';
import type { EventStore, ReadStreamOptions } from '@agent-ledger/event-store';
import type { StoreFixture, StoreKind } from '../testing/store-fixture';
import { startStores } from '../testing/store-fixture';
import { AuditRecorder } from './audit-recorder';
import { auditStreamName } from './run-streams';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** The real store, counting the reads of whole streams (what the recorder's cache saves). */
function countingReads(store: EventStore): { store: EventStore; reads: () => number } {
  let reads = 0;
  const counted = Object.create(store) as EventStore;
  counted.readStream = (name: string, options?: ReadStreamOptions) => {
    reads += 1;
    return store.readStream(name, options);
  };
  return { store: counted, reads: () => reads };
}

const entry = (runId: string, n: number) => ({
  runId,
  stepId: `${runId}/r0/t${n}`,
  kind: 'tool' as const,
  toolName: 'bench.put',
  effect: 'IDEMPOTENT_WRITE' as const,
  idempotencyKey: `k${n}`,
  outcome: 'succeeded' as const,
  attempt: 1,
});

const approval = (decidedBy: string, runId = 'run-3'): DecisionStatement => ({
  kind: 'approval',
  data: {
    runId,
    round: 0,
    decision: 'approved',
    calls: [{ stepId: `${runId}/r0/t0`, toolName: 'files.append', effect: 'NON_IDEMPOTENT_WRITE', argumentsHash: 'a'.repeat(64) }],
    decidedBy: busPrincipal(decidedBy),
    reason: null,
  },
});

/** The failure counters, to tell which one a failure counted. */
const failures = (metrics: RuntimeMetrics) => ({
  auditAppendFailures: metrics.get('auditAppendFailures'),
  auditCommandsRejected: metrics.get('auditCommandsRejected'),
  deciderFailures: metrics.get('deciderFailures'),
});

/** Runs `work` while the audit decider throws (a bug), then restores it. */
async function whileAuditDeciderThrows(work: () => Promise<void>): Promise<void> {
  const decide = jest.spyOn(auditDecider, 'decide').mockImplementation(() => {
    throw new TypeError('a bug in the audit decider');
  });
  try {
    await work();
  } finally {
    decide.mockRestore();
  }
}

describe.each<StoreKind>(['sqlite', 'eventstoredb'])('AuditRecorder on %s (integration)', (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await startStores(kind);
  });
  afterEach(async () => {
    await fixture.close();
  });

  it('reads a run\'s audit stream once, not once per step, and chains every record', async () => {
    const { auditStore } = fixture.open();
    const counted = countingReads(auditStore);
    const recorder = new AuditRecorder(counted.store, new RuntimeMetrics());
    for (let n = 0; n < 10; n++) await expect(recorder.record(entry('run-1', n), 1000 + n)).resolves.toBe(true);
    expect(counted.reads()).toBe(1);
    const stored = await auditStore.readStream(auditStreamName('run-1'));
    const records = stored.events.map((e) => e.data as unknown as AuditRecorded['data']);
    expect(records.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(verifyAuditChain(records)).toEqual([]);
  });

  it('records after another process wrote the stream (its remembered state is stale): the append is decided again on the stream', async () => {
    const first = fixture.open();
    const second = fixture.open();
    const here = new AuditRecorder(first.auditStore, new RuntimeMetrics());
    const elsewhere = new AuditRecorder(second.auditStore, new RuntimeMetrics());
    await expect(here.record(entry('run-2', 0), 1000)).resolves.toBe(true);
    await expect(elsewhere.record(entry('run-2', 1), 1001)).resolves.toBe(true);
    // `here` remembers revision 0; the stream is at 1.
    await expect(here.record(entry('run-2', 2), 1002)).resolves.toBe(true);
    // A step already recorded elsewhere is not recorded twice, even from a stale memory.
    await expect(elsewhere.record(entry('run-2', 2), 1003)).resolves.toBe(true);
    const stored = await first.auditStore.readStream(auditStreamName('run-2'));
    const records = stored.events.map((e) => e.data as unknown as AuditRecorded['data']);
    expect(records.map((r) => [r.stepId, r.sequence])).toEqual([
      ['run-2/r0/t0', 1],
      ['run-2/r0/t1', 2],
      ['run-2/r0/t2', 3],
    ]);
    expect(verifyAuditChain(records)).toEqual([]);
  });

  it('answers false for an entry the audit decider refuses, counted as rejected (not as a store failure), and stores nothing', async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const recorder = new AuditRecorder(auditStore, metrics);
    await expect(recorder.record({ ...entry('run-4', 0), stepId: 'run-5/r0/t0' }, 1000)).resolves.toBe(false);
    expect(failures(metrics)).toEqual({ auditAppendFailures: 0, auditCommandsRejected: 1, deciderFailures: 0 });
    expect((await auditStore.readStream(auditStreamName('run-4'))).streamExists).toBe(false);
  });

  it('states a decision once: stored, then already stored; a different statement of it is notStored, counted as rejected', async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const recorder = new AuditRecorder(auditStore, metrics);
    await expect(recorder.recordStatement(approval('alice'), 1000)).resolves.toBe('stored');
    await expect(new AuditRecorder(fixture.open().auditStore, new RuntimeMetrics()).recordStatement(approval('alice'), 2000)).resolves.toBe('alreadyStored');
    await expect(recorder.recordStatement(approval('bob'), 3000)).resolves.toBe('notStored');
    expect(failures(metrics)).toEqual({ auditAppendFailures: 0, auditCommandsRejected: 1, deciderFailures: 0 });
    expect((await auditStore.readStream(auditStreamName('run-3'))).events).toHaveLength(1);
  });

  it('answers false when the audit store refuses the append, counted as a store failure', async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const recorder = new AuditRecorder(auditStore, metrics);
    const repair = fixture.breakAuditStore();
    try {
      await expect(recorder.record(entry('run-6', 0), 1000)).resolves.toBe(false);
      await expect(recorder.recordStatement(approval('alice', 'run-6'), 1000)).resolves.toBe('notStored');
    } finally {
      repair();
    }
    expect(failures(metrics)).toEqual({ auditAppendFailures: 2, auditCommandsRejected: 0, deciderFailures: 0 });
    await expect(recorder.record(entry('run-6', 0), 1001)).resolves.toBe(true);
  });

  it('answers false when the audit decider throws (a bug), counted as a decider failure, not as a store failure', async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const recorder = new AuditRecorder(auditStore, metrics);
    await whileAuditDeciderThrows(async () => {
      await expect(recorder.record(entry('run-7', 0), 1000)).resolves.toBe(false);
      await expect(recorder.recordStatement(approval('alice', 'run-7'), 1000)).resolves.toBe('notStored');
    });
    expect(failures(metrics)).toEqual({ auditAppendFailures: 0, auditCommandsRejected: 0, deciderFailures: 2 });
    expect((await auditStore.readStream(auditStreamName('run-7'))).streamExists).toBe(false);
  });

  it("a step's audit the decider throws on is counted once: the one-commit decision leaves it to the record that follows", async () => {
    const { auditStore } = fixture.open();
    const metrics = new RuntimeMetrics();
    const recorder = new AuditRecorder(auditStore, metrics);
    await whileAuditDeciderThrows(async () => {
      // The step appender's path: no decision for the one commit, then the audit recorded on its own.
      await expect(recorder.decideAudit(entry('run-8', 0), 1000)).resolves.toBeNull();
      expect(failures(metrics)).toEqual({ auditAppendFailures: 0, auditCommandsRejected: 0, deciderFailures: 0 });
      await expect(recorder.record(entry('run-8', 0), 1000)).resolves.toBe(false);
    });
    expect(failures(metrics)).toEqual({ auditAppendFailures: 0, auditCommandsRejected: 0, deciderFailures: 1 });
  });
});
