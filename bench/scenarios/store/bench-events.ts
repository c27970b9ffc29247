import { randomUUID } from 'node:crypto';

/**
 * The events the store scenario appends, the same for the product and the
 * peer: about 250 bytes of JSON each, in the shape of the product's own run
 * events (a tool step of an agent run), with the appender and its attempt
 * number so that a check can find every acknowledged event again.
 */

/** The payload of a benchmark event. */
export interface BenchEventData {
  /** Which concurrent appender wrote it (0-based). */
  readonly appender: number;
  /** That appender's attempt number (0-based): unique per appender, so an event can be told from its retries. */
  readonly attempt: number;
  readonly runId: string;
  readonly stepId: string;
  readonly toolName: string;
  readonly effect: string;
  readonly output: { readonly path: string; readonly bytesWritten: number; readonly note: string };
}

/** One event to append: the id is used by the product (the peer makes its own message id). */
export interface BenchEvent {
  readonly id: string;
  readonly type: string;
  readonly data: BenchEventData;
}

/** The event types, taken in turn. */
export const BENCH_EVENT_TYPES = ['StepStarted', 'ToolExecuted', 'AuditRecorded'] as const;

/** Serialised size of a payload aimed at (bytes of `JSON.stringify(data)`). */
export const BENCH_PAYLOAD_BYTES = 250;

/** Builds the event of `appender`'s attempt number `attempt`, padded to {@link BENCH_PAYLOAD_BYTES}. */
export function benchEvent(appender: number, attempt: number): BenchEvent {
  const runId = randomUUID();
  const base: BenchEventData = {
    appender,
    attempt,
    runId,
    stepId: `${runId}/r1/t${attempt % 16}`,
    toolName: 'files.write',
    effect: 'IDEMPOTENT_WRITE',
    output: { path: `reports/${appender}/${attempt}.txt`, bytesWritten: 1024 + attempt, note: '' },
  };
  const padding = Math.max(0, BENCH_PAYLOAD_BYTES - JSON.stringify(base).length);
  return {
    id: randomUUID(),
    type: BENCH_EVENT_TYPES[attempt % BENCH_EVENT_TYPES.length] as string,
    data: { ...base, output: { ...base.output, note: 'x'.repeat(padding) } },
  };
}

/** Whether a read-back payload is one of ours (the peer and the product return parsed JSON). */
export function isBenchEventData(value: unknown): value is BenchEventData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Partial<Record<keyof BenchEventData, unknown>>;
  return typeof data.appender === 'number' && typeof data.attempt === 'number' && typeof data.runId === 'string';
}
