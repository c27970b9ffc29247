import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigurationError } from '@agent-ledger/domain';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import type { ExecutionOptions } from './runtime-options';
import { EXECUTION_OPTIONS } from './runtime-options';
import { RestartBackoff } from './restart-backoff';
import { isWorkerProcessReport } from './worker-process-link';
import type { WorkerProcessesOptions } from './worker-processes-options';
import { resolveWorkerProcessCount, WORKER_PROCESS_ENV } from './worker-processes-options';

/** The longest wait before a worker process that keeps exiting is started again. */
const MAX_RESTART_DELAY_MS = 30_000;

/** One supervised worker process, as `/metrics` and the start-up log show it. */
export interface WorkerProcessState {
  /** Its number, from 1 (`AGENT_LEDGER_WORKER_PROCESS`). */
  readonly number: number;
  /** Its pid, or null while it waits to be started again. */
  readonly pid: number | null;
  /** How many times it exited unasked and was started again. */
  readonly restarts: number;
}

interface Slot {
  readonly number: number;
  child: ChildProcess | null;
  startedAt: number;
  restarts: number;
  readonly backoff: RestartBackoff;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/**
 * Starts the worker processes of `workers.processes` when the application
 * starts, and keeps them running: one that exits unasked is logged, counted
 * (`workerProcessRestarts`) and started again after a back-off (1 s, doubling
 * while it keeps exiting within a minute, up to 30 s); the runs it held are
 * taken back by the reaper when their leases expire, as after any crash. Their
 * counters are added to this process's (`RuntimeMetrics`). Before the
 * application shuts down, each is sent SIGTERM and drains (killed after
 * `stopTimeoutMs`). A worker process whose supervisor dies drains by itself
 * (see `linkToSupervisor`).
 */
@Injectable()
export class WorkerProcessSupervisor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkerProcesses');
  private readonly options: WorkerProcessesOptions | null;
  /** How many worker processes this process keeps running (0: none). */
  readonly count: number;
  private readonly slots: Slot[] = [];
  private stopping = false;

  constructor(
    @Inject(EXECUTION_OPTIONS) execution: ExecutionOptions,
    private readonly metrics: RuntimeMetrics,
  ) {
    const options = execution.workers?.processes;
    this.count = options === undefined ? 0 : resolveWorkerProcessCount(options.count);
    this.options = this.count === 0 ? null : (options as WorkerProcessesOptions);
  }

  /** Each worker process: its number, its pid (null while it waits to be started again), its restarts. */
  states(): WorkerProcessState[] {
    return this.slots.map((slot) => ({ number: slot.number, pid: slot.child?.pid ?? null, restarts: slot.restarts }));
  }

  onApplicationBootstrap(): void {
    if (this.options === null) return;
    if (!existsSync(this.options.entry)) throw new ConfigurationError(`workers.processes.entry: ${this.options.entry} does not exist (the script each worker process runs)`);
    for (let number = 1; number <= this.count; number += 1) {
      const backoff = new RestartBackoff({ initialDelayMs: this.options.restartDelayMs ?? 1_000, maxDelayMs: MAX_RESTART_DELAY_MS });
      const slot: Slot = { number, child: null, startedAt: 0, restarts: 0, backoff, timer: null, exited: Promise.resolve() };
      this.slots.push(slot);
      this.spawn(slot, this.options);
    }
  }

  /** Sends every worker process SIGTERM and waits for them to drain (killing those still running after `stopTimeoutMs`). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const timeoutMs = this.options?.stopTimeoutMs ?? 60_000;
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer !== null) clearTimeout(slot.timer);
        const child = slot.child;
        if (child === null) return;
        child.kill('SIGTERM');
        const killer = setTimeout(() => {
          this.logger.error(`worker process ${slot.number} (pid ${child.pid}) did not stop within ${timeoutMs} ms of SIGTERM: killed`);
          child.kill('SIGKILL');
        }, timeoutMs);
        await slot.exited;
        clearTimeout(killer);
      }),
    );
  }

  private spawn(slot: Slot, options: WorkerProcessesOptions): void {
    const child = fork(options.entry, [...(options.args ?? [])], {
      env: { ...(options.env ?? process.env), [WORKER_PROCESS_ENV]: String(slot.number) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    slot.startedAt = Date.now();
    const source = `worker-${slot.number}-${child.pid ?? 'unknown'}`;
    child.on('message', (message: unknown) => {
      if (isWorkerProcessReport(message)) this.metrics.absorb(source, message.snapshot);
    });
    // A failure to start is followed by 'exit' (or 'close'): the restart is decided there.
    child.on('error', (error) => this.logger.error(`worker process ${slot.number}: ${error.message}`));
    slot.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.metrics.retire(source);
        slot.child = null;
        resolve();
        if (this.stopping) return;
        this.restartLater(slot, options, signal === null ? `exited with code ${code}` : `was killed by ${signal}`, child.pid, code === 0);
      });
    });
  }

  private restartLater(slot: Slot, options: WorkerProcessesOptions, how: string, pid: number | undefined, clean: boolean): void {
    const delay = slot.backoff.delayAfterExit(Date.now() - slot.startedAt);
    const what = `worker process ${slot.number} (pid ${pid ?? 'unknown'}) ${how}`;
    // A clean exit is often this process's own stop arriving a moment later (Ctrl-C reaches the whole process group): said only if it is started again.
    if (!clean) this.logger.error(`${what}: starting it again in ${delay} ms; the runs it held are taken back when their leases expire`);
    slot.timer = setTimeout(() => {
      slot.timer = null;
      if (this.stopping) return;
      if (clean) this.logger.warn(`${what} unasked: started again after ${delay} ms`);
      slot.restarts += 1;
      this.metrics.increment('workerProcessRestarts');
      this.spawn(slot, options);
    }, delay);
  }
}
