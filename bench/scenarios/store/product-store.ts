import type { Durability, ExpectedRevision } from '@agent-ledger/event-store';
import { Direction, ExpectedRevision as Expected, isEventStoreError, SqliteEventStore } from '@agent-ledger/event-store';
import type { BenchEvent } from './bench-events';
import type { AppendOutcome, BenchStore, CommitStats, ReadBackEvent, StoreKind, StreamSnapshot } from './bench-store';

/** The product's embedded store behind the scenario's interface. */
class ProductBenchStore implements BenchStore {
  constructor(private readonly store: SqliteEventStore) {}

  async append(streamName: string, events: readonly BenchEvent[], expectedVersion: number): Promise<AppendOutcome> {
    const expectedRevision: ExpectedRevision = expectedVersion === 0 ? Expected.NO_STREAM : BigInt(expectedVersion - 1);
    try {
      const result = await this.store.append(
        streamName,
        events.map((e) => ({ id: e.id, type: e.type, data: e.data })),
        { expectedRevision },
      );
      return { kind: 'appended', version: Number(result.nextExpectedRevision) + 1 };
    } catch (error) {
      if (isEventStoreError(error, 'WRONG_EXPECTED_REVISION')) return { kind: 'conflict' };
      throw error;
    }
  }

  async readStream(streamName: string): Promise<StreamSnapshot> {
    return snapshotOf(this.store, streamName);
  }

  async readVersion(streamName: string): Promise<number> {
    const result = await this.store.readStream(streamName, { direction: Direction.BACKWARDS, maxCount: 1 });
    return result.currentRevision === Expected.NO_STREAM ? 0 : Number(result.currentRevision) + 1;
  }

  async readAll(visit: (event: ReadBackEvent) => void): Promise<number> {
    let count = 0;
    for await (const e of this.store.readAll()) {
      visit({ streamName: e.streamName, version: Number(e.revision) + 1, type: e.type, data: e.data });
      count += 1;
    }
    return count;
  }

  /** Group-commit transactions of this instance; its appends settle after their COMMIT (docs/event-store.md, group commit). */
  commitStats(): CommitStats {
    return { commits: this.store.stats().transactions, acknowledgedBeforeCommit: null };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

async function snapshotOf(store: SqliteEventStore, streamName: string): Promise<StreamSnapshot> {
  const result = await store.readStream(streamName);
  return {
    version: result.currentRevision === Expected.NO_STREAM ? 0 : Number(result.currentRevision) + 1,
    events: result.events.map((e) => ({ streamName: e.streamName, version: Number(e.revision) + 1, type: e.type, data: e.data })),
  };
}

/** `SqliteEventStore` with its defaults (group commit on), in the given durability mode. */
export const productStoreKind: StoreKind<BenchStore> = {
  subject: 'product',
  api: 'SqliteEventStore',
  open: async (path, durability) => new ProductBenchStore(SqliteEventStore.open({ path, durability })),
  describeSettings: async (path, durability: Durability) => {
    const store = SqliteEventStore.open({ path, durability });
    try {
      const d = store.diagnostics();
      return `journal_mode=${d.journalMode} synchronous=${d.synchronous} busyTimeoutMs=5000 (default), group commit ${d.groupCommit ? 'on' : 'off'} (better-sqlite3, one connection)`;
    } finally {
      await store.close();
    }
  },
  readBack: async (path, streamName) => {
    const store = SqliteEventStore.open({ path });
    try {
      return await snapshotOf(store, streamName);
    } finally {
      await store.close();
    }
  },
};
