import { join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import type { EventStore } from '@agent-ledger/event-store';
import type { AgentDefinition } from '@agent-ledger/runtime';
import { AgentLedgerModule } from '@agent-ledger/runtime';
import type { ServiceConfig } from './config/service-config';
import { HealthController } from './health/health.controller';

/** What the service is built from: its settings, its open stores and its agents. */
export interface AppDependencies {
  readonly config: ServiceConfig;
  readonly store: EventStore;
  readonly auditStore?: EventStore;
  readonly agents: readonly AgentDefinition[];
}

/** The service's root module. */
@Module({})
export class AppModule {
  static forRoot({ config, store, auditStore, agents }: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AgentLedgerModule.forRoot({
          store,
          auditStore,
          agents,
          tools: { builtins: { files: { workspaceDir: config.workspaceDir }, clock: true } },
          policy: config.leaseSeconds === undefined ? undefined : { leaseSeconds: config.leaseSeconds },
          workers: { concurrency: config.workerConcurrency },
          reaper: { intervalMs: config.reaperIntervalMs },
          auditGapSaga: { databasePath: join(config.dataDir, 'audit-gap-saga.sqlite'), gracePeriodMs: config.auditGapGraceMs },
        }),
      ],
      controllers: [HealthController],
    };
  }
}
