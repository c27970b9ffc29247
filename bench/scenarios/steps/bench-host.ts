/**
 * The product as the step-throughput benchmark runs it: `AgentLedgerModule`
 * in a Nest application context, on an embedded store on disk, with no-op
 * tools of each effect and scripted agents, the way a host embeds it
 * (docs/library.md); or on a PostgreSQL store (the read models, the queue
 * and the saga keep their SQLite files in the data folder either way). The same module runs in a second process for the
 * two-process variant (`worker-process.ts`).
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DeclaresToolEffect, JsonObject } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { Durability, EventStore } from '@agent-ledger/event-store';
import { PostgresEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, AgentTool } from '@agent-ledger/runtime';
import { AgentLedgerModule } from '@agent-ledger/module';
import { Tool } from '@agent-ledger/runtime';

const NO_ARGUMENTS = { type: 'object', properties: { i: { type: 'integer' } }, additionalProperties: false } as const;

/** `bench.read`: does nothing, `READ_ONLY`. */
@Tool({ name: 'bench.read', description: 'Does nothing (benchmark).', parameters: NO_ARGUMENTS })
export class BenchReadTool implements AgentTool<{ i?: number }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.READ_ONLY;
  }
  async execute(args: { i?: number }): Promise<JsonObject> {
    return { ok: true, i: args.i ?? 0 };
  }
}

/** `bench.put`: does nothing, `IDEMPOTENT_WRITE`. */
@Tool({ name: 'bench.put', description: 'Does nothing (benchmark).', parameters: NO_ARGUMENTS })
export class BenchPutTool implements AgentTool<{ i?: number }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }
  async execute(args: { i?: number }): Promise<JsonObject> {
    return { ok: true, i: args.i ?? 0 };
  }
}

/** `bench.append`: does nothing, `NON_IDEMPOTENT_WRITE`. */
@Tool({ name: 'bench.append', description: 'Does nothing (benchmark).', parameters: NO_ARGUMENTS })
export class BenchAppendTool implements AgentTool<{ i?: number }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
  async execute(args: { i?: number }): Promise<JsonObject> {
    return { ok: true, i: args.i ?? 0 };
  }
}

/** The no-op tool of each effect. */
export const BENCH_TOOL_OF: Readonly<Record<ToolEffect, string>> = {
  [ToolEffect.READ_ONLY]: 'bench.read',
  [ToolEffect.IDEMPOTENT_WRITE]: 'bench.put',
  [ToolEffect.NON_IDEMPOTENT_WRITE]: 'bench.append',
};

/** The agent of a configuration: one model round asking for `steps` calls of the effect's no-op tool, then a final answer. */
export function benchAgent(effect: ToolEffect, steps: number): AgentDefinition {
  const tool = BENCH_TOOL_OF[effect];
  return {
    name: `bench-${effect.toLowerCase().replace(/_/g, '-')}`,
    instructions: 'Benchmark agent.',
    provider: { type: 'scripted', script: [{ toolCalls: Array.from({ length: steps }, (_, i) => ({ tool, arguments: { i } })) }, { final: 'done' }] },
    tools: [tool],
    maxIterations: 3,
    // Writes run without a person's approval, as an agent that pre-approves its tools does.
    approvals: { preApproved: [tool], onDenial: 'endRun' },
  };
}

@Module({ providers: [BenchReadTool, BenchPutTool, BenchAppendTool] })
class BenchToolsModule {}

/** Where the product's event store is: the embedded file in the data folder, or a PostgreSQL schema. */
export type BenchStore = { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema: string };

/** How one process of the benchmark runs the product. */
export interface BenchHostOptions {
  readonly dataDir: string;
  /** The embedded store's durability (ignored on PostgreSQL: the adapter forces synchronous_commit=on). */
  readonly durability: Durability;
  /** @default { kind: 'sqlite' } */
  readonly store?: BenchStore;
  readonly agents: readonly AgentDefinition[];
  /** Segments this process executes at once (0: none). */
  readonly workerConcurrency: number;
  /** The read models and the audit-gap saga (the main process has them, an extra worker process does not). */
  readonly projectionsAndSaga: boolean;
}

/** A running host: its application context and its store. */
export interface BenchHost {
  readonly app: INestApplicationContext;
  readonly store: EventStore & { stats(): { readonly transactions: number } };
  close(): Promise<void>;
}

/** Starts the product in this process. */
export async function startBenchHost(options: BenchHostOptions): Promise<BenchHost> {
  const choice = options.store ?? { kind: 'sqlite' };
  const store =
    choice.kind === 'postgres'
      ? await PostgresEventStore.open({ connectionString: choice.connectionString, schema: choice.schema, poolSize: 16 })
      : SqliteEventStore.open({ path: join(options.dataDir, 'agent-ledger.sqlite'), durability: options.durability });
  @Module({
    imports: [
      BenchToolsModule,
      AgentLedgerModule.forRoot({
        store,
        agents: [...options.agents],
        workers: { concurrency: options.workerConcurrency, pollIntervalMs: 50 },
        reaper: { intervalMs: options.projectionsAndSaga ? 1000 : 0 },
        auditGapSaga: options.projectionsAndSaga ? { enabled: true, databasePath: join(options.dataDir, 'audit-gap-saga.sqlite') } : { enabled: false },
        readModels: options.projectionsAndSaga ? { databasePath: join(options.dataDir, 'read-models.sqlite') } : false,
        // As the service keeps them: the queue's table and the saga's state, with their checkpoints, in the data folder.
        processors: { databasePath: join(options.dataDir, 'processors.sqlite') },
      }),
    ],
  })
  class BenchHostModule {}
  const app = await NestFactory.createApplicationContext(BenchHostModule, { logger: ['error'] });
  await app.init();
  return {
    app,
    store,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
