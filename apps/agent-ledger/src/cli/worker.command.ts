import { NestFactory } from '@nestjs/core';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { UsageError } from './service-client';
import { aborted } from './stop-signal';
import { startTracing } from '../config/tracing';
import { serviceLogger } from '../config/service-logger';
import { startCrashTestMode } from '../config/crash-test/crash-test-mode';
import { openStores } from '../config/open-stores';
import { prepareServiceFolders } from '../config/service-folders';
import { checkStoreIdentities } from '../config/store-identity-check';
import { loadServiceDefinitions, pluginsNote } from '../config/service-definitions';
import { WorkerModule } from './worker.module';
import type { WorkerDependencies } from './worker.module';
import { startServiceMcpServers } from '../config/mcp-start';
import { mcpServersNote } from '../config/mcp-servers-note';
import { workerProcessesPhrase } from '../app.module';
import { linkToSupervisor, RuntimeMetrics, WorkerProcessSupervisor } from '@agent-ledger/runtime';
import type { LoadedPlugins } from '@agent-ledger/runtime';

/** `worker` options. */
export interface WorkerCommandOptions {
  /** `--concurrency`: overrides `WORKER_CONCURRENCY`. */
  readonly concurrency: string | undefined;
  /** `--no-saga`: leave the audit-gap saga to the other processes. */
  readonly noSaga: boolean;
}

/**
 * `agent-ledger worker`: the runtime without HTTP, for scale-out. Workers take
 * queued runs from the configured stores (the same embedded files as a
 * `serve` on this machine, or EventStoreDB), the reaper takes back expired
 * leases, and the audit-gap saga runs unless `--no-saga`. Runs until `stop`
 * (SIGINT or SIGTERM): then the Nest context is closed (workers finish or
 * abandon their segments, the reaper and the saga stop) and the stores last.
 */
export async function worker(config: ServiceConfig, options: WorkerCommandOptions, output: CliOutput, stop: AbortSignal): Promise<ExitCode> {
  const concurrency = options.concurrency === undefined ? config.workerConcurrency : Number(options.concurrency);
  if (options.concurrency !== undefined && (!/^\d+$/.test(options.concurrency) || concurrency < 1 || concurrency > 256)) {
    throw new UsageError(`--concurrency must be an integer from 1 to 256 (got "${options.concurrency}")`);
  }
  if (concurrency === 0) {
    output.err('WORKER_CONCURRENCY is 0: a worker process with no worker would do nothing. Set WORKER_CONCURRENCY or --concurrency to 1 or more.');
    return ExitCode.FAILURE;
  }
  // TEST ONLY (AGENT_LEDGER_CRASH_POINTS, AGENT_LEDGER_TEST_LEDGER; refused in production): armed before anything runs.
  for (const line of startCrashTestMode(config).banner) output.err(line);
  // The plugins, the agents and the MCP servers' bindings are checked before anything is created: a refusal leaves nothing behind.
  const { agents, plugins, mcpServers } = await loadServiceDefinitions(config);
  const mcp = await startServiceMcpServers(mcpServers);
  try {
    return await workWith(config, options, output, stop, { agents, plugins, mcp, concurrency });
  } finally {
    // After the application (no worker calls them any more).
    await mcp?.close();
  }
}

/** The worker on its checked definitions and started MCP servers: its folders, its stores, its application, until `stop`. */
async function workWith(
  config: ServiceConfig,
  options: WorkerCommandOptions,
  output: CliOutput,
  stop: AbortSignal,
  { agents, plugins, mcp, concurrency }: Pick<WorkerDependencies, 'agents' | 'mcp' | 'concurrency'> & { readonly plugins: LoadedPlugins },
): Promise<ExitCode> {
  for (const line of prepareServiceFolders(config)) output.out(line);
  const stores = openStores(config);
  // Traces are exported over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; otherwise every span is a no-op.
  const tracing = startTracing();
  try {
    const refusal = await checkStoreIdentities(config, stores, { readModels: false, saga: !options.noSaga, processors: true, log: (message) => output.err(message) });
    if (refusal !== null) {
      output.err(`agent-ledger: ${refusal}`);
      return ExitCode.FAILURE;
    }
    const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ config, stores, agents, plugins, mcp, concurrency, saga: !options.noSaga }), { abortOnError: false, logger: serviceLogger(config) });
    // A worker process that `serve` or another `worker` supervises reports its counters to it, and drains when it goes away.
    const gone = new AbortController();
    const link = linkToSupervisor(app.get(RuntimeMetrics), () => gone.abort('the supervising process went away'));
    try {
      const backend = config.postgres !== null ? `PostgreSQL schema ${config.postgres.schema}` : config.eventStoreConnectionString === null ? `embedded store ${config.eventStorePath}` : 'EventStoreDB';
      const reaper = config.reaperIntervalMs === 0 ? 'off' : `every ${config.reaperIntervalMs} ms`;
      const supervisor = app.get(WorkerProcessSupervisor);
      const own = supervisor.count === 0 ? '' : `, ${workerProcessesPhrase(supervisor, concurrency)}`;
      output.out(
        `agent-ledger worker started: pid ${process.pid}${link === null ? '' : ` (worker process ${link.number} of pid ${process.ppid})`}, ${concurrency} worker${concurrency === 1 ? '' : 's'}${own}, reaper ${reaper}, audit-gap saga ${options.noSaga ? 'off' : 'on'} (${backend}; agents: ${agents.map((a) => a.name).join(', ')}${pluginsNote(plugins)}${mcpServersNote(mcp ?? null)})`,
      );
      const signal = AbortSignal.any([stop, gone.signal]);
      await aborted(signal);
      output.out(`${typeof signal.reason === 'string' ? signal.reason : 'stop'}: shutting down`);
    } finally {
      // Workers, reaper and saga stop first (Nest's shutdown), then the stores they write to close.
      await app.close();
      link?.close();
    }
  } finally {
    await stores.close();
    await tracing?.shutdown().catch((error: unknown) => output.err(`agent-ledger: the pending spans could not be exported: ${error instanceof Error ? error.message : String(error)}`));
  }
  output.out('agent-ledger worker stopped');
  return ExitCode.OK;
}
