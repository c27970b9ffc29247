import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigurationError, InvalidFieldError } from '@agent-ledger/domain';
import { ConsumerGroupMismatchError } from '@agent-ledger/event-store';
import { consoleUrlLine } from './config/console-url';
import { misspelledSettings, misspelledSettingWarning } from './config/misspelled-settings';
import { serviceLogger } from './config/service-logger';
import { startCrashTestMode } from './config/crash-test/crash-test-mode';
import type { OpenStores } from './config/open-stores';
import { openStores } from './config/open-stores';
import type { ServiceConfig } from './config/service-config';
import { readServiceConfig } from './config/service-config';
import { authDisabledBanner } from '@agent-ledger/http';
import { loadServiceDefinitions, pluginsNote } from './config/service-definitions';
import { workerProcessesPhrase } from './app.module';
import { createServiceApp } from './service-app';
import { listenFailureMessage } from './config/listen-failure';
import { prepareServiceFolders } from './config/service-folders';
import { checkStoreIdentities } from './config/store-identity-check';
import { startTracing } from './config/tracing';
import { WorkerProcessSupervisor } from '@agent-ledger/runtime';
import type { McpServers } from '@agent-ledger/mcp';
import { startServiceMcpServers } from './config/mcp-start';
import { mcpServersNote } from './config/mcp-servers-note';

/** Reads the configuration, or ends the process with a message naming the bad setting (exit code 3, as the CLI answers a bad configuration). */
function configurationOrExit(): ServiceConfig {
  try {
    return readServiceConfig();
  } catch (error) {
    if (!(error instanceof InvalidFieldError)) throw error;
    process.stderr.write(`agent-ledger: invalid configuration: ${error.message}\n`);
    process.exit(3);
  }
}

/**
 * What `check` gives, or, when it refuses the configuration, the end of the
 * process with the refusal (exit code 3). The checks made before anything is
 * created: the plugins and the agents file (naming the plugin file and the
 * tool, agent or provider type, or the agents file's field), then the MCP
 * servers' bindings against what each server offers (naming each server and
 * tool).
 */
async function checkedOrExit<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`agent-ledger: invalid configuration: ${error.message}\n`);
    process.exit(3);
  }
}

/** What the service closes when it stops or gives up after opening its stores: the MCP servers, then the stores. */
function resourcesOf(stores: OpenStores, mcp: McpServers | null): { close(): Promise<void> } {
  return {
    close: async () => {
      await mcp?.close();
      await stores.close();
    },
  };
}

/**
 * Listens on `HOST:PORT`, or, when that address cannot be taken (in use,
 * not this machine's, not allowed), closes the application and the stores
 * and ends the process with a message that names the setting to change
 * (exit code 3, as for a bad configuration).
 */
async function listenOrExit(app: NestExpressApplication, config: ServiceConfig, stores: { close(): Promise<void> }): Promise<void> {
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    const message = listenFailureMessage(error, config);
    if (message === null) throw error;
    await app.close();
    await stores.close();
    process.stderr.write(`agent-ledger: ${message}\n`);
    process.exit(3);
  }
}

/**
 * Builds the application, or closes the stores and ends the process (exit
 * code 3) when the runtime refuses its configuration as it is built: a model
 * provider whose settings are refused (a plugin's factory, an `openai` key
 * variable that is not set), a tool that fails its registration, the
 * workers' consumer group on EventStoreDB with other settings.
 */
async function appOrExit<T>(build: () => Promise<T>, stores: { close(): Promise<void> }): Promise<T> {
  try {
    return await build();
  } catch (error) {
    if (!(error instanceof ConfigurationError) && !(error instanceof InvalidFieldError) && !(error instanceof ConsumerGroupMismatchError)) throw error;
    await stores.close();
    process.stderr.write(`agent-ledger: invalid configuration: ${error.message}\n`);
    process.exit(3);
  }
}

/**
 * Checks that the read models and the audit-gap saga's ledger were made from
 * the configured stores (rebuilding or resetting them when
 * `READ_MODELS_ON_STORE_MISMATCH=rebuild`), or closes the stores and ends the
 * process with a message naming the files, the store and the fix (exit code
 * 3, as for a bad configuration). A store that cannot be reached to be checked
 * ends it too (exit code 3).
 */
async function storesCheckedOrExit(config: ServiceConfig, stores: OpenStores, resources: { close(): Promise<void> }): Promise<void> {
  let refusal: string | null;
  try {
    refusal = await checkStoreIdentities(config, stores, { readModels: true, saga: true, processors: true, log: (message) => Logger.warn(message, 'Stores') });
  } catch (error) {
    await resources.close();
    process.stderr.write(`agent-ledger: cannot check which stores the read models follow: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(3);
  }
  if (refusal === null) return;
  await resources.close();
  process.stderr.write(`agent-ledger: ${refusal}\n`);
  process.exit(3);
}

/**
 * Starts the agent-ledger service: the runtime (workers, reaper) on the
 * embedded store under `./data` (or EventStoreDB when
 * `EVENTSTORE_CONNECTION_STRING` is set), the read models, and the HTTP API on
 * `HOST:PORT` (127.0.0.1:3000 by default), behind API keys (or, with none
 * configured on a loopback address, in the development mode, announced loudly).
 */
async function bootstrap(): Promise<void> {
  const config = configurationOrExit();
  const logger = serviceLogger(config);
  Logger.overrideLogger(logger);
  for (const setting of misspelledSettings(process.env)) Logger.warn(misspelledSettingWarning(setting), 'Configuration');
  // TEST ONLY (AGENT_LEDGER_CRASH_POINTS, AGENT_LEDGER_TEST_LEDGER; refused in production): armed before anything runs.
  for (const line of startCrashTestMode(config).banner) Logger.warn(line, 'CrashTest');
  // The plugins, the agents and the MCP servers' bindings are checked before any folder or store is created: a refusal leaves nothing behind.
  const { agents, plugins, mcpServers } = await checkedOrExit(() => loadServiceDefinitions(config));
  const mcp = await checkedOrExit(() => startServiceMcpServers(mcpServers));
  for (const line of prepareServiceFolders(config)) Logger.log(line, 'Bootstrap');
  // Traces are exported over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; otherwise every span is a no-op.
  const tracing = startTracing();
  const stores = openStores(config);
  const resources = resourcesOf(stores, mcp);
  await storesCheckedOrExit(config, stores, resources);
  const app = await appOrExit(() => createServiceApp({ config, stores, agents, plugins, mcp, logger }), resources);
  // Stop workers and the reaper first (Nest's shutdown), then close the MCP servers they call and the stores they write to.
  const shutdown = async (signal: NodeJS.Signals) => {
    Logger.log(`${signal}: shutting down`, 'Bootstrap');
    await app.close();
    await resources.close();
    // The pending spans are sent; a collector that cannot take them does not hold up the stop.
    await tracing?.shutdown().catch((error: unknown) => Logger.warn(`the pending spans could not be exported: ${error instanceof Error ? error.message : String(error)}`, 'Traces'));
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
  await listenOrExit(app, config, resources);
  const backend = config.postgres !== null ? `PostgreSQL schema ${config.postgres.schema}` : config.eventStoreConnectionString === null ? `embedded store ${config.eventStorePath}` : 'EventStoreDB';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port; // PORT=0 picks a free port
  if (config.auth.mode === 'disabled-on-loopback') {
    for (const line of authDisabledBanner(config)) Logger.warn(line, 'Auth');
  } else {
    Logger.log(`API keys required (${config.auth.apiKeys.length} configured: ${config.auth.apiKeys.map((k) => k.id).join(', ')})`, 'Auth');
  }
  if (config.configFile !== null) Logger.log(`configuration file: ${config.configFile}`, 'Bootstrap');
  if (agents.length === 0) Logger.warn('No agent is configured: name an agents file (AGENTS_CONFIG) or plugins with agents (AGENT_LEDGER_PLUGINS); every run will be refused', 'Bootstrap');
  Logger.log(`agent-ledger listening on http://${host}:${port} (${backend}; agents: ${agents.map((a) => a.name).join(', ')}${pluginsNote(plugins)}${mcpServersNote(mcp)})`, 'Bootstrap');
  Logger.log(consoleUrlLine(config.host, port), 'Bootstrap');
  Logger.log(whatRunsWhere(app.get(WorkerProcessSupervisor), config), 'Bootstrap');
}

/** The start-up line that says which process executes the runs. */
function whatRunsWhere(supervisor: WorkerProcessSupervisor, config: ServiceConfig): string {
  const workers = `${config.workerConcurrency} worker${config.workerConcurrency === 1 ? '' : 's'}`;
  if (supervisor.count === 0) {
    const why = config.workerProcesses === 0 ? 'WORKER_PROCESSES=0' : 'WORKER_CONCURRENCY=0';
    return `runs execute in this process (pid ${process.pid}, ${config.workerConcurrency === 0 ? 'no worker: interactive runs only' : workers}; no worker process: ${why})`;
  }
  return `runs execute in ${workerProcessesPhrase(supervisor, config.workerConcurrency, 'WORKER_PROCESSES')}; this process (pid ${process.pid}) serves the API and runs the read models, the audit-gap saga, the reaper and interactive runs`;
}

void bootstrap();
