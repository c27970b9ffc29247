import { join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { AgentLedgerModule } from '@agent-ledger/module';
import type { AgentLedgerModuleOptions } from '@agent-ledger/module';
import { HostStorage, HostStorageModule } from './host-storage';
import type { HostStorageOptions } from './host-storage';
import { TICKET_AGENTS } from './ticket-agents';
import { TicketsModule } from './tickets/tickets.module';

/**
 * The example host's root module: its own storage and ticket feature, and
 * the agent-ledger runtime in-process, configured from the host's own
 * provider (`forRootAsync`). The runtime finds `tickets.close` among the
 * providers of `TicketsModule` by itself.
 */
@Module({})
export class HostModule {
  static forRoot(storage: HostStorageOptions): DynamicModule {
    // One module object, imported twice: Nest identifies dynamic modules by reference, so both get the same HostStorage.
    const hostStorage = HostStorageModule.forRoot(storage);
    return {
      module: HostModule,
      imports: [
        hostStorage,
        AgentLedgerModule.forRootAsync({
          imports: [hostStorage],
          inject: [HostStorage],
          useFactory: (host: HostStorage): AgentLedgerModuleOptions => ({
            store: host.store(),
            agents: TICKET_AGENTS,
            workers: { concurrency: 1 },
            auditGapSaga: { databasePath: join(host.dataDir, 'audit-gap-saga.sqlite') },
            readModels: { databasePath: join(host.dataDir, 'read-models.sqlite') },
          }),
          readModels: true,
        }),
        TicketsModule,
      ],
    };
  }
}
