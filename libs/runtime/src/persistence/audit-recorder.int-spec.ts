import type { AuditRecorded } from '@agent-ledger/domain';
import { verifyAuditChain } from '@agent-ledger/domain';
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
});
