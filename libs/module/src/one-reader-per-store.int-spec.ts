import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { StepRow } from '@agent-ledger/projections';
import { GetRun, GetRunSteps, ProjectionRunnerPool, ProjectionStore } from '@agent-ledger/projections';
import type { AgentDefinition } from '@agent-ledger/runtime';
import { EventProcessors, StartRun } from '@agent-ledger/runtime';
import type { AgentLedgerModuleOptions } from './agent-ledger.module';
import { AgentLedgerModule } from './agent-ledger.module';
import { scaled } from '../../../test/support/time-scale';

jest.setTimeout(scaled(60_000));

const AGENTS: AgentDefinition[] = [
  {
    name: 'reader',
    instructions: 'Read the clock.',
    tools: ['clock.now'],
    maxIterations: 3,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'clock.now', arguments: {} }] }, { final: 'read' }] },
  },
];

/** The store, counting the subscriptions to its `$all`. */
function counted(store: SqliteEventStore, subscriptions: { count: number }): EventStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'subscribeToAll') {
        return (...args: Parameters<EventStore['subscribeToAll']>) => {
          subscriptions.count++;
          return target.subscribeToAll(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(['forRoot', 'forRootAsync'] as const)('AgentLedgerModule.%s with read models: one reader of each store per process', (variant) => {
  let dir: string;
  let runStore: SqliteEventStore;
  let auditStore: SqliteEventStore;
  let app: INestApplicationContext;
  const runSubscriptions = { count: 0 };
  const auditSubscriptions = { count: 0 };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-one-reader-'));
    runStore = SqliteEventStore.open({ path: join(dir, 'runs.sqlite'), maxPollIntervalMs: 20 });
    auditStore = SqliteEventStore.open({ path: join(dir, 'audit.sqlite'), maxPollIntervalMs: 20 });
    runSubscriptions.count = 0;
    auditSubscriptions.count = 0;
    const options: AgentLedgerModuleOptions = {
      store: counted(runStore, runSubscriptions),
      auditStore: counted(auditStore, auditSubscriptions),
      agents: AGENTS,
      tools: { builtins: { clock: true } },
      workers: { concurrency: 1, pollIntervalMs: 20 },
      reaper: { intervalMs: 0 },
      auditGapSaga: { databasePath: join(dir, 'saga.sqlite'), checkIntervalMs: 0 },
      processors: { databasePath: join(dir, 'processors.sqlite') },
      readModels: { databasePath: join(dir, 'read-models.sqlite') },
    };
    const ledger: DynamicModule =
      variant === 'forRoot' ? AgentLedgerModule.forRoot(options) : AgentLedgerModule.forRootAsync({ useFactory: () => options, readModels: true });
    @Module({ imports: [ledger] })
    class HostModule {}
    app = await NestFactory.createApplicationContext(HostModule, { logger: false });
    app.enableShutdownHooks();
  });

  afterEach(async () => {
    await app?.close();
    await runStore?.close();
    await auditStore?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("feeds the read models, the queue and the saga from one subscription to each store's $all, each batch in one transaction of each file", async () => {
    const started = await app.get(CommandBus).execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'reader', input: 'now', mode: 'interactive', runId: 'one-reader' }));
    expect(started).toMatchObject({ status: 'COMPLETED' });
    await app.get(ProjectionRunnerPool).catchUp();

    const queries = app.get(QueryBus);
    expect(await queries.execute(new GetRun('one-reader'))).toMatchObject({ status: 'COMPLETED', stepsTotal: 3 });
    // The steps' audit state comes from the audit store's events.
    const steps: StepRow[] = await queries.execute(new GetRunSteps('one-reader'));
    expect(steps.map((s) => s.auditState)).toEqual(steps.map(() => 'recorded'));
    expect([runSubscriptions.count, auditSubscriptions.count]).toEqual([1, 1]);

    // The runtime's runners carry the projections beside their own processors; the pool reports their counters.
    const runners = app.get(EventProcessors).stats();
    expect(Object.keys(runners.runs?.applied ?? {})).toEqual(expect.arrayContaining(['runStatus', 'steps', 'auditReview', 'approvals']));
    expect(Object.keys(runners.audit?.applied ?? {})).toEqual(expect.arrayContaining(['runStatus', 'steps', 'auditReview', 'approvals']));
    const pool = app.get(ProjectionRunnerPool).stats();
    expect(pool['runs']).toMatchObject({ running: true, failures: 0, batches: runners.runs?.batches });
    expect(pool['runs']?.eventsApplied).toBeGreaterThan(0);
    expect(pool['audit']?.eventsApplied).toBeGreaterThan(0);
    // Each projection's checkpoint is kept in the read models' file, at the head of its store.
    const store = app.get(ProjectionStore);
    const heads = { runs: await head(runStore), audit: await head(auditStore) };
    for (const checkpoint of store.checkpoints()) expect([checkpoint.projection, checkpoint.position]).toEqual([checkpoint.projection, heads[checkpoint.source as 'runs' | 'audit']]);
  });
});

async function head(store: EventStore): Promise<string | null> {
  for await (const event of store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1, filter: { streamNamePrefixes: ['run-', 'audit-'] } })) return event.position;
  return null;
}
