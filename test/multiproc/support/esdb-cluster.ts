/**
 * The processes of the multi-process EventStoreDB tier and of its bench
 * scenario: the protocol-level EventStoreDB server as a process of its own,
 * one API process (`serve` with `WORKER_CONCURRENCY=0`) and `agent-ledger
 * worker` processes, all on that server. Each process has a data folder of
 * its own (its processors' database; the API's read models and saga), as on
 * separate machines; a worker started again after a crash takes its slot's
 * folder back, as a restarted machine would. Every process's output goes to
 * `<dir>/processes.log`.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { EsdbTestServerProcess } from '../../support/esdb-server';
import { startEsdbTestServerProcess } from '../../support/esdb-server';
import { scaled } from '../../support/time-scale';
import type { ProcessExit } from '../../crash/support/processes';
import { ManagedProcess } from '../../crash/support/processes';
import { clusterEnv } from './cluster-env';

/** Options of {@link EsdbCluster.start}. */
export interface EsdbClusterOptions {
  /** The folder of the data folders and of `processes.log`. */
  readonly dir: string;
  /** The agents file's path (`AGENTS_CONFIG`). */
  readonly agentsPath: string;
  /** Worker processes at the start. */
  readonly workers: number;
  /** `--concurrency` of each worker process. */
  readonly workerConcurrency: number;
  /** More settings for every process (leases, the test ledger, the saga's grace); {@link clusterEnv} comes on top. */
  readonly env?: Readonly<Record<string, string>>;
  /** Called when a process of the cluster (the API or a worker) ended, however it ended. */
  readonly onExit?: (exit: ProcessExit) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A running cluster. */
export class EsdbCluster {
  private readonly slots: ManagedProcess[] = [];

  private constructor(
    readonly esdb: EsdbTestServerProcess,
    readonly api: ManagedProcess,
    private readonly options: EsdbClusterOptions,
    private readonly baseEnv: Readonly<Record<string, string>>,
    private readonly log: WriteStream,
    private readonly startedAt: number,
  ) {}

  /** Starts the server process, then the API and the workers (without waiting for them: see {@link waitUntilUp}). */
  static async start(options: EsdbClusterOptions): Promise<EsdbCluster> {
    const startedAt = Date.now();
    const log = createWriteStream(join(options.dir, 'processes.log'));
    let esdb: EsdbTestServerProcess;
    try {
      esdb = await startEsdbTestServerProcess({ onLine: (line) => log.write(`[esdb] ${line}\n`) });
    } catch (error) {
      await new Promise<void>((resolve) => log.end(resolve));
      throw error;
    }
    const baseEnv: Record<string, string> = {
      TS_NODE_TRANSPILE_ONLY: '1',
      TS_NODE_PROJECT: 'tsconfig.json',
      EVENTSTORE_CONNECTION_STRING: esdb.connectionString,
      AGENTS_CONFIG: options.agentsPath,
      PORT: '0',
      // Each managed process is one process: the cluster adds and kills them one by one (no worker processes of their own).
      WORKER_PROCESSES: '0',
      ...options.env,
      ...clusterEnv(),
    };
    const apiDir = join(options.dir, 'api');
    mkdirSync(apiDir, { recursive: true });
    const api = new ManagedProcess('api', 'serve', { ...baseEnv, WORKER_CONCURRENCY: '0', AGENT_LEDGER_DATA_DIR: apiDir }, log, startedAt, (exit) => options.onExit?.(exit));
    const cluster = new EsdbCluster(esdb, api, options, baseEnv, log, startedAt);
    api.start(null);
    for (let i = 0; i < options.workers; i += 1) cluster.addWorker();
    return cluster;
  }

  /** The environment of the API process, for the CLI verbs that open its stores (`projections rebuild`, `audit verify`). */
  get apiEnv(): Readonly<Record<string, string>> {
    return { ...this.baseEnv, WORKER_CONCURRENCY: '0', AGENT_LEDGER_DATA_DIR: this.apiDataDir };
  }

  /** The API's data folder (its read models). */
  get apiDataDir(): string {
    return join(this.options.dir, 'api');
  }

  /** Every worker slot ever added, in order (`worker-1`...), running or not. */
  get workers(): readonly ManagedProcess[] {
    return this.slots;
  }

  /** Adds a worker process in a new slot with a fresh data folder, and starts it. */
  addWorker(): ManagedProcess {
    const name = `worker-${this.slots.length + 1}`;
    const dataDir = join(this.options.dir, name);
    mkdirSync(dataDir, { recursive: true });
    const worker = new ManagedProcess(
      name,
      'worker',
      { ...this.baseEnv, AGENT_LEDGER_DATA_DIR: dataDir },
      this.log,
      this.startedAt,
      (exit) => this.options.onExit?.(exit),
      // The API process runs the audit-gap saga; the workers run the reaper and their segments.
      ['--concurrency', String(this.options.workerConcurrency), '--no-saga'],
    );
    this.slots.push(worker);
    worker.start(null);
    return worker;
  }

  /** The API's base URL, once it is up (waits for it, up to `timeoutMs`, scaled). */
  async baseUrl(timeoutMs = 120_000): Promise<string> {
    const deadline = Date.now() + scaled(timeoutMs);
    for (;;) {
      const url = this.api.baseUrl();
      if (url !== null) return url;
      if (Date.now() > deadline) throw new Error(`the API process was not up after ${scaled(timeoutMs)} ms (see processes.log)`);
      await sleep(50);
    }
  }

  /** Waits until the API and every running worker are ready. */
  async waitUntilUp(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + scaled(timeoutMs);
    while (!(this.api.isUp() && this.slots.every((w) => !w.isRunning() || w.isUp()))) {
      if (Date.now() > deadline) throw new Error(`the processes were not all up after ${scaled(timeoutMs)} ms: ${[this.api, ...this.slots].filter((p) => p.isRunning() && !p.isUp()).map((p) => p.name).join(', ')}`);
      await sleep(50);
    }
  }

  /** Stops the API and every worker with SIGTERM (the server process stays up). */
  async stopProcesses(): Promise<void> {
    await Promise.all([this.api, ...this.slots].map((p) => p.stop()));
  }

  /** Kills whatever still runs, stops the server process and closes the log. */
  async close(): Promise<void> {
    await Promise.all([this.api, ...this.slots].map((p) => p.kill()));
    try {
      await this.esdb.stop();
    } finally {
      await new Promise<void>((resolve) => this.log.end(resolve));
    }
  }
}
