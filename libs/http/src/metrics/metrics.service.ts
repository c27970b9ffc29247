import { Injectable } from '@nestjs/common';
import { RunStatus } from '@agent-ledger/domain';
import { APPROVAL_STATES, ProjectionQueries, ProjectionStore } from '@agent-ledger/projections';
import type { RuntimeCounter } from '@agent-ledger/runtime';
import { RUNTIME_COUNTERS, RuntimeMetrics, WorkerProcessSupervisor } from '@agent-ledger/runtime';
import { ProjectionLagService } from '../projections/projection-lag.service';
import { PROJECTION_LAG_CAP } from '../projections/read-models.controller';
import type { MetricFamily } from './prometheus-text';

/** The reaper's actions, always exposed (zeros included). */
const REAPER_ACTIONS = ['requeued', 'failed', 'cancelled'] as const;

const RUNTIME_COUNTER_HELP: Readonly<Record<RuntimeCounter, string>> = {
  runCommandConflicts: 'Run commands retried after a concurrency conflict, in this process and its worker processes',
  auditAppendFailures: 'Audit records that could not be appended (the audit store failed or refused), in this process and its worker processes',
  auditCommandsRejected: 'Audit records and statements the audit decider refused (a malformed entry, a conflicting statement), in this process and its worker processes',
  deciderFailures: 'Commands whose decider threw instead of deciding (a bug; nothing was appended), in this process and its worker processes',
  auditFailSoft: 'Audits not stored of steps that do not write (the run went on), in this process and its worker processes',
  auditFailClosed: 'Audits not stored of writes (the run failed closed), in this process and its worker processes',
  leaseLost: 'Segments that lost their lease and stopped, in this process and its worker processes',
  segmentsStarted: 'Segments started, in this process and its worker processes',
  segmentsStopped: 'Segments stopped, in this process and its worker processes',
  toolExecutions: 'Tool executions, in this process and its worker processes',
  modelCalls: 'Model calls, in this process and its worker processes',
  reaperRuns: 'Reaper passes, in this process and its worker processes',
  claimsLost: 'Claims lost to another worker, in this process and its worker processes',
  runOffers: 'Runnable runs the EventStoreDB consumer group offered to this process and its worker processes',
  claimsSwept: "Claims this process's and its worker processes' workers tried on runs that waited past the consumer group's sweep delay (the fallback for lost timers and parked offers)",
  consumerGroupFailures: 'Failures of the consumer group membership (joined again) or of an ack or nack, in this process and its worker processes',
  auditGapsReported: 'Audit gaps reported by the audit-gap saga, in this process and its worker processes',
  approvalsRequested: "Rounds that paused their run for a person's approval, in this process and its worker processes",
  inputsRequested: 'Tool calls that paused their run for input, in this process and its worker processes',
  stepsAppendedTogether: "Steps whose records went to the store in one commit (a read's start, result and audit; a write's or a model call's result and audit), in this process and its worker processes",
  stepAppendFallbacks: 'Steps whose one-commit append was refused or failed, their records then appended one after the other as a step without it, in this process and its worker processes',
  workerProcessRestarts: 'Worker processes this process supervises that exited unasked and were started again',
  mcpServerRestarts: 'MCP servers started (stdio) or connected to (HTTP) again after they exited or their connection or session was lost, in this process and its worker processes',
  mcpStderrLinesDropped: "Lines of stdio MCP servers' standard error not logged (over 100 a second for a server), in this process and its worker processes",
};

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The metrics of `GET /metrics`: gauges read from the read models (runs by
 * status, every status with zeros, the two waiting ones included; requests
 * for approval by state; steps by kind and effect, executed writes without audit, projection
 * lag; the same for every process on the same data) and this process's
 * runtime counters (audit failures, lease losses, reaper actions, ...), and a
 * few process gauges.
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly runtime: RuntimeMetrics,
    private readonly store: ProjectionStore,
    private readonly queries: ProjectionQueries,
    private readonly lag: ProjectionLagService,
    private readonly workerProcesses: WorkerProcessSupervisor,
  ) {}

  async collect(): Promise<MetricFamily[]> {
    const db = this.store.database;
    const byStatus = new Map<string, number>(Object.values(RunStatus).map((status) => [status, 0]));
    for (const row of db.prepare('SELECT status, COUNT(*) AS n FROM runs GROUP BY status').all() as Array<{ status: string | null; n: number }>) {
      byStatus.set(row.status ?? 'UNKNOWN', row.n);
    }
    const approvals = new Map<string, number>(APPROVAL_STATES.map((state) => [state, 0]));
    for (const row of db.prepare('SELECT state, COUNT(*) AS n FROM approvals GROUP BY state').all() as Array<{ state: string | null; n: number }>) {
      approvals.set(row.state ?? 'unknown', row.n);
    }
    const steps = db.prepare('SELECT kind, effect, COUNT(*) AS n FROM steps GROUP BY kind, effect ORDER BY kind, effect').all() as Array<{ kind: string | null; effect: string | null; n: number }>;
    const { totals } = this.queries.auditReview({ limit: 1 });
    const lag = await this.lag.status(PROJECTION_LAG_CAP);
    const reaper = new Map<string, number>(REAPER_ACTIONS.map((action) => [action, 0]));
    for (const series of this.runtime.labelled('reaperActions')) reaper.set(series.labels.action ?? 'unknown', series.value);
    const workerStates = this.workerProcesses.states();
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    return [
      {
        name: 'agent_ledger_runs',
        help: 'Runs by status (run-status read model)',
        type: 'gauge',
        samples: [...byStatus].map(([status, value]) => ({ labels: { status }, value })),
      },
      {
        name: 'agent_ledger_approvals',
        help: 'Requests for approval by state (approvals read model; pending: runs waiting for a decision now)',
        type: 'gauge',
        samples: [...approvals].map(([state, value]) => ({ labels: { state }, value })),
      },
      {
        name: 'agent_ledger_steps',
        help: 'Steps by kind and declared effect (steps read model; effect NONE for model calls)',
        type: 'gauge',
        samples: steps.map((row) => ({ labels: { kind: row.kind ?? 'unknown', effect: row.effect ?? 'NONE' }, value: row.n })),
      },
      { name: 'agent_ledger_writes_without_audit', help: 'Executed writes without their audit record (audit-review read model)', type: 'gauge', samples: [{ value: totals.writesWithoutAudit }] },
      { name: 'agent_ledger_audit_gaps_detected', help: 'Writes whose missing audit the audit-gap saga detected (audit-review read model)', type: 'gauge', samples: [{ value: totals.gapsDetected }] },
      {
        name: 'agent_ledger_audit_failures_total',
        help: 'Audits that could not be stored, by the step effect and what the run did (fail_closed: failed the run; fail_soft: went on), in this process and its worker processes',
        type: 'counter',
        samples: this.runtime.labelled('auditFailures').map((series) => ({ labels: { effect: series.labels.effect ?? 'NONE', mode: series.labels.mode ?? 'unknown' }, value: series.value })),
      },
      {
        name: 'agent_ledger_reaper_actions_total',
        help: 'Runs the reaper settled or requeued after their lease expired, by action, in this process and its worker processes',
        type: 'counter',
        samples: [...reaper].map(([action, value]) => ({ labels: { action }, value })),
      },
      {
        name: 'agent_ledger_decision_statements_total',
        help: 'Statements of decisions (approval, input, resolution) not stored right after the decision (deferred), stored later before anything the decision allows (late), not stored late either so the run failed closed (failClosed), or a reconciler try that failed (failed), in this process and its worker processes',
        type: 'counter',
        samples: this.runtime.labelled('decisionStatements').map((series) => ({ labels: { kind: series.labels.kind ?? 'unknown', outcome: series.labels.outcome ?? 'unknown' }, value: series.value })),
      },
      ...RUNTIME_COUNTERS.map(
        (counter): MetricFamily => ({ name: `agent_ledger_${snake(counter)}_total`, help: RUNTIME_COUNTER_HELP[counter], type: 'counter', samples: [{ value: this.runtime.get(counter) }] }),
      ),
      {
        name: 'agent_ledger_projection_lag_events',
        help: `Projected events after a projection's checkpoint in its source, counted up to ${PROJECTION_LAG_CAP}`,
        type: 'gauge',
        samples: lag.filter((entry) => entry.lag !== null).map((entry) => ({ labels: { projection: entry.projection, source: entry.source }, value: entry.lag?.events ?? 0 })),
      },
      {
        name: 'agent_ledger_worker_processes',
        help: 'Worker processes this process supervises (WORKER_PROCESSES), by state: running, or waiting to be started again after it exited',
        type: 'gauge',
        samples: (['running', 'restarting'] as const).map((state) => ({ labels: { state }, value: workerStates.filter((s) => (s.pid === null) === (state === 'restarting')).length })),
      },
      { name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes', type: 'gauge', samples: [{ value: memory.rss }] },
      { name: 'nodejs_heap_used_bytes', help: 'V8 heap used in bytes', type: 'gauge', samples: [{ value: memory.heapUsed }] },
      { name: 'process_cpu_seconds_total', help: 'User and system CPU time spent in seconds', type: 'counter', samples: [{ value: (cpu.user + cpu.system) / 1e6 }] },
      { name: 'process_start_time_seconds', help: 'Start time of the process since the epoch in seconds', type: 'gauge', samples: [{ value: Math.round(Date.now() / 1000 - process.uptime()) }] },
    ];
  }
}
