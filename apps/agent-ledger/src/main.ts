import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { EventStore } from '@agent-ledger/event-store';
import { createEventStore, SqliteEventStore } from '@agent-ledger/event-store';
import { loadAgentsConfig } from '@agent-ledger/runtime';
import { AppModule } from './app.module';
import { readServiceConfig } from './config/service-config';

/**
 * Starts the agent-ledger service: the runtime (workers, reaper) on the
 * embedded store under `./data` (or EventStoreDB when
 * `EVENTSTORE_CONNECTION_STRING` is set), the read models, and the HTTP API on
 * `HOST:PORT` (127.0.0.1:3000 by default).
 */
async function bootstrap(): Promise<void> {
  const config = readServiceConfig();
  mkdirSync(config.dataDir, { recursive: true });
  mkdirSync(config.workspaceDir, { recursive: true });
  const { agents } = await loadAgentsConfig(config.agentsConfigPath);
  const store = createEventStore({ sqlite: { path: join(config.dataDir, 'agent-ledger.sqlite') } });
  const auditStore: EventStore | undefined = config.auditStorePath === null ? undefined : SqliteEventStore.open({ path: config.auditStorePath });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, store, auditStore, agents }));
  // JSON bodies only up to the limit: a larger one is refused with 413 before any handler runs.
  app.useBodyParser('json', { limit: config.httpBodyLimitBytes });
  // Stop workers and the reaper first (Nest's shutdown), then close the stores they write to.
  const shutdown = async (signal: NodeJS.Signals) => {
    Logger.log(`${signal}: shutting down`, 'Bootstrap');
    await app.close();
    await store.close();
    await auditStore?.close();
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
  await app.listen(config.port, config.host);
  const backend = config.eventStoreConnectionString === null ? `embedded store in ${config.dataDir}` : 'EventStoreDB';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port; // PORT=0 picks a free port
  Logger.log(`agent-ledger listening on http://${host}:${port} (${backend}; agents: ${agents.map((a) => a.name).join(', ')})`, 'Bootstrap');
}

void bootstrap();
