/**
 * One round of the product in the step-throughput benchmark: queued runs of
 * K no-op tool steps executed by the product's workers (one process, or two
 * on one store file), with the read models and the audit-gap saga running,
 * timed from the first submission to the last settled run.
 */
import Database from 'better-sqlite3';
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import type { ToolEffect } from '@agent-ledger/domain';
import type { Durability } from '@agent-ledger/event-store';
import { StartRun } from '@agent-ledger/runtime';
import type { CpuProfile } from '../../support/cpu-profile-format';
import type { RunningCpuProfile } from '../../support/cpu-profiler';
import { startCpuProfile } from '../../support/cpu-profiler';
import { Latencies, median } from '../../support/stats';
import { benchAgent, startBenchHost } from './bench-host';
import type { RawEvent } from './raw-baseline';
import type { WorkerProcessCommand, WorkerProcessReply } from './worker-process';

const ROOT = join(__dirname, '..', '..', '..');
const TERMINAL = "('RunCompleted', 'RunFailed', 'RunCancelled')";

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

/** The second process, kept up across rounds. */
export class WorkerChild {
  private readonly child: ChildProcess;
  private readonly replies: WorkerProcessReply[] = [];
  private waiting: (() => void) | null = null;
  private exited: string | null = null;

  constructor() {
    this.child = fork(join(__dirname, 'worker-process.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (message: WorkerProcessReply) => {
      this.replies.push(message);
      this.waiting?.();
    });
    this.child.on('exit', (code, signal) => {
      this.exited = `the worker process exited (code ${code}, signal ${signal})`;
      this.waiting?.();
    });
  }

  /** Sends a command and waits for its reply (a start-up takes seconds: the child compiles the product). */
  async send(command: WorkerProcessCommand): Promise<WorkerProcessReply> {
    this.child.send(command);
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
    if (this.exited === null) this.child.kill('SIGKILL');
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
}): Promise<ProductRoundResult> {
  const { dir, durability, effect, stepsPerRun } = options;
  const concurrency = options.worker === null ? options.runs : options.layout === 'apart' ? 0 : Math.ceil(options.runs / 2);
  const host = await startBenchHost({ dataDir: dir, durability, agents: [benchAgent(effect, stepsPerRun)], workerConcurrency: concurrency, projectionsAndSaga: true });
  let childTransactions = 0;
  let profiler: RunningCpuProfile | null = null;
  try {
    if (options.worker !== null) {
      await options.worker.send({ type: 'start', options: { dataDir: dir, durability, workerConcurrency: options.runs - concurrency }, effect, steps: stepsPerRun });
    }
    const probe = new Database(join(dir, 'agent-ledger.sqlite'), { readonly: true });
    // Counts settled runs incrementally: a full scan every few ms would cost this process more than the product's work.
    const settledSince = probe.prepare(`SELECT count(*) AS n, max(position) AS last FROM events WHERE position > ? AND event_type IN ${TERMINAL}`);
    const maxPosition = probe.prepare('SELECT max(position) AS last FROM events');
    let settledRuns = 0;
    let seenUpTo = 0;
    const countSettled = () => {
      // Only positions committed before this read: a later, lower position cannot appear (positions commit in order).
      const upTo = (maxPosition.get() as { last: number | null }).last ?? 0;
      const row = settledSince.get(seenUpTo) as { n: number; last: number | null };
      settledRuns += row.n;
      seenUpTo = Math.max(upTo, row.last ?? 0);
      return settledRuns;
    };
    const commandBus = host.app.get(CommandBus);
    const agent = benchAgent(effect, stepsPerRun).name;
    if (options.profile === true) profiler = await startCpuProfile();
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    await Promise.all(Array.from({ length: options.totalRuns }, (_, i) => commandBus.execute(new StartRun({ agent, input: { i }, mode: 'queued', runId: `bench-${i}` }))));
    const deadline = Date.now() + 600_000;
    while (countSettled() < options.totalRuns) {
      if (Date.now() > deadline) throw new Error(`${options.totalRuns} runs not settled after 600 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ended = process.hrtime.bigint();
    const seconds = Number(ended - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuProfile = profiler === null ? null : await profiler.stop();
    profiler = null;
    probe.close();
    if (options.worker !== null) {
      const reply = await options.worker.send({ type: 'stop' });
      if (reply.type === 'stopped') childTransactions = reply.transactions;
    }
    const transactions = host.store.stats().transactions + childTransactions;
    await host.close();
    const toolSteps = options.totalRuns * stepsPerRun;
    return {
      ...analyseHistory(join(dir, 'agent-ledger.sqlite'), options.totalRuns, stepsPerRun),
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
    await host.close().catch(() => undefined);
    throw error;
  }
}

/**
 * From the stored history: every run completed, each with its steps; the step
 * latency (from one step's audit to the next's, the first from the model
 * round's audit: what a run waits per step); the events of one tool step.
 */
function analyseHistory(path: string, totalRuns: number, stepsPerRun: number): Omit<ProductRoundResult, 'stepsPerSecond' | 'cpuMsPerStep' | 'transactionsPerStep' | 'toolSteps' | 'cpuProfile' | 'window'> {
  const db = new Database(path, { readonly: true });
  try {
    const outcomes = db.prepare(`SELECT event_type AS type, count(*) AS n FROM events WHERE event_type IN ${TERMINAL} GROUP BY event_type`).all() as Array<{ type: string; n: number }>;
    const completed = outcomes.find((o) => o.type === 'RunCompleted')?.n ?? 0;
    if (completed !== totalRuns) throw new Error(`${completed} of ${totalRuns} runs completed: ${JSON.stringify(outcomes)}`);
    const toolSteps = (db.prepare("SELECT count(*) AS n FROM events WHERE event_type = 'ToolExecuted'").get() as { n: number }).n;
    if (toolSteps !== totalRuns * stepsPerRun) throw new Error(`${toolSteps} tool steps recorded, ${totalRuns * stepsPerRun} expected`);
    const events = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;

    const latencies = new Latencies();
    const audits = db.prepare("SELECT stream_name AS stream, data, created_at AS at FROM events WHERE event_type = 'AuditRecorded' ORDER BY position").all() as Array<{ stream: string; data: string; at: number }>;
    const last = new Map<string, number>();
    for (const a of audits) {
      const kind = (JSON.parse(a.data) as { kind: string }).kind;
      const previous = last.get(a.stream);
      if (kind === 'tool' && previous !== undefined) latencies.add(a.at - previous);
      last.set(a.stream, a.at);
    }

    // The events of a tool step, with the stored sizes (the median of each type).
    const sample = (type: string, where: string, audit: boolean): RawEvent => {
      const rows = db.prepare(`SELECT data, metadata FROM events WHERE event_type = ? ${where} LIMIT 200`).all(type) as Array<{ data: string; metadata: string }>;
      const sizes = rows.map((r) => r.data.length + r.metadata.length);
      const m = median(sizes);
      const row = rows.find((r) => r.data.length + r.metadata.length >= m) ?? rows[0];
      if (row === undefined) throw new Error(`no ${type} event to sample`);
      return { type, data: row.data, metadata: row.metadata, audit };
    };
    const stepEvents = [
      sample('StepStarted', "AND json_extract(data, '$.kind') = 'tool'", false),
      sample('ToolExecuted', '', false),
      sample('AuditRecorded', "AND json_extract(data, '$.kind') = 'tool'", true),
    ];
    return { p50Ms: latencies.percentile(50), p99Ms: latencies.percentile(99), eventsPerStep: events / (totalRuns * stepsPerRun), stepEvents };
  } finally {
    db.close();
  }
}
