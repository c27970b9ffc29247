import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Position } from '@agent-ledger/event-store';
import { comparePositions, SqliteEventStore } from '@agent-ledger/event-store';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import { RebuildPhase } from '../rebuild/rebuild-progress';
import { ProjectionStore } from '../store/projection-store';
import { appendSyntheticHistory } from '../testing/synthetic-history';
import { ProjectionRunner } from './projection-runner';
import { scaled } from '../../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

/** Polls `condition` until it holds, failing after a scaled deadline. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + scaled(20_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function head(events: SqliteEventStore): Promise<Position> {
  for await (const event of events.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) return event.position;
  throw new Error('empty store');
}

describe('a live runner under a rebuild swapped in behind its cursor', () => {
  let dir: string;
  let events: SqliteEventStore;
  let store: ProjectionStore;
  let runner: ProjectionRunner;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projection-swap-'));
    events = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
  });

  afterEach(async () => {
    await runner?.stop();
    store.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes nothing past the rebuilt checkpoint, reads again from it, and ends with the rows of a fresh projection (a resubscription, not a failure)', async () => {
    await appendSyntheticHistory(events, events, 0, 40);
    const source = { name: 'runs', store: events };
    runner = new ProjectionRunner(store, source, { batchSize: 16, batchLingerMs: 0 });
    await runner.start();
    let at = await head(events);
    await eventually(() => runner.stats().position === at, 'the history projected');

    // The rebuild has caught up and is about to swap; meanwhile runs are appended and the live runner applies them.
    const rebuild = new ProjectionRebuilder(store, [source]).rebuildWithProgress({ batchSize: 100, progressIntervalMs: 0 });
    let next = await rebuild.next();
    while (!next.done && next.value.phase !== RebuildPhase.CATCHING_UP) next = await rebuild.next();
    await appendSyntheticHistory(events, events, 40, 10);
    at = await head(events);
    await eventually(() => runner.stats().position === at, 'the late runs projected live');
    while (!next.done) next = await rebuild.next();
    const rebuilt = store.checkpoint('runStatus', 'runs')?.position ?? null;
    expect(rebuilt).not.toBeNull();
    expect(comparePositions(rebuilt as Position, at)).toBeLessThan(0);

    await appendSyntheticHistory(events, events, 50, 5);
    at = await head(events);
    await eventually(() => store.checkpoints().every((c) => c.position === at), 'every checkpoint at the head');

    const fresh = ProjectionStore.open({ path: join(dir, 'fresh.sqlite') });
    try {
      await new ProjectionRunner(fresh, source).catchUp();
      expect(store.dumpTables()).toEqual(fresh.dumpTables());
      const counts = (s: ProjectionStore) => s.checkpoints().map(({ projection, position, eventsApplied }) => ({ projection, position, eventsApplied }));
      expect(counts(store)).toEqual(counts(fresh));
    } finally {
      fresh.close();
    }
    expect(runner.stats()).toMatchObject({ resubscriptions: 1, failures: 0, lastError: null });
  });
});
