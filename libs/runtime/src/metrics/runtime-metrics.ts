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

/** In-process counters of the runtime (a snapshot is served by the service's metrics endpoint). */
@Injectable()
export class RuntimeMetrics {
  private readonly counters = new Map<RuntimeCounter, number>();
  private readonly series = new Map<RuntimeLabelledCounter, Map<string, LabelledCount>>();

  increment(counter: RuntimeCounter, by = 1): void {
    this.counters.set(counter, (this.counters.get(counter) ?? 0) + by);
  }

  get(counter: RuntimeCounter): number {
    return this.counters.get(counter) ?? 0;
  }

  /** Adds to the series of `counter` with these labels. */
  incrementLabelled(counter: RuntimeLabelledCounter, labels: Readonly<Record<string, string>>, by = 1): void {
    let series = this.series.get(counter);
    if (series === undefined) this.series.set(counter, (series = new Map()));
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    series.set(key, { labels: { ...labels }, value: (series.get(key)?.value ?? 0) + by });
  }

  /** Every series of a labelled counter seen so far. */
  labelled(counter: RuntimeLabelledCounter): LabelledCount[] {
    return [...(this.series.get(counter)?.values() ?? [])];
  }

  /** Every counter, zeros included. */
  snapshot(): Readonly<Record<RuntimeCounter, number>> {
    return Object.fromEntries(RUNTIME_COUNTERS.map((c) => [c, this.get(c)])) as Record<RuntimeCounter, number>;
  }
}
