/**
 * The product as the saga-latency benchmark runs it: `AgentLedgerModule` in a
 * Nest application context on an embedded store on disk, configured like the
 * service (audit-gap saga on, read models fed in the same process, reaper at
 * its default), executing no run itself (its workers' concurrency is 0): the
 * writes whose audit is missing are those of a worker process that died
 * between `ToolExecuted` and `AuditRecorded` (`crashed-writes.ts`).
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DeclaresToolEffect, JsonObject } from '@agent-ledger/domain';
import { ToolEffect } from '@agent-ledger/domain';
import type { SqliteEventStore } from '@agent-ledger/event-store';
import type { AgentDefinition, AgentTool } from '@agent-ledger/runtime';
import { AgentLedgerModule } from '@agent-ledger/module';
import { Tool } from '@agent-ledger/runtime';

const ARGUMENTS = { type: 'object', properties: { key: { type: 'string' } }, additionalProperties: false } as const;

/** `bench.saga.put`: an `IDEMPOTENT_WRITE` that does nothing. */
@Tool({ name: 'bench.saga.put', description: 'Does nothing (benchmark).', parameters: ARGUMENTS, operationDeadlineSeconds: 30 })
export class SagaPutTool implements AgentTool<{ key?: string }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.IDEMPOTENT_WRITE;
  }
  async execute(): Promise<JsonObject> {
    return { ok: true };
  }
}

/** `bench.saga.append`: a `NON_IDEMPOTENT_WRITE` that does nothing. */
@Tool({ name: 'bench.saga.append', description: 'Does nothing (benchmark).', parameters: ARGUMENTS, operationDeadlineSeconds: 30 })
export class SagaAppendTool implements AgentTool<{ key?: string }>, DeclaresToolEffect {
  getEffect(): ToolEffect {
    return ToolEffect.NON_IDEMPOTENT_WRITE;
  }
  async execute(): Promise<JsonObject> {
    return { ok: true };
  }
}

/** The agent whose runs the crashed worker was executing: it pre-approves both writes. */
export const SAGA_AGENT: AgentDefinition = {
  name: 'bench-saga-writer',
  instructions: 'Benchmark agent.',
  provider: { type: 'scripted', script: [{ toolCalls: [{ tool: 'bench.saga.put', arguments: { key: 'k' } }] }, { final: 'done' }] },
  tools: ['bench.saga.put', 'bench.saga.append'],
  maxIterations: 3,
  approvals: { preApproved: ['bench.saga.put', 'bench.saga.append'], onDenial: 'endRun' },
};

@Module({ providers: [SagaPutTool, SagaAppendTool] })
class SagaToolsModule {}

/** The saga's settings in a run of the benchmark. */
export interface SagaSettings {
  readonly gracePeriodMs: number;
  readonly checkIntervalMs: number;
}

/** A running host. */
export interface SagaHost {
  readonly app: INestApplicationContext;
  close(): Promise<void>;
}

/** Starts the runtime on `store` (the caller closes the store after the host). */
export async function startSagaHost(store: SqliteEventStore, dataDir: string, settings: SagaSettings): Promise<SagaHost> {
  @Module({
    imports: [
      SagaToolsModule,
      AgentLedgerModule.forRoot({
        store,
        agents: [SAGA_AGENT],
        workers: { concurrency: 0 },
        auditGapSaga: { enabled: true, databasePath: join(dataDir, 'audit-gap-saga.sqlite'), gracePeriodMs: settings.gracePeriodMs, checkIntervalMs: settings.checkIntervalMs },
        readModels: { databasePath: join(dataDir, 'read-models.sqlite') },
      }),
    ],
  })
  class SagaHostModule {}
  const app = await NestFactory.createApplicationContext(SagaHostModule, { logger: ['error'] });
  await app.init();
  return { app, close: () => app.close() };
}
