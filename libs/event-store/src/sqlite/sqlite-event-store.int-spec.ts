import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '../port/event-store';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { Durability } from './sqlite-options';
import { SqliteEventStore } from './sqlite-event-store';

const root = mkdtempSync(join(tmpdir(), 'agent-ledger-sqlite-contract-'));
let files = 0;
const pathOf = new WeakMap<EventStore, string>();

function openAt(path: string, durability: Durability, groupCommit: boolean): EventStore {
  const store = SqliteEventStore.open({ path, durability, groupCommit });
  pathOf.set(store, path);
  return store;
}

for (const [label, durability, groupCommit] of [
  ['SqliteEventStore (processCrash, group commit)', Durability.PROCESS_CRASH, true],
  ['SqliteEventStore (powerLoss, no group commit)', Durability.POWER_LOSS, false],
] as const) {
  describeEventStoreContract(label, {
    create: () => openAt(join(root, `store-${++files}.sqlite`), durability, groupCommit),
    reopen: async (store) => {
      const path = pathOf.get(store) as string;
      await store.close();
      return openAt(path, durability, groupCommit);
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  });
}
