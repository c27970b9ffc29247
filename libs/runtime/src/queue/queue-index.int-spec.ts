import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunDecider } from '@agent-ledger/domain';
import type { RunEvent } from '@agent-ledger/domain';
import { RunHistory } from '@agent-ledger/domain/testing';
import { ProcessorStoreMismatchError, SqliteEventStore } from '@agent-ledger/event-store';
import { scaled } from '../../../../test/support/time-scale';
import { EventProcessors } from '../persistence/event-processors';
import { toEventData } from '../persistence/domain-event-codec';
import { runStreamName } from '../persistence/run-streams';
import { QueueIndex } from './queue-index';

jest.setTimeout(scaled(60_000));

const decider = createRunDecider({});
const T0 = 1_000_000;
const WORKER = 'worker:test-host:1';
const LEASE = { owner: WORKER, attempt: 1 };

async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + scaled(10_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('QueueIndex: a checkpointed projection of the unfinished runs', () => {
  let dir: string;
  let store: SqliteEventStore;
  let processors: EventProcessors[];

  async function append(runId: string, events: readonly RunEvent[], from = 0n): Promise<void> {
    await store.append(runStreamName(runId), toEventData(runStreamName(runId), from, events, {}), { expectedRevision: from === 0n ? 'no_stream' : from - 1n });
  }

  /** A process's queue index over the store, its processors' database in the test's folder. */
  function boot(path = join(dir, 'processors.sqlite'), onStoreMismatch?: 'refuse' | 'reset', runStore = store): { index: QueueIndex; host: EventProcessors } {
    const host = new EventProcessors(runStore, runStore, { databasePath: path, onStoreMismatch });
    processors.push(host);
    return { index: new QueueIndex(host), host };
  }

  async function shutdown(host: EventProcessors): Promise<void> {
    await host.onModuleDestroy();
    host.onApplicationShutdown();
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-queue-'));
    store = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    processors = [];
  });

  afterEach(async () => {
    for (const host of processors) await shutdown(host);
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds queued, running and waiting runs with their mode, notBefore and lease, and drops settled ones', async () => {
    const queued = new RunHistory(decider, `run-${randomUUID()}`).request(T0);
    const running = new RunHistory(decider, `run-${randomUUID()}`).request(T0, 'interactive').claim('interactive:test-host:1', T0 + 1);
    const completed = new RunHistory(decider, `run-${randomUUID()}`).request(T0).claim(WORKER, T0).complete(LEASE, 'done', T0 + 2);
    for (const h of [queued, running, completed]) await append(h.runId, h.events);
    const { index, host } = boot();
    await host.open();
    await host.catchUp();

    expect(index.run(queued.runId)).toEqual({ runId: queued.runId, mode: 'queued', status: 'QUEUED', notBefore: T0, leaseExpiresAt: null });
    expect(index.run(running.runId)).toMatchObject({ mode: 'interactive', status: 'RUNNING', leaseExpiresAt: expect.any(Number) });
    expect(index.run(completed.runId)).toBeUndefined();
    expect(index.dueQueued(T0)).toEqual([queued.runId]);
    expect(index.dueQueued(T0 - 1)).toEqual([]);
    expect(index.counts()).toEqual({ queued: 1, running: 1, waiting: 0 });
    const lease = index.run(running.runId)?.leaseExpiresAt ?? 0;
    expect(index.expiredLeases(lease - 1)).toEqual([]);
    expect(index.expiredLeases(lease)).toEqual([running.runId]);
  });

  it("moves a running run's lease on each step start, and nothing else; a step of a run it does not hold adds none", async () => {
    const running = new RunHistory(decider, `run-${randomUUID()}`).request(T0).claim(WORKER, T0);
    await append(running.runId, running.events);
    const { index, host } = boot();
    await host.open();
    await host.catchUp();
    const claimed = index.run(running.runId);
    expect(claimed).toMatchObject({ mode: 'queued', status: 'RUNNING', notBefore: T0 });
    const claimedLease = claimed?.leaseExpiresAt ?? 0;

    const from = BigInt(running.events.length);
    const later = T0 + 60_000;
    running.startLlm(LEASE, 0, later);
    await append(running.runId, running.events.slice(Number(from)), from);
    await host.catchUp();
    const moved = index.run(running.runId);
    expect(moved?.leaseExpiresAt).toBeGreaterThan(claimedLease);
    expect(moved).toEqual({ ...claimed, leaseExpiresAt: moved?.leaseExpiresAt });
    expect(index.expiredLeases(claimedLease)).toEqual([]);
    expect(index.expiredLeases(moved?.leaseExpiresAt ?? 0)).toEqual([running.runId]);

    // A run settled and gone from the table: a late step event of it does not bring it back.
    const settled = new RunHistory(decider, `run-${randomUUID()}`).request(T0).claim(WORKER, T0).startLlm(LEASE, 0, T0 + 1);
    const start = settled.events[settled.events.length - 1] as RunEvent;
    settled.complete(LEASE, 'done', T0 + 2);
    await append(settled.runId, [...settled.events, start]);
    await host.catchUp();
    expect(index.run(settled.runId)).toBeUndefined();
    expect(index.counts()).toEqual({ queued: 0, running: 1, waiting: 0 });
  });

  it('starts from its table and its checkpoint: a restart reads only the events appended since, not the history', async () => {
    const settled: string[] = [];
    for (let i = 0; i < 50; i++) {
      const h = new RunHistory(decider, `run-${randomUUID()}`).request(T0 + i).claim(WORKER, T0 + i).complete(LEASE, 'done', T0 + i);
      await append(h.runId, h.events);
      settled.push(h.runId);
    }
    const unfinished = new RunHistory(decider, `run-${randomUUID()}`).request(T0 + 100);
    await append(unfinished.runId, unfinished.events);
    const first = boot();
    first.index.start();
    await eventually(() => first.index.dueQueued(T0 + 100).length === 1, 'the first process to catch up');
    const historyLength = first.host.stats().runs?.eventsRead ?? 0;
    expect(historyLength).toBeGreaterThanOrEqual(151);
    await shutdown(first.host);

    const later = new RunHistory(decider, `run-${randomUUID()}`).request(T0 + 200);
    await append(later.runId, later.events);
    const second = boot();
    await second.host.open();
    // Before it reads anything, the index already knows the unfinished run from its table.
    expect(second.index.dueQueued(T0 + 100)).toEqual([unfinished.runId]);
    second.index.start();
    await eventually(() => second.index.dueQueued(T0 + 200).length === 2, 'the new run');
    expect(second.index.dueQueued(T0 + 200)).toEqual([unfinished.runId, later.runId]);
    expect(second.host.stats().runs?.eventsRead).toBe(later.events.length);
  });

  it('lists the first due runs up to a limit, oldest due first, and refuses a limit that is not a count', async () => {
    const histories = [3, 1, 2].map((offset) => new RunHistory(decider, `run-${randomUUID()}`).request(T0 + offset));
    for (const h of histories) await append(h.runId, h.events);
    const { index, host } = boot();
    await host.open();
    await host.catchUp();
    const [third, first, second] = histories.map((h) => h.runId);
    expect(index.dueQueued(T0 + 3)).toEqual([first, second, third]);
    expect(index.dueQueued(T0 + 3, 'queued', 2)).toEqual([first, second]);
    expect(index.dueQueued(T0 + 3, 'queued', 0)).toEqual([]);
    expect(index.dueQueued(T0 + 1, 'queued', 5)).toEqual([first]);
    expect(() => index.dueQueued(T0, 'queued', -1)).toThrow(RangeError);
    expect(() => index.dueQueued(T0, 'queued', 1.5)).toThrow(RangeError);
  });

  it('notifies its change signal when a run becomes claimable, and tells cancel listeners of their run only', async () => {
    const { index } = boot();
    index.start();
    const h = new RunHistory(decider, `run-${randomUUID()}`).request(T0);
    const signalled = index.changes.wait(scaled(10_000)).then(() => index.dueQueued(T0));
    await append(h.runId, h.events);
    expect(await signalled).toEqual([h.runId]);

    const cancels: string[] = [];
    index.onCancelRequested(h.runId, () => cancels.push(h.runId));
    const stopOther = index.onCancelRequested('run-other', () => cancels.push('run-other'));
    stopOther();
    const cancelled = new RunHistory(decider, h.runId).request(T0).cancel(T0 + 1).events.slice(h.events.length);
    await append(h.runId, cancelled, BigInt(h.events.length));
    await eventually(() => cancels.length > 0, 'the cancel listener');
    expect(cancels).toEqual([h.runId]);
  });

  it("refuses a processors' database made from another store", async () => {
    const first = boot();
    await first.host.open();
    await shutdown(first.host);
    const other = SqliteEventStore.open({ path: join(dir, 'other.sqlite') });
    try {
      const { host } = boot(join(dir, 'processors.sqlite'), undefined, other);
      await expect(host.open()).rejects.toThrow(ProcessorStoreMismatchError);
    } finally {
      for (const host of processors.splice(1)) await shutdown(host);
      other.close();
    }
  });
});
