import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../../../../test/support/time-scale';
import type { RecordedEvent } from '../port/event';
import type { Position } from '../port/position';
import { categoryFilter, eventTypeFilter } from '../port/event-filter';
import { SqliteEventStore } from '../sqlite/sqlite-event-store';
import { startWorkerScript } from '../testing/child-process';
import { RecordingProcessor } from '../testing/recording-processor';
import { ProcessorDatabase } from './processor-database';
import type { ProcessorFailure } from './processor-runner';
import { ProcessorRunner } from './processor-runner';
import { ProcessorStoreMismatchError } from './processor-store-mismatch.error';

jest.setTimeout(scaled(60_000));

/** Polls `condition` until it holds, failing after a scaled deadline. */
async function eventually(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Appends `count` events, one stream per `perStream`, in `category`; returns their ids in order. */
async function appendEvents(store: SqliteEventStore, count: number, category = 'run', type = 'Tick', perStream = 10): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += perStream) {
    const events = Array.from({ length: Math.min(perStream, count - i) }, (_, k) => ({ id: randomUUID(), type, data: { n: i + k } }));
    await store.append(`${category}-${randomUUID()}`, events, { expectedRevision: 'any' });
    ids.push(...events.map((e) => e.id));
  }
  return ids;
}

describe('ProcessorRunner (embedded store on disk)', () => {
  let dir: string;
  let store: SqliteEventStore;
  const opened: Array<{ close(): unknown }> = [];
  const runners: ProcessorRunner[] = [];

  function database(name = 'processors.sqlite'): ProcessorDatabase {
    const db = ProcessorDatabase.open({ path: join(dir, name) });
    opened.push(db);
    return db;
  }

  function runner(options: ConstructorParameters<typeof ProcessorRunner>[0]): ProcessorRunner {
    const created = new ProcessorRunner({ onError: () => undefined, ...options });
    runners.push(created);
    return created;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-processors-'));
    store = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    opened.push(store);
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    for (const o of opened.splice(0).reverse()) o.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('feeds each processor the events that match its filter, in order, and keeps each checkpoint', async () => {
    const runs = await appendEvents(store, 30, 'run');
    const audits = await appendEvents(store, 20, 'audit', 'AuditRecorded');
    const db = database();
    const runProcessor = new RecordingProcessor(db, 'runs-only', categoryFilter('run'));
    const auditProcessor = new RecordingProcessor(db, 'audits-only', eventTypeFilter('AuditRecorded'));
    const all = new RecordingProcessor(db, 'everything');
    const r = runner({ store, source: 'runs', database: db, processors: [runProcessor, auditProcessor, all], batchSize: 8 });
    await r.start();
    await eventually(() => all.appliedIds().length === 50, 'every event applied');
    const more = await appendEvents(store, 5, 'run');

    await eventually(() => runProcessor.appliedIds().length === 35, 'the live events applied');
    expect(runProcessor.appliedIds()).toEqual([...runs, ...more]);
    expect(auditProcessor.appliedIds()).toEqual(audits);
    expect(all.appliedIds()).toEqual([...runs, ...audits, ...more]);
    expect(runProcessor.observed.map((e) => e.id)).toEqual([...runs, ...more]);
    const head = (await lastEvent(store)).position;
    await eventually(() => db.checkpoint('everything', 'runs') === head, 'the checkpoint at the head');
    expect(db.checkpoint('runs-only', 'runs')).toBe(head);
    expect(r.stats()).toMatchObject({ failures: 0, eventsRead: 55, applied: { 'runs-only': 35, 'audits-only': 20, everything: 55 } });
    expect(r.stats().largestBatch).toBeLessThanOrEqual(8);
  });

  it('resumes after its checkpoint on restart: it reads only the events appended since, and applies none twice', async () => {
    const first = await appendEvents(store, 100);
    const path = join(dir, 'processors.sqlite');
    let db = ProcessorDatabase.open({ path });
    let processor = new RecordingProcessor(db, 'p');
    const before = runner({ store, source: 'runs', database: db, processors: [processor] });
    await before.catchUp();
    expect(before.stats().eventsRead).toBe(100);
    db.close();

    const second = await appendEvents(store, 7);
    db = database();
    processor = new RecordingProcessor(db, 'p');
    const after = runner({ store, source: 'runs', database: db, processors: [processor] });
    await after.start();
    await eventually(() => processor.appliedIds().length === 107, 'the new events applied');
    expect(after.stats().eventsRead).toBe(7);
    expect(processor.appliedIds()).toEqual([...first, ...second]);
  });

  it('gives a processor added later the whole history, and the others only what they have not applied', async () => {
    const ids = await appendEvents(store, 40);
    const db = database();
    const old = new RecordingProcessor(db, 'old');
    await runner({ store, source: 'runs', database: db, processors: [old] }).catchUp();
    const later = await appendEvents(store, 3);

    const again = new RecordingProcessor(db, 'old');
    const fresh = new RecordingProcessor(db, 'fresh');
    const r = runner({ store, source: 'runs', database: db, processors: [again, fresh] });
    await r.catchUp();
    expect(fresh.appliedIds()).toEqual([...ids, ...later]);
    expect(again.appliedIds()).toEqual([...ids, ...later]);
    expect(r.stats().applied).toEqual({ old: 3, fresh: 43 });
  });

  it('rolls the whole batch back when a processor throws (the other processors and the checkpoints too), retries with a doubling back-off, and counts and reports each failure', async () => {
    const ids = await appendEvents(store, 20);
    const db = database();
    const healthy = new RecordingProcessor(db, 'healthy');
    const failing = new RecordingProcessor(db, 'failing');
    let failuresLeft = 3;
    const poison = ids[12];
    failing.failWhen = (event) => event.id === poison && failuresLeft-- > 0;
    const reports: ProcessorFailure[] = [];
    const r = runner({
      store,
      source: 'runs',
      database: db,
      processors: [healthy, failing],
      batchSize: 5,
      retryDelayMs: 10,
      maxRetryDelayMs: 25,
      onError: (_error, failure) => reports.push(failure),
    });
    await r.start();
    await eventually(() => reports.length >= 1, 'the first failure');
    // The batch of the poison event (events 10..14) is not there, for neither processor, and neither checkpoint moved past event 9.
    expect(healthy.appliedIds()).toEqual(ids.slice(0, 10));
    expect(failing.appliedIds()).toEqual(ids.slice(0, 10));
    await eventually(() => failing.appliedIds().length === 20, 'the batch applied once the processor recovers');

    expect(healthy.appliedIds()).toEqual(ids);
    expect(failing.appliedIds()).toEqual(ids);
    expect(reports).toEqual([
      { source: 'runs', attempt: 1, retryInMs: 10 },
      { source: 'runs', attempt: 2, retryInMs: 20 },
      { source: 'runs', attempt: 3, retryInMs: 25 },
    ]);
    expect(r.stats()).toMatchObject({ failures: 3, lastError: `failing fails on Tick ${poison}` });
  });

  it('stops after the batch in progress: that batch commits whole, no batch starts after it', async () => {
    const ids = await appendEvents(store, 50);
    const db = database();
    const processor = new RecordingProcessor(db, 'p');
    const r = runner({ store, source: 'runs', database: db, processors: [processor], batchSize: 10 });
    let stopped: Promise<void> | null = null;
    processor.onApply = () => {
      if (processor.appliedIds().length === 20) stopped = r.stop();
    };
    await r.start();
    await eventually(() => stopped !== null, 'the stop during the third batch');
    await stopped;

    expect(processor.appliedIds()).toEqual(ids.slice(0, 30));
    expect(db.checkpoint('p', 'runs')).toBe(await positionOf(store, 29));
    expect(r.stats().running).toBe(false);
  });

  it('applies nothing twice after a SIGKILL during its batches, and skips nothing', async () => {
    const ids = await appendEvents(store, 3000, 'run', 'Tick', 50);
    const path = join(dir, 'processors.sqlite');
    const child = startWorkerScript(join(__dirname, '..', 'testing', 'processor-worker.ts'), [join(dir, 'events.sqlite'), path, '7']);
    await child.waitForLine(/^batch 40$/);
    child.child.kill('SIGKILL');
    await child.exited;

    const db = database();
    const processor = new RecordingProcessor(db, 'crash');
    const appliedBefore = processor.appliedIds().length;
    expect(appliedBefore).toBeGreaterThanOrEqual(39 * 7);
    expect(appliedBefore).toBeLessThan(3000);
    const r = runner({ store, source: 'runs', database: db, processors: [processor], batchSize: 7 });
    await r.catchUp();
    expect(processor.appliedIds()).toEqual(ids);
    expect(r.stats().eventsRead).toBe(3000 - appliedBefore);
  });

  it('lets every process sharing the database observe a batch another process applied, without applying it again', async () => {
    const ids = await appendEvents(store, 12);
    const first = database();
    const second = database();
    const a = new RecordingProcessor(first, 'p');
    await runner({ store, source: 'runs', database: first, processors: [a] }).catchUp();
    const b = new RecordingProcessor(second, 'p');
    // A processor new to the database makes the runner read from the start: `p`'s first 12 events were applied by the other connection.
    const q = new RecordingProcessor(second, 'q');
    const r = runner({ store, source: 'runs', database: second, processors: [b, q] });
    await r.start();
    const more = await appendEvents(store, 2);
    await eventually(() => b.appliedIds().length === 14 && b.observed.length === 14, 'the new events applied');
    expect(b.appliedIds()).toEqual([...ids, ...more]);
    expect(b.observed.map((e) => e.id)).toEqual([...ids, ...more]);
    expect(r.stats().applied).toEqual({ p: 2, q: 14 });
  });

  it('caughtUp() resolves once the following runner has applied what was stored when it was called, without reading the store a second time', async () => {
    const ids = await appendEvents(store, 10);
    const db = database();
    const processor = new RecordingProcessor(db, 'p');
    const r = runner({ store, source: 'runs', database: db, processors: [processor], batchSize: 4 });
    // Not following: it catches up.
    await r.caughtUp();
    expect(processor.appliedIds()).toEqual(ids);
    await r.start();
    const more = await appendEvents(store, 25);
    await r.caughtUp();

    expect(processor.appliedIds()).toEqual([...ids, ...more]);
    expect(r.stats().eventsRead).toBe(35);
    expect(processor.observed.map((e) => e.id)).toEqual([...ids, ...more]);
    // Caught up already: it resolves at once.
    await r.caughtUp();
  });

  describe('processors kept in two databases', () => {
    it('reads the store once for both, applies each batch in each database with its checkpoints, and resumes from the lowest checkpoint', async () => {
      const ids = await appendEvents(store, 30);
      const first = database('first.sqlite');
      const second = database('second.sqlite');
      const a = new RecordingProcessor(first, 'a');
      const b = new RecordingProcessor(second, 'b');
      const r = runner({ store, source: 'runs', database: first, processors: [a], batchSize: 8 });
      r.add(b, second);
      await r.catchUp();

      expect(a.appliedIds()).toEqual(ids);
      expect(b.appliedIds()).toEqual(ids);
      const head = (await lastEvent(store)).position;
      expect([first.checkpoint('a', 'runs'), second.checkpoint('b', 'runs')]).toEqual([head, head]);
      // Each database holds its own processor's checkpoint only.
      expect([first.checkpoint('b', 'runs'), second.checkpoint('a', 'runs')]).toEqual([null, null]);
      expect([first.sourceIdentity('runs'), second.sourceIdentity('runs')]).toEqual([(await store.storeIdentity()).id, (await store.storeIdentity()).id]);
      expect(r.stats()).toMatchObject({ eventsRead: 30, batches: 4, applied: { a: 30, b: 30 } });

      // b's database lost its last batches (restored from a copy): the next runner reads from b's checkpoint, a skips what it has.
      const more = await appendEvents(store, 4);
      moveBack(second, 'b', ids.slice(20), await positionOf(store, 19));
      const again = runner({ store, source: 'runs', database: first, processors: [new RecordingProcessor(first, 'a')] });
      again.add(new RecordingProcessor(second, 'b'), second);
      await again.catchUp();
      expect(a.appliedIds()).toEqual([...ids, ...more]);
      expect(b.appliedIds()).toEqual([...ids, ...more]);
      expect(again.stats()).toMatchObject({ eventsRead: 14, applied: { a: 4, b: 14 } });
    });

    it('commits each database on its own: a processor that throws rolls back its own database\'s part of the batch, and the next attempt gives the batch only to it', async () => {
      const ids = await appendEvents(store, 12);
      const first = database('first.sqlite');
      const second = database('second.sqlite');
      const a = new RecordingProcessor(first, 'a');
      const b = new RecordingProcessor(second, 'b');
      b.failWhen = (event) => event.id === ids[6];
      const r = runner({ store, source: 'runs', database: first, processors: [a], batchSize: 4 });
      r.add(b, second);

      await expect(r.catchUp()).rejects.toThrow(`b fails on Tick ${ids[6]}`);
      // The batch of events 4..7 committed in the first database, not in the second.
      expect(a.appliedIds()).toEqual(ids.slice(0, 8));
      expect(b.appliedIds()).toEqual(ids.slice(0, 4));
      expect(first.checkpoint('a', 'runs')).toBe(await positionOf(store, 7));
      expect(second.checkpoint('b', 'runs')).toBe(await positionOf(store, 3));

      b.failWhen = null;
      const again = runner({ store, source: 'runs', database: first, processors: [new RecordingProcessor(first, 'a')], batchSize: 4 });
      again.add(new RecordingProcessor(second, 'b'), second);
      await again.catchUp();
      // Each applied once (a second application would break the recording table's key).
      expect(a.appliedIds()).toEqual(ids);
      expect(b.appliedIds()).toEqual(ids);
      expect(again.stats().applied).toEqual({ a: 4, b: 8 });
    });

    it('applies the live events of a store added with deferMs together once its time is up, while the other store applies each at once; caughtUp() and stop() wait for it', async () => {
      const first = database('first.sqlite');
      const second = database('second.sqlite');
      const a = new RecordingProcessor(first, 'a');
      const b = new RecordingProcessor(second, 'b');
      let applies = 0;
      b.onApply = () => applies++;
      const r = runner({ store, source: 'runs', database: first, processors: [a] });
      r.add(b, second, { deferMs: scaled(2_000) });
      await r.start();

      const ids = await appendEvents(store, 3, 'run', 'Tick', 1);
      await eventually(() => a.appliedIds().length === 3, 'the events applied at once in the first database');
      expect(b.appliedIds()).toEqual([]);
      await r.caughtUp();
      expect(b.appliedIds()).toEqual(ids);
      expect(applies).toBe(1);

      const more = await appendEvents(store, 2, 'run', 'Tick', 1);
      await eventually(() => a.appliedIds().length === 5, 'the next events applied at once');
      await r.stop();
      expect(b.appliedIds()).toEqual([...ids, ...more]);
      expect(applies).toBe(2);
      expect(second.checkpoint('b', 'runs')).toBe((await lastEvent(store)).position);
    });

    it('after a SIGKILL during its batches, each database holds whole batches with its checkpoint, and a restart applies the rest once', async () => {
      const ids = await appendEvents(store, 3000, 'run', 'Tick', 50);
      const child = startWorkerScript(join(__dirname, '..', 'testing', 'processor-worker.ts'), [join(dir, 'events.sqlite'), join(dir, 'first.sqlite'), '7', join(dir, 'second.sqlite')]);
      await child.waitForLine(/^batch 40$/);
      child.child.kill('SIGKILL');
      await child.exited;

      const first = database('first.sqlite');
      const second = database('second.sqlite');
      const a = new RecordingProcessor(first, 'crash');
      const b = new RecordingProcessor(second, 'crash-2');
      for (const [db, processor] of [[first, a], [second, b]] as const) {
        const applied = processor.appliedIds();
        expect(applied.length % 7).toBe(0);
        expect(applied).toEqual(ids.slice(0, applied.length));
        // Rows and checkpoint committed together: the checkpoint is the last applied event.
        expect(db.checkpoint(processor.name, 'runs')).toBe(applied.length === 0 ? null : await positionOf(store, applied.length - 1));
      }
      expect(a.appliedIds().length).toBeGreaterThanOrEqual(39 * 7);
      const r = runner({ store, source: 'runs', database: first, processors: [a], batchSize: 7 });
      r.add(b, second);
      await r.catchUp();
      expect(a.appliedIds()).toEqual(ids);
      expect(b.appliedIds()).toEqual(ids);
    });
  });

  describe('a checkpoint moved back under a following runner', () => {
    it('writes nothing for the batch, reads again from the checkpoints, and applies what was skipped once (a resubscription, not a failure)', async () => {
      const ids = await appendEvents(store, 20);
      const db = database();
      const processor = new RecordingProcessor(db, 'p');
      const r = runner({ store, source: 'runs', database: db, processors: [processor], batchSize: 5 });
      await r.start();
      await eventually(() => processor.appliedIds().length === 20, 'the history applied');

      // As a rebuild swapped in would: another connection moves p's state and checkpoint back to event 9.
      const other = database();
      moveBack(other, 'p', ids.slice(10), await positionOf(store, 9));
      const more = await appendEvents(store, 3);

      await eventually(() => processor.appliedIds().length === 23, 'the skipped and the new events applied');
      expect(processor.appliedIds()).toEqual([...ids, ...more]);
      // The events read again are not observed again.
      expect(processor.observed.map((e) => e.id)).toEqual([...ids, ...more]);
      expect(r.stats()).toMatchObject({ resubscriptions: 1, failures: 0, lastError: null });
      expect(db.checkpoint('p', 'runs')).toBe((await lastEvent(store)).position);
    });
  });

  describe('store identity', () => {
    it('refuses a database made from another store, writing nothing', async () => {
      await appendEvents(store, 3);
      const db = database();
      await runner({ store, source: 'runs', database: db, processors: [new RecordingProcessor(db, 'p')] }).catchUp();
      const other = SqliteEventStore.open({ path: join(dir, 'other.sqlite') });
      opened.push(other);
      const processor = new RecordingProcessor(db, 'p');
      const r = runner({ store: other, source: 'runs', database: db, processors: [processor] });

      await expect(r.start()).rejects.toThrow(ProcessorStoreMismatchError);
      expect(processor.appliedIds()).toHaveLength(3);
      expect(db.sourceIdentity('runs')).toBe((await store.storeIdentity()).id);
      expect(r.stats().running).toBe(false);
    });

    it('with onStoreMismatch reset, forgets every processor state and checkpoint of that source, logs it, and follows the new store from its start', async () => {
      await appendEvents(store, 3);
      const db = database();
      await runner({ store, source: 'runs', database: db, processors: [new RecordingProcessor(db, 'p')] }).catchUp();
      const other = SqliteEventStore.open({ path: join(dir, 'other.sqlite') });
      opened.push(other);
      const otherIds = await appendEvents(other, 2);
      const processor = new RecordingProcessor(db, 'p');
      const logs: string[] = [];
      const r = runner({ store: other, source: 'runs', database: db, processors: [processor], onStoreMismatch: 'reset', log: (m) => logs.push(m) });

      await r.catchUp();
      expect(processor.resets).toBe(1);
      expect(processor.appliedIds()).toEqual(otherIds);
      expect(db.sourceIdentity('runs')).toBe((await other.storeIdentity()).id);
      expect(logs).toEqual([expect.stringMatching(/made from event store .* for source "runs".*reset it \(onStoreMismatch: reset\)/)]);
    });
  });

  it('names the option it refuses', () => {
    const db = database();
    expect(() => new ProcessorRunner({ store, source: 'no spaces', database: db })).toThrow(/Invalid option source/);
    expect(() => new ProcessorRunner({ store, source: 'runs', database: db, batchSize: 0 })).toThrow(/Invalid option batchSize/);
    expect(() => new ProcessorRunner({ store, source: 'runs', database: db, processors: [new RecordingProcessor(db, 'p'), new RecordingProcessor(db, 'p')] })).toThrow(
      /Invalid option processors.name: "p" is there twice/,
    );
    expect(() => ProcessorDatabase.open({ path: '' })).toThrow(/Invalid option processorDatabase.path/);
    const deferring = new ProcessorRunner({ store, source: 'runs', database: db });
    const other = database('other.sqlite');
    deferring.add(new RecordingProcessor(other, 'x'), other, { deferMs: 10 });
    expect(() => deferring.add(new RecordingProcessor(other, 'y'), other, { deferMs: 5 })).toThrow(/Invalid option deferMs: .* defers by 10 ms already, got 5/);
    expect(() => deferring.add(new RecordingProcessor(db, 'z'), db, { deferMs: -1 })).toThrow(/Invalid option deferMs/);
  });
});

/** Takes a processor back to `position`, as a restored copy or a rebuild swapped in would: forgets the events it applied after it, in one transaction. */
function moveBack(db: ProcessorDatabase, processor: string, forgotten: readonly string[], position: Position): void {
  db.transaction(() => {
    db.sqlite.prepare(`DELETE FROM applied_events WHERE processor = ? AND event_id IN (${forgotten.map(() => '?').join(', ')})`).run(processor, ...forgotten);
    db.saveCheckpoint(processor, 'runs', position);
  });
}

async function lastEvent(store: SqliteEventStore): Promise<RecordedEvent> {
  for await (const event of store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) return event;
  throw new Error('empty store');
}

async function positionOf(store: SqliteEventStore, index: number): Promise<Position> {
  let i = 0;
  for await (const event of store.readAll({})) if (i++ === index) return event.position;
  throw new Error(`no event ${index}`);
}
