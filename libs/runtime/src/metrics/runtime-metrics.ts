import { Injectable } from '@nestjs/common';

/** The counters the runtime keeps. Fail-soft paths count here besides logging. */
export const RUNTIME_COUNTERS = [
  'runCommandConflicts',
  'auditAppendFailures',
  'auditCommandsRejected',
  'deciderFailures',
  'auditFailSoft',
  'auditFailClosed',
  'leaseLost',
  'segmentsStarted',
  'segmentsStopped',
  'toolExecutions',
  'modelCalls',
  'reaperRuns',
  'claimsLost',
  'runOffers',
  'claimsSwept',
  'consumerGroupFailures',
  'auditGapsReported',
  'approvalsRequested',
  'inputsRequested',
  'stepsAppendedTogether',
  'stepAppendFallbacks',
  'workerProcessRestarts',
  'mcpServerRestarts',
  'mcpStderrLinesDropped',
] as const;

/** One of {@link RUNTIME_COUNTERS}. */
export type RuntimeCounter = (typeof RUNTIME_COUNTERS)[number];

/**
 * The counters the runtime keeps by label: `auditFailures` by `effect` and
 * `mode` (`fail_closed` | `fail_soft`), `reaperActions` by `action`
 * (`requeued` | `failed` | `cancelled`), `decisionStatements` by `kind`
 * (`approval` | `input` | `resolution`) and `outcome`: `deferred` (not stored
 * right after the decision), `late` (stored later, before anything the
 * decision allows), `failClosed` (not stored late either: the run failed),
 * `failed` (a reconciler's try that did not store it; it tries again).
 */
export const RUNTIME_LABELLED_COUNTERS = ['auditFailures', 'reaperActions', 'decisionStatements'] as const;

/** One of {@link RUNTIME_LABELLED_COUNTERS}. */
export type RuntimeLabelledCounter = (typeof RUNTIME_LABELLED_COUNTERS)[number];

/** One series of a labelled counter. */
export interface LabelledCount {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The counters of one process, as a worker process sends them to the process that supervises it. */
export interface RuntimeMetricsSnapshot {
  readonly counters: Readonly<Partial<Record<RuntimeCounter, number>>>;
  readonly labelled: Readonly<Partial<Record<RuntimeLabelledCounter, readonly LabelledCount[]>>>;
}

/**
 * The runtime's counters: this process's own, plus those its worker
 * processes last reported ({@link absorb}), so that the service's metrics
 * count the work of every process it supervises. A worker process that exits
 * keeps its last counts ({@link retire}): the sums never go back.
 */
@Injectable()
export class RuntimeMetrics {
  private readonly counters = new Map<RuntimeCounter, number>();
  private readonly series = new Map<RuntimeLabelledCounter, Map<string, LabelledCount>>();
  /** The last snapshot of each running worker process, by its name. */
  private readonly reported = new Map<string, RuntimeMetricsSnapshot>();
  /** The last counts of the worker processes that exited. */
  private retired: RuntimeMetricsSnapshot = { counters: {}, labelled: {} };

  increment(counter: RuntimeCounter, by = 1): void {
    this.counters.set(counter, (this.counters.get(counter) ?? 0) + by);
  }

  /** This process's count plus its worker processes'. */
  get(counter: RuntimeCounter): number {
    let total = (this.counters.get(counter) ?? 0) + (this.retired.counters[counter] ?? 0);
    for (const snapshot of this.reported.values()) total += snapshot.counters[counter] ?? 0;
    return total;
  }

  /** Adds to the series of `counter` with these labels. */
  incrementLabelled(counter: RuntimeLabelledCounter, labels: Readonly<Record<string, string>>, by = 1): void {
    let series = this.series.get(counter);
    if (series === undefined) this.series.set(counter, (series = new Map()));
    addTo(series, labels, by);
  }

  /** Every series of a labelled counter seen so far, this process's and its worker processes'. */
  labelled(counter: RuntimeLabelledCounter): LabelledCount[] {
    const others = [this.retired, ...this.reported.values()].flatMap((snapshot) => snapshot.labelled[counter] ?? []);
    if (others.length === 0) return [...(this.series.get(counter)?.values() ?? [])];
    const merged = new Map(this.series.get(counter));
    for (const { labels, value } of others) addTo(merged, labels, value);
    return [...merged.values()];
  }

  /** Every counter, zeros included (this process's and its worker processes'). */
  snapshot(): Readonly<Record<RuntimeCounter, number>> {
    return Object.fromEntries(RUNTIME_COUNTERS.map((c) => [c, this.get(c)])) as Record<RuntimeCounter, number>;
  }

  /** This process's own counters, to send to the process that supervises it. */
  ownSnapshot(): RuntimeMetricsSnapshot {
    return {
      counters: Object.fromEntries(this.counters),
      labelled: Object.fromEntries([...this.series].map(([counter, series]) => [counter, [...series.values()]])),
    };
  }

  /** Takes the latest counts a worker process reported (they replace its earlier ones). */
  absorb(source: string, snapshot: RuntimeMetricsSnapshot): void {
    this.reported.set(source, snapshot);
  }

  /** Keeps the last counts of a worker process that exited in the totals. */
  retire(source: string): void {
    const last = this.reported.get(source);
    if (last === undefined) return;
    this.reported.delete(source);
    const counters: Partial<Record<RuntimeCounter, number>> = { ...this.retired.counters };
    for (const [counter, value] of Object.entries(last.counters) as Array<[RuntimeCounter, number]>) counters[counter] = (counters[counter] ?? 0) + value;
    const labelled: Partial<Record<RuntimeLabelledCounter, LabelledCount[]>> = {};
    for (const counter of RUNTIME_LABELLED_COUNTERS) {
      const merged = new Map<string, LabelledCount>();
      for (const { labels, value } of [...(this.retired.labelled[counter] ?? []), ...(last.labelled[counter] ?? [])]) addTo(merged, labels, value);
      if (merged.size > 0) labelled[counter] = [...merged.values()];
    }
    this.retired = { counters, labelled };
  }
}

function addTo(series: Map<string, LabelledCount>, labels: Readonly<Record<string, string>>, by: number): void {
  const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  series.set(key, { labels: { ...labels }, value: (series.get(key)?.value ?? 0) + by });
}
