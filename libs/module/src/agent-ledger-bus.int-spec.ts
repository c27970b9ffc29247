import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { DeclaresToolEffect, JsonObject, JsonValue } from '@agent-ledger/domain';
import { busPrincipal, InvalidFieldError, RunAlreadySettledError, RunNotFoundError, ToolEffect } from '@agent-ledger/domain';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import { GetAuditReview, GetRun, ProjectionRunnerPool } from '@agent-ledger/projections';
import type { AgentDefinition } from '@agent-ledger/runtime';
import type { AgentLedgerModuleOptions } from './agent-ledger.module';
import { AgentLedgerModule } from './agent-ledger.module';
import { auditStreamName } from '@agent-ledger/runtime';
import type { AgentTool, ToolContext } from '@agent-ledger/runtime';
import { Tool } from '@agent-ledger/runtime';
import { ToolRegistry } from '@agent-ledger/runtime';
import { CancelRun } from '@agent-ledger/runtime';
import { DecideRunApproval } from '@agent-ledger/runtime';
import { GetRunState } from '@agent-ledger/runtime';
import { IdempotencyKeyReusedError, runIdForIdempotencyKey } from '@agent-ledger/runtime';
import { MessageValidationError } from '@agent-ledger/validation';
import { StartRun } from '@agent-ledger/runtime';
import type { StartRunFields } from '@agent-ledger/runtime';
import { scaled } from '../../../test/support/time-scale';

/** A host's own service, injected into its tool: the tool is a plain provider of the host's module. */
@Injectable()
class Shelf {
  readonly puts: { key: string; value: JsonValue; idempotencyKey: string }[] = [];
}

@Tool({
  name: 'shelf.put',
  description: 'Puts a value on the shelf (IDEMPOTENT_WRITE: keyed by the idempotency key).',
  parameters: { type: 'object', properties: { key: { type: 'string' }, value: {} }, required: ['key', 'value'], additionalProperties: false },
  operationDeadlineSeconds: 10,
})
class ShelfPutTool implements AgentTool<JsonObject & { key: string; value: JsonValue }>, DeclaresToolEffect {
  constructor(private readonly shelf: Shelf) {}
  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }
  async execute(args: { key: string; value: JsonValue }, context: ToolContext): Promise<JsonValue> {
    this.shelf.puts.push({ key: args.key, value: args.value, idempotencyKey: context.idempotencyKey });
    return { stored: args.key };
  }
}

@Tool({ name: 'shelf.count', description: 'Counts the puts (READ_ONLY).', parameters: { type: 'object', additionalProperties: false } })
class ShelfCountTool implements AgentTool {
  constructor(private readonly shelf: Shelf) {}
  async execute(): Promise<JsonValue> {
    return { count: this.shelf.puts.length };
  }
}

/** A read that waits until the host releases it or its call is aborted (a cancelled run). */
@Injectable()
class Gate {
  entered!: Promise<void>;
  private enter!: () => void;
  constructor() {
    this.entered = new Promise((resolve) => (this.enter = resolve));
  }
  wait(signal: AbortSignal): Promise<void> {
    this.enter();
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  }
}

@Tool({ name: 'shelf.wait', description: 'Waits (READ_ONLY).', parameters: { type: 'object', additionalProperties: false } })
class ShelfWaitTool implements AgentTool {
  constructor(private readonly gate: Gate) {}
  async execute(_args: JsonObject, context: ToolContext): Promise<JsonValue> {
    await this.gate.wait(context.signal);
    return 'waited';
  }
}

@Module({ providers: [Shelf, Gate, ShelfPutTool, ShelfCountTool, ShelfWaitTool], exports: [Shelf, Gate] })
class ShelfModule {}

/** The host's configuration, resolved by DI before the runtime's options. */
@Injectable()
class HostSettings {
  static store: EventStore;
  static dir: string;
  readonly workerConcurrency = 1;
  store(): EventStore {
    return HostSettings.store;
  }
}
@Module({ providers: [HostSettings], exports: [HostSettings] })
class HostSettingsModule {}

const AGENTS: AgentDefinition[] = [
  {
    name: 'shelver',
    instructions: 'Put the value on the shelf.',
    tools: ['shelf.put', 'shelf.count'],
    // The host's operator pre-approves the write: no person is asked.
    approvals: { preApproved: ['shelf.put'], onDenial: 'endRun' },
    maxIterations: 5,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'shelf.put', arguments: { key: 'k1', value: 42 } }] }, { toolCalls: [{ tool: 'shelf.count', arguments: {} }] }, { final: 'shelved' }] },
  },
  {
    name: 'waiter',
    instructions: 'Wait.',
    tools: ['shelf.wait'],
    maxIterations: 2,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'shelf.wait', arguments: {} }] }, { final: 'waited' }] },
  },
  {
    name: 'careful-shelver',
    instructions: 'Put the value on the shelf, once a person approves.',
    tools: ['shelf.put'],
    // Nothing pre-approved: a person decides on the write.
    approvals: { preApproved: [], onDenial: 'endRun' },
    maxIterations: 5,
    provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'shelf.put', arguments: { key: 'k2', value: 7 } }] }, { final: 'shelved' }] },
  },
];

async function countEvents(store: EventStore): Promise<number> {
  let count = 0;
  for await (const _event of store.readAll()) count += 1;
  return count;
}

async function eventually<T>(probe: () => Promise<T | null | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Variant = 'forRoot' | 'forRootAsync';

describe.each<Variant>(['forRoot', 'forRootAsync'])('AgentLedgerModule.%s on the embedded store, driven over the host\'s buses', (variant) => {
  let dir: string;
  let store: EventStore;
  let app: INestApplicationContext;
  let commands: CommandBus;
  let queries: QueryBus;
  let shelf: Shelf;

  const optionsOf = (runStore: EventStore, workers = 0): AgentLedgerModuleOptions => ({
    store: runStore,
    agents: AGENTS,
    tools: { builtins: { clock: true } },
    workers: { concurrency: workers, pollIntervalMs: 20 },
    reaper: { intervalMs: 0 },
    auditGapSaga: { databasePath: join(dir, 'saga.sqlite'), checkIntervalMs: 0 },
    readModels: { databasePath: join(dir, 'read-models.sqlite') },
  });

  function runtimeModule(): DynamicModule {
    if (variant === 'forRoot') return AgentLedgerModule.forRoot(optionsOf(store, 1));
    return AgentLedgerModule.forRootAsync({
      imports: [HostSettingsModule],
      inject: [HostSettings],
      // Resolved when the application starts, from the host's own provider.
      useFactory: async (settings: HostSettings) => optionsOf(settings.store(), settings.workerConcurrency),
      readModels: true,
    });
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ledger-bus-'));
    store = SqliteEventStore.open({ path: join(dir, 'agent-ledger.sqlite'), maxPollIntervalMs: 20 });
    HostSettings.store = store;
    @Module({ imports: [runtimeModule(), ShelfModule] })
    class HostModule {}
    app = await NestFactory.createApplicationContext(HostModule, { logger: false });
    app.enableShutdownHooks();
    commands = app.get(CommandBus);
    queries = app.get(QueryBus);
    shelf = app.get(Shelf);
  });

  afterEach(async () => {
    await app?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the host\'s @Tool providers with the effects their code declares, beside the built-ins', () => {
    const registry = app.get(ToolRegistry);
    expect(registry.names()).toEqual(expect.arrayContaining(['clock.now', 'shelf.count', 'shelf.put']));
    expect(registry.effectFor('shelf.put')).toBe(ToolEffect.IDEMPOTENT_WRITE);
    expect(registry.effectFor('shelf.count')).toBe(ToolEffect.READ_ONLY);
    expect(registry.effectFor('clock.now')).toBe(ToolEffect.READ_ONLY);
  });

  it('runs an interactive StartRun to its settled state, with a typed result; the host tool ran once with its idempotency key', async () => {
    const result = await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'shelver', input: { task: 'shelve k1' }, mode: 'interactive', runId: 'bus-1' }));
    if (result.mode !== 'interactive') throw new Error('expected an interactive result');
    expect(result).toMatchObject({ runId: 'bus-1', status: 'COMPLETED', replayed: false, segment: 'settled' });
    expect(result.run).toMatchObject({ agent: 'shelver', mode: 'interactive', reason: 'COMPLETED', answer: 'shelved', attempts: 1 });
    expect(result.state.steps.size).toBe(5);
    expect(shelf.puts).toEqual([{ key: 'k1', value: 42, idempotencyKey: 'agent-ledger:bus-1/r0/t0' }]);
    const audit = await store.readStream(auditStreamName('bus-1'));
    expect(audit.events.map((e) => e.type)).toEqual(['RunStartRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded', 'AuditRecorded']);

    const fresh = await queries.execute(new GetRunState({ runId: 'bus-1' }));
    expect(fresh.run).toEqual(result.run);
  });

  it('queues a StartRun for a worker, then answers the read-model queries on the QueryBus', async () => {
    const result = await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'shelver', input: 'later', idempotencyKey: 'shelve-later' }));
    expect(result).toEqual({ mode: 'queued', runId: runIdForIdempotencyKey('shelve-later'), status: 'QUEUED', replayed: false });
    const settled = await eventually(async () => {
      const { run } = await queries.execute(new GetRunState({ runId: result.runId }));
      return run.status === 'COMPLETED' ? run : null;
    });
    expect(settled.reason).toBe('COMPLETED');
    await app.get(ProjectionRunnerPool).catchUp();
    const row = await queries.execute(new GetRun(result.runId));
    expect(row).toMatchObject({ runId: result.runId, status: 'COMPLETED', agent: 'shelver' });
    const review = await queries.execute(new GetAuditReview({ runId: result.runId }));
    expect(review.totals).toMatchObject({ writes: 1, writesExecuted: 1, writesAudited: 1, writesWithoutAudit: 0 });
    // With the verdict read from the stores, as GET /audit/review answers it: the run's two streams read whole.
    expect(review).toMatchObject({ findings: false, verdict: { findings: false, totals: { writesExecuted: 1, writesAudited: 1 }, verification: { fullBecause: 'one run is verified whole' } } });
    expect((await queries.execute(new GetAuditReview())).verdict?.verification).toMatchObject({ mode: 'full', fullBecause: 'no checkpoint file yet' });
    expect((await queries.execute(new GetAuditReview())).verdict?.verification).toMatchObject({ mode: 'incremental', checkpoint: 'memory' });
  });

  it('replays a StartRun with the same idempotency key: nothing new is started or executed', async () => {
    const fields: StartRunFields = { agent: 'shelver', input: { task: 'once' }, mode: 'interactive', idempotencyKey: 'once-only', principal: { kind: 'bus', id: 'test' } };
    const first = await commands.execute(new StartRun(fields));
    const events = await countEvents(store);
    const second = await commands.execute(new StartRun(fields));
    expect(second).toMatchObject({ runId: first.runId, replayed: true, status: 'COMPLETED', segment: null });
    expect(await countEvents(store)).toBe(events);
    expect(shelf.puts).toHaveLength(1);
    await expect(commands.execute(new StartRun({ ...fields, input: { task: 'other' } }))).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(commands.execute(new StartRun({ ...fields, runId: 'r2' }))).rejects.toMatchObject({ constructor: InvalidFieldError, field: 'idempotencyKey' });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['agent', { input: 'x' }, 'agent must be a string'],
    ['input', { agent: 'shelver' }, 'input must be present (any JSON value)'],
    ['mode', { agent: 'shelver', input: 'x', mode: 'now' }, 'mode must be one of the following values: interactive, queued'],
    ['runId', { agent: 'shelver', input: 'x', runId: 'no spaces' }, 'runId must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit'],
    ['priority', { agent: 'shelver', input: 'x', priority: 1 }, 'property priority should not exist'],
  ])('rejects a StartRun with a bad %s, naming it, and appends nothing', async (field, fields, message) => {
    // A settled run first, so that the store is not empty; no worker has anything to do after it.
    await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'shelver', input: 'warm-up', runId: 'warm-up', mode: 'interactive' }));
    const before = await countEvents(store);
    const rejection = commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, ...fields } as unknown as StartRunFields));
    await expect(rejection).rejects.toBeInstanceOf(MessageValidationError);
    await expect(rejection).rejects.toMatchObject({ code: 'INVALID_FIELD', field, message });
    expect(await countEvents(store)).toBe(before);
    expect(shelf.puts).toHaveLength(1);
  });

  it('rejects an unknown agent with the domain\'s InvalidFieldError, as over HTTP, and appends nothing', async () => {
    const before = await countEvents(store);
    await expect(commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'ghost', input: 'x' }))).rejects.toMatchObject({
      constructor: InvalidFieldError,
      field: 'agent',
      message: 'agent must name a configured agent (known: shelver, waiter, careful-shelver)',
    });
    expect(await countEvents(store)).toBe(before);
  });

  it('decides an approval with DecideRunApproval: of two decisions at once one takes effect and is stated once in the audit chain, the other is refused', async () => {
    const started = await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'careful-shelver', input: 'shelve k2', mode: 'interactive', runId: 'bus-approve' }));
    expect(started).toMatchObject({ status: 'WAITING_FOR_APPROVAL' });
    const [approve, deny] = await Promise.allSettled([
      commands.execute(new DecideRunApproval({ runId: 'bus-approve', decision: 'approve', principal: busPrincipal('host:alice') })),
      commands.execute(new DecideRunApproval({ runId: 'bus-approve', decision: 'deny', principal: busPrincipal('host:bob') })),
    ]);
    const won = [approve, deny].filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ value: { runId: 'bus-approve', auditStatement: 'recorded' } });
    const lost = [approve, deny].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((lost.reason as { code?: string }).code).toMatch(/^(RUN_NOT_WAITING_FOR_APPROVAL|RUN_ALREADY_SETTLED)$/);
    const statements = (await store.readStream(auditStreamName('bus-approve'))).events.filter((e) => e.type === 'ApprovalDecisionRecorded');
    expect(statements).toHaveLength(1);
    expect(statements[0]?.data).toMatchObject({ decision: approve.status === 'fulfilled' ? 'approved' : 'denied', decidedBy: busPrincipal(approve.status === 'fulfilled' ? 'host:alice' : 'host:bob') });
  });

  it('cancels a running run with CancelRun (stopped at its step boundary); a bad one is refused before anything is appended', async () => {
    const { runId } = await commands.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent: 'waiter', input: 'x', runId: 'to-cancel' }));
    await app.get(Gate).entered; // a worker is executing its tool call
    const cancel = await commands.execute(new CancelRun({ runId, principal: { kind: 'bus', id: 'host' }, reason: 'changed my mind' }));
    expect(cancel).toMatchObject({ runId, settled: false, status: 'RUNNING', run: { cancelRequested: true, cancelRequestedBy: 'bus:host' } });
    expect(cancel.state.cancelRequestedBy).toEqual({ kind: 'bus', id: 'host' });
    const cancelled = await eventually(async () => {
      const { run } = await queries.execute(new GetRunState({ runId }));
      return run.status === 'CANCELLED' ? run : null;
    });
    expect(cancelled.reason).toBe('CANCELLED');

    const before = await countEvents(store);
    await expect(commands.execute(new CancelRun({ runId, principal: { kind: 'bus', id: '' } }))).rejects.toMatchObject({ field: 'principal.id', rule: 'principalId' });
    await expect(commands.execute(new CancelRun({ runId, principal: { kind: 'bus', id: 'host' } }))).rejects.toBeInstanceOf(RunAlreadySettledError);
    await expect(commands.execute(new CancelRun({ runId: 'nope', principal: { kind: 'bus', id: 'host' } }))).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(queries.execute(new GetRunState({ runId: 'never-asked' }))).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(queries.execute(new GetRunState({ runId: '../x' }))).rejects.toMatchObject({ field: 'runId', rule: 'matches' });
    expect(await countEvents(store)).toBe(before);
  });
});

describe('AgentLedgerModule.forRootAsync, its checks', () => {
  const boot = async (options: Parameters<typeof AgentLedgerModule.forRootAsync>[0]) => {
    @Module({ imports: [AgentLedgerModule.forRootAsync(options)] })
    class HostModule {}
    return NestFactory.createApplicationContext(HostModule, { logger: false, abortOnError: false });
  };

  it('refuses read-model settings it was not told about, and read models without settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-bus-'));
    const store = SqliteEventStore.open({ path: join(dir, 's.sqlite') });
    try {
      const noSaga = { enabled: false } as const;
      await expect(boot({ useFactory: () => ({ store, agents: [], auditGapSaga: noSaga, readModels: { databasePath: join(dir, 'rm.sqlite') } }) })).rejects.toThrow(
        /readModels is set, but forRootAsync was not given readModels: true/,
      );
      await expect(boot({ useFactory: () => ({ store, agents: [], auditGapSaga: noSaga }), readModels: true })).rejects.toThrow(/readModels must give the read models' settings/);
      // No default files: a host's read models and saga ledger never land in the service's ./data.
      await expect(boot({ useFactory: () => ({ store, agents: [], auditGapSaga: noSaga, readModels: {} as never }), readModels: true })).rejects.toThrow(
        /useFactory\(\)\.readModels\.databasePath is required/,
      );
      await expect(boot({ useFactory: () => ({ store, agents: [] }) })).rejects.toThrow(/useFactory\(\)\.auditGapSaga\.databasePath is required while the audit-gap saga is enabled/);
      expect(() => AgentLedgerModule.forRoot({ store, agents: [], readModels: {} as never })).toThrow(/readModels\.databasePath is required/);
      expect(() => AgentLedgerModule.forRoot({ store, agents: [] })).toThrow(/auditGapSaga\.databasePath is required/);
      await expect(boot({ useFactory: () => ({ agents: [] }) as unknown as AgentLedgerModuleOptions })).rejects.toThrow(/useFactory\(\)\.store must be an EventStore/);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
