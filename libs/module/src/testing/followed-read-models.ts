import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProjectionSource } from '@agent-ledger/projections';
import { ProjectionQueries, ProjectionRunner, ProjectionStore } from '@agent-ledger/projections';
import type { RuntimeHarness } from '@agent-ledger/runtime/testing';
import { eventually } from '@agent-ledger/runtime/testing';

/** The read models of a runtime harness's stores, in a file of their own, followed by one runner per store. */
export interface FollowedReadModels {
  readonly store: ProjectionStore;
  readonly queries: ProjectionQueries;
  /** Resolves once every projection has caught up with its store's head. */
  caughtUp(): Promise<void>;
  /** Stops the runners, closes the file and removes its folder. */
  close(): Promise<void>;
}

/** Starts following `rt`'s run and audit stores into read models in a temporary folder. */
export async function followReadModels(rt: RuntimeHarness, options: { readonly batchSize?: number } = {}): Promise<FollowedReadModels> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-read-models-'));
  const sources: ProjectionSource[] = [
    { name: 'runs', store: rt.runStore },
    { name: 'audit', store: rt.auditStore },
  ];
  const store = ProjectionStore.open({ path: join(dir, 'read-models.sqlite') });
  const queries = new ProjectionQueries(store, sources);
  const runners = sources.map((source) => new ProjectionRunner(store, source, { batchSize: options.batchSize ?? 5 }));
  for (const runner of runners) await runner.start();
  return {
    store,
    queries,
    async caughtUp() {
      await eventually(async () => ((await queries.projectionStatus()).every((s) => s.caughtUp === true) ? true : undefined), 20_000, 'the projections to catch up');
    },
    async close() {
      for (const runner of runners) await runner.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
