/**
 * One round of the product in the step-throughput benchmark: queued runs of
 * K no-op tool steps executed by the product's workers (one process, or two
 * on one store file), with the read models and the audit-gap saga running,
 * timed from the first submission to the last settled run.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CommandBus } from '@nestjs/cqrs';
import type { ToolEffect } from '@agent-ledger/domain';
import type { Durability } from '@agent-ledger/event-store';
import { StartRun } from '@agent-ledger/runtime';
import type { CpuProfile } from '../../support/cpu-profile-format';
import type { RunningCpuProfile } from '../../support/cpu-profiler';
import { startCpuProfile } from '../../support/cpu-profiler';
import type { BenchStore } from './bench-host';
import { benchAgent, startBenchHost } from './bench-host';
import type { RawEvent } from './raw-baseline';
import type { StepHistory } from './step-history';
import { postgresStepHistory, sqliteStepHistory } from './step-history';
import type { WorkerProcessCommand, WorkerProcessReply } from './worker-process';

const ROOT = join(__dirname, '..', '..', '..');

/** What a product round measured. */
export interface ProductRoundResult {
  readonly stepsPerSecond: number;
  /** CPU time of this process (user + system) per tool step, while the runs ran. */
  readonly cpuMsPerStep: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Commits of all processes' stores, per tool step (the run's own events included). */
  readonly transactionsPerStep: number;
  readonly eventsPerStep: number;
  /** The events one tool step recorded, as stored (sizes for the baseline). */
  readonly stepEvents: readonly RawEvent[];
  /** The tool steps of the round. */
  readonly toolSteps: number;
  /** A V8 CPU profile of this process over the measured round, when asked for (`profile: true`). */
  readonly cpuProfile: CpuProfile | null;
  /** The measured round on `process.hrtime`'s clock (µs), which the profile's timestamps share: the profiler's own start and stop are outside. */
  readonly window: { readonly fromUs: number; readonly toUs: number };
}

/** The second process (or, `thread`, a worker thread of this process), kept up across rounds. */
export class WorkerChild {
  private readonly child: ChildProcess | Worker;
  private readonly replies: WorkerProcessReply[] = [];
  private waiting: (() => void) | null = null;
  private exited: string | null = null;

  constructor(readonly kind: 'process' | 'thread' = 'process') {
    const file = join(__dirname, 'worker-process.ts');
    const execArgv = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];
    this.child = kind === 'process' ? fork(file, [], { cwd: ROOT, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }) : new Worker(file, { execArgv });
    this.child.on('message', (message: WorkerProcessReply) => {
      this.replies.push(message);
      this.waiting?.();
    });
    this.child.on('exit', (code: number | null, signal?: string | null) => {
      this.exited = `the worker ${kind} exited (code ${code}, signal ${signal ?? null})`;
      this.waiting?.();
    });
  }

  /** Sends a command and waits for its reply (a start-up takes seconds: the child compiles the product). */
  async send(command: WorkerProcessCommand): Promise<WorkerProcessReply> {
    if (this.child instanceof Worker) this.child.postMessage(command);
    else this.child.send(command);
    const deadline = Date.now() + 120_000;
    while (this.replies.length === 0) {
      if (this.exited !== null) throw new Error(this.exited);
      if (Date.now() > deadline) throw new Error(`no reply of the worker process to ${command.type} in 120 s`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 1000);
      });
      this.waiting = null;
    }
    const reply = this.replies.shift() as WorkerProcessReply;
    if (reply.type === 'error') throw new Error(`worker process: ${reply.message}`);
    return reply;
  }

  stop(): void {
    if (this.exited !== null) return;
    if (this.child instanceof Worker) void this.child.terminate();
    else this.child.kill('SIGKILL');
  }
}

/** Runs one product round on a fresh data folder. */
export async function productStepRound(options: {
  readonly dir: string;
  readonly durability: Durability;
  readonly effect: ToolEffect;
  readonly runs: number;
  readonly totalRuns: number;
  readonly stepsPerRun: number;
  /** The second process, for the two-process variant; null for one process. */
  readonly worker: WorkerChild | null;
  /** With the second process: `shared` splits the workers between the two; `apart` gives it every worker, and this process only the read models and the saga. @default 'shared' */
  readonly layout?: 'shared' | 'apart';
  /** Take a CPU profile of this process from the first submission to the last settled run. @default false */
  readonly profile?: boolean;
  /** The product's event store (a fresh schema per round on PostgreSQL). @default { kind: 'sqlite' } */
  readonly store?: BenchStore;
}): Promise<ProductRoundResult> {
  const { dir, durability, effect, stepsPerRun } = options;
  const store = options.store ?? { kind: 'sqlite' };
  const concurrency = options.worker === null ? options.runs : options.layout === 'apart' ? 0 : Math.ceil(options.runs / 2);
  const host = await startBenchHost({ dataDir: dir, durability, agents: [benchAgent(effect, stepsPerRun)], workerConcurrency: concurrency, projectionsAndSaga: true, store });
  let childTransactions = 0;
  let history: StepHistory | null = null;
  let profiler: RunningCpuProfile | null = null;
  try {
    if (options.worker !== null) {
      await options.worker.send({ type: 'start', options: { dataDir: dir, durability, workerConcurrency: options.runs - concurrency, store }, effect, steps: stepsPerRun });
    }
    history = store.kind === 'postgres' ? await postgresStepHistory(store.connectionString, store.schema) : sqliteStepHistory(join(dir, 'agent-ledger.sqlite'));
    const commandBus = host.app.get(CommandBus);
    const agent = benchAgent(effect, stepsPerRun).name;
    if (options.profile === true) profiler = await startCpuProfile();
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    await Promise.all(Array.from({ length: options.totalRuns }, (_, i) => commandBus.execute(new StartRun({ principal: { kind: 'bus', id: 'test' }, agent, input: { i }, mode: 'queued', runId: `bench-${i}` }))));
    const deadline = Date.now() + 600_000;
    while ((await history.settledRuns()) < options.totalRuns) {
      if (Date.now() > deadline) throw new Error(`${options.totalRuns} runs not settled after 600 s`);
      // A PostgreSQL count is a round trip and a query for the server too: polled less often (20 ms, ~1% of a 2,000-step round).
      await new Promise((resolve) => setTimeout(resolve, store.kind === 'postgres' ? 20 : 5));
    }
    const ended = process.hrtime.bigint();
    const seconds = Number(ended - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuProfile = profiler === null ? null : await profiler.stop();
    profiler = null;
    if (options.worker !== null) {
      const reply = await options.worker.send({ type: 'stop' });
      if (reply.type === 'stopped') childTransactions = reply.transactions;
    }
    const transactions = host.store.stats().transactions + childTransactions;
    await host.close();
    const toolSteps = options.totalRuns * stepsPerRun;
    const figures = await history.analyse(options.totalRuns, stepsPerRun);
    await history.close();
    history = null;
    return {
      ...figures,
      stepsPerSecond: toolSteps / seconds,
      cpuMsPerStep: (cpu.user + cpu.system) / 1000 / toolSteps,
      transactionsPerStep: transactions / toolSteps,
      toolSteps,
      cpuProfile,
      window: { fromUs: Number(started / 1000n), toUs: Number(ended / 1000n) },
    };
  } catch (error) {
    // The round's error is the one to report; the clean-up's own failures would hide it.
    await profiler?.stop().catch(() => undefined);
    await history?.close().catch(() => undefined);
    await host.close().catch(() => undefined);
    throw error;
  }
}
