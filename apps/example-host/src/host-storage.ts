import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { Inject, Injectable, Module } from '@nestjs/common';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';

/** Where the example keeps its files. */
export interface HostStorageOptions {
  /** The folder of the embedded store, the saga's ledger and the read models; created if missing. */
  readonly dataDir: string;
}

const HOST_STORAGE_OPTIONS = Symbol('example-host:HostStorageOptions');

/**
 * The host's storage: the embedded event store in its data folder, opened on
 * first use. The host owns it: close it after the application
 * (`await app.close(); await storage.close()`), once the runtime's workers
 * have stopped.
 */
@Injectable()
export class HostStorage {
  private opened: EventStore | undefined;

  constructor(@Inject(HOST_STORAGE_OPTIONS) readonly options: HostStorageOptions) {}

  get dataDir(): string {
    return this.options.dataDir;
  }

  /** The run store, opened once. */
  store(): EventStore {
    if (this.opened === undefined) {
      mkdirSync(this.dataDir, { recursive: true });
      this.opened = SqliteEventStore.open({ path: join(this.dataDir, 'agent-ledger.sqlite') });
    }
    return this.opened;
  }

  async close(): Promise<void> {
    await this.opened?.close();
    this.opened = undefined;
  }
}

/** Provides {@link HostStorage}: the configuration module the runtime's options are built from. */
@Module({})
export class HostStorageModule {
  static forRoot(options: HostStorageOptions): DynamicModule {
    return {
      module: HostStorageModule,
      providers: [{ provide: HOST_STORAGE_OPTIONS, useValue: options }, HostStorage],
      exports: [HostStorage],
    };
  }
}
