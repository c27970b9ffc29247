import { Injectable } from '@nestjs/common';

/** The counters the runtime keeps. Fail-soft paths count here besides logging. */
export const RUNTIME_COUNTERS = [
  'runCommandConflicts',
  'auditAppendFailures',
  'auditFailSoft',
  'auditFailClosed',
  'leaseLost',
  'segmentsStarted',
  'segmentsStopped',
  'toolExecutions',
  'modelCalls',
  'reaperRuns',
  'claimsLost',
  'auditGapsReported',
] as const;

/** One of {@link RUNTIME_COUNTERS}. */
export type RuntimeCounter = (typeof RUNTIME_COUNTERS)[number];

/** In-process counters of the runtime (a snapshot is served by the service's metrics endpoint). */
@Injectable()
export class RuntimeMetrics {
  private readonly counters = new Map<RuntimeCounter, number>();

  increment(counter: RuntimeCounter, by = 1): void {
    this.counters.set(counter, (this.counters.get(counter) ?? 0) + by);
  }

  get(counter: RuntimeCounter): number {
    return this.counters.get(counter) ?? 0;
  }

  /** Every counter, zeros included. */
  snapshot(): Readonly<Record<RuntimeCounter, number>> {
    return Object.fromEntries(RUNTIME_COUNTERS.map((c) => [c, this.get(c)])) as Record<RuntimeCounter, number>;
  }
}
