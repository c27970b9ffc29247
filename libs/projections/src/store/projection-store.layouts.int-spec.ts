import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { allTablesOf } from '../core/projection-definition';
import { columnName } from '../core/table-spec';
import { ProjectionRebuilder } from '../rebuild/projection-rebuilder';
import { ProjectionRunner } from '../runner/projection-runner';
import { appendSyntheticHistory } from '../testing/synthetic-history';
import { ProjectionStore } from './projection-store';
import { scaled } from '../../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

/** Whether `table` of the file is clustered on its key (`WITHOUT ROWID`), as versions before issue 27 made every table. */
function withoutRowid(path: string, table: string): boolean {
  const db = new Database(path, { readonly: true });
  try {
    const { sql } = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) as { sql: string };
    return /WITHOUT ROWID\s*$/i.test(sql);
  } finally {
    db.close();
  }
}

/** Makes every (empty) read-model table of a new file what an earlier version created: clustered on its key. */
function toEarlierLayout(path: string): void {
  const store = ProjectionStore.open({ path });
  const tables = store.projections.flatMap((p) => allTablesOf(p));
  store.close();
  const db = new Database(path);
  try {
    for (const table of tables) {
      const columns = Object.keys(table.columns).map((field) => `${columnName(field)}${field === table.key ? ' PRIMARY KEY NOT NULL' : ''}`);
      db.exec(`DROP TABLE ${table.name}`);
      db.exec(`CREATE TABLE ${table.name} (${columns.join(', ')}) WITHOUT ROWID`);
    }
  } finally {
    db.close();
  }
}

describe('read-model files of both table layouts', () => {
  let dir: string;
  let events: SqliteEventStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-projection-layouts-'));
    events = SqliteEventStore.open({ path: join(dir, 'events.sqlite') });
    await appendSyntheticHistory(events, events, 0, 150);
  });

  afterAll(async () => {
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an earlier file (tables clustered on their key) is projected into as it is, then rebuilt into the insertion-ordered layout, with the same rows', async () => {
    const source = { name: 'runs', store: events };
    const fresh = ProjectionStore.open({ path: join(dir, 'fresh.sqlite') });
    const earlierPath = join(dir, 'earlier.sqlite');
    toEarlierLayout(earlierPath);
    const earlier = ProjectionStore.open({ path: earlierPath });
    try {
      await new ProjectionRunner(fresh, source, { batchSize: 64 }).catchUp();
      expect(withoutRowid(fresh.path, 'runs')).toBe(false);

      const runner = new ProjectionRunner(earlier, source, { batchSize: 64 });
      await runner.catchUp();
      expect(withoutRowid(earlierPath, 'runs')).toBe(true);
      expect(earlier.dumpTables()).toEqual(fresh.dumpTables());

      await new ProjectionRebuilder(earlier, [source]).rebuild({ batchSize: 100 });
      expect(withoutRowid(earlierPath, 'runs')).toBe(false);
      expect(withoutRowid(earlierPath, 'steps_streams')).toBe(false);
      expect(earlier.dumpTables()).toEqual(fresh.dumpTables());

      // Both go on taking live batches (rows new and changed) into their layouts.
      await appendSyntheticHistory(events, events, 150, 20);
      await runner.catchUp();
      await new ProjectionRunner(fresh, source, { batchSize: 64 }).catchUp();
      expect(earlier.dumpTables()).toEqual(fresh.dumpTables());
    } finally {
      fresh.close();
      earlier.close();
    }
  });
});
