import type { RuntimeMetrics, RuntimeMetricsSnapshot } from '../metrics/runtime-metrics';
import { WORKER_PROCESS_ENV } from './worker-processes-options';

/** What a worker process sends the process that supervises it. */
export interface WorkerProcessReport {
  readonly type: 'agent-ledger:metrics';
  readonly snapshot: RuntimeMetricsSnapshot;
}

/** Whether an IPC message is a {@link WorkerProcessReport} (numbers only where counts go). */
export function isWorkerProcessReport(message: unknown): message is WorkerProcessReport {
  if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'agent-ledger:metrics') return false;
  const snapshot = (message as { snapshot?: unknown }).snapshot as { counters?: unknown; labelled?: unknown } | undefined;
  if (typeof snapshot !== 'object' || snapshot === null || typeof snapshot.counters !== 'object' || snapshot.counters === null) return false;
  if (!Object.values(snapshot.counters).every((v) => typeof v === 'number' && Number.isFinite(v))) return false;
  if (typeof snapshot.labelled !== 'object' || snapshot.labelled === null) return false;
  return Object.values(snapshot.labelled).every(
    (series) => Array.isArray(series) && series.every((s: { labels?: unknown; value?: unknown }) => typeof s === 'object' && s !== null && typeof s.labels === 'object' && s.labels !== null && typeof s.value === 'number'),
  );
}

/** A worker process's link to the process that supervises it. */
export interface SupervisorLink {
  /** This process's number among the supervised ones (from 1). */
  readonly number: number;
  /** Sends the last counts and stops reporting. */
  close(): void;
}

/**
 * Links a worker process to the process that started it (a
 * `WorkerProcessSupervisor`): its runtime counters are reported every
 * `intervalMs` (and once more at `close()`), so that the supervisor's
 * `/metrics` counts this process's work, and `onSupervisorGone` is called
 * when the supervisor goes away (its IPC channel closes: it exited or was
 * killed), so that this process drains instead of running unsupervised.
 *
 * @returns null when this process is not a supervised worker process (no IPC channel, or no `AGENT_LEDGER_WORKER_PROCESS`)
 */
export function linkToSupervisor(metrics: RuntimeMetrics, onSupervisorGone: () => void, intervalMs = 1_000): SupervisorLink | null {
  const number = Number(process.env[WORKER_PROCESS_ENV]);
  const send = process.send?.bind(process);
  if (send === undefined || !Number.isInteger(number) || number < 1) return null;
  const report = () => {
    if (!process.connected) return;
    const message: WorkerProcessReport = { type: 'agent-ledger:metrics', snapshot: metrics.ownSnapshot() };
    // A report that cannot be sent (the supervisor is going away) is dropped: the next one, or the disconnect, follows.
    send(message, undefined, undefined, () => undefined);
  };
  const timer = setInterval(report, intervalMs);
  timer.unref();
  const onDisconnect = () => onSupervisorGone();
  process.once('disconnect', onDisconnect);
  report();
  return {
    number,
    close: () => {
      clearInterval(timer);
      process.off('disconnect', onDisconnect);
      report();
    },
  };
}
