import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { ExpectedRevision } from '../port/expected-revision';
import type { Worker } from '../testing/child-process';
import { startSqliteWorker } from '../testing/child-process';
import { anEvent, puller, rejectionOf, uniqueStream } from '../testing/contract-helpers';
import { SqliteEventStore } from './sqlite-event-store';
import { scaled } from '../../../../test/support/time-scale';

/**
 * The embedded store shared by several processes on one machine: a real child
 * process (ts-node) opens the same file while this test process uses it.
 */
describe('SqliteEventStore across processes', () => {
  let dir: string;
  let path: string;
  let store: SqliteEventStore;
  const workers: Worker[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-sqlite-processes-'));
    path = join(dir, 'events.sqlite');
    store = SqliteEventStore.open({ path });
  });

  afterEach(async () => {
    for (const w of workers.splice(0)) {
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await w.exited;
    }
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const worker = (...args: string[]): Worker => {
    const w = startSqliteWorker(args);
    workers.push(w);
    return w;
  };

  it('checks the expected revision against appends made by another process', async () => {
    const stream = uniqueStream();
    await store.append(stream, [anEvent()], { expectedRevision: ExpectedRevision.NO_STREAM });
    const { currentRevision } = await store.readStream(stream); // decide on revision 0...
    const other = worker('append-once', path, stream);
    expect(await other.waitForLine(/^appended /)).toBe('appended 1'); // ...another process appends meanwhile
    const error = await rejectionOf(store.append(stream, [anEvent()], { expectedRevision: currentRevision }));
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ expected: 0n, actual: 1n });
    expect(await other.exited).toBe(0);
  }, scaled(30_000));

  it('two processes running read-decide-append loops on one stream never lose an update', async () => {
    const stream = uniqueStream();
    const perProcess = 150;
    const other = worker('increment', path, stream, String(perProcess));
    await other.waitForLine(/^ready$/);
    let conflicts = 0;
    for (let done = 0; done < perProcess; ) {
      const { currentRevision, events } = await store.readStream(stream);
      try {
        await store.append(stream, [anEvent('Incremented', { n: events.length, pid: process.pid })], { expectedRevision: currentRevision });
        done++;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        conflicts++;
      }
    }
    const otherConflicts = Number((await other.waitForLine(/^done /)).split(' ')[1]);
    expect(await other.exited).toBe(0);
    const { events } = await store.readStream(stream);
    expect(events).toHaveLength(2 * perProcess);
    expect(events.map((e) => (e.data as { n: number }).n)).toEqual(events.map((_, i) => i));
    expect(new Set(events.map((e) => (e.data as { pid: number }).pid)).size).toBe(2);
    // Not asserted (scheduling-dependent), but reported when the test is run alone with --verbose.
    void conflicts;
    void otherConflicts;
  }, scaled(60_000));

  it('live subscriptions see the appends of another process, in order, within the polling bound', async () => {
    const stream = uniqueStream();
    const subscription = store.subscribeToStream(stream);
    const pull = puller(subscription);
    const count = 20;
    const other = worker('append-timed', path, stream, String(count), '30');
    const received: Array<{ revision: bigint; latencyMs: number }> = [];
    for (let i = 0; i < count; i++) {
      const [event] = await pull.take(1, 20_000);
      received.push({ revision: event!.revision, latencyMs: Date.now() - (event!.data as { sentAt: number }).sentAt });
    }
    expect(received.map((e) => e.revision)).toEqual(received.map((_, i) => BigInt(i)));
    // The poll interval is capped at 100 ms; 2 s leaves room for a loaded CI machine but fails if live delivery
    // degrades to something like "only on the next unrelated wake-up".
    expect(Math.max(...received.map((e) => e.latencyMs))).toBeLessThan(2_000);
    await other.waitForLine(/^done$/);
    await subscription.close();
  }, scaled(30_000));

  it('an acknowledged append survives the appending process being killed (SIGKILL)', async () => {
    const stream = uniqueStream();
    const other = worker('append-acked', path, stream);
    await other.waitForLine(/^acked 49 /);
    other.child.kill('SIGKILL');
    expect(await other.exited).toBe('SIGKILL');
    const acked = other.lines.filter((l) => l.startsWith('acked ')).map((l) => l.split(' '));

    await store.close();
    store = SqliteEventStore.open({ path });
    const { events } = await store.readStream(stream);
    expect(events.length).toBeGreaterThanOrEqual(acked.length);
    for (const [, revision, id] of acked) expect(events[Number(revision)]?.id).toBe(id);
    expect(events.map((e) => e.revision)).toEqual(events.map((_, i) => BigInt(i)));
  }, scaled(30_000));
});
