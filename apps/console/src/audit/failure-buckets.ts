import type { AuditWriteView as AuditWrite, ToolEffect } from '@agent-ledger/client';

/** The write effects an audit failure can have (a read's audit is fail-soft, never a finding). */
export const WRITE_EFFECTS = ['IDEMPOTENT_WRITE', 'NON_IDEMPOTENT_WRITE'] as const satisfies readonly ToolEffect[];

/** One time bucket of the chart: `[start, end)` and the writes without audit in it, by effect. */
export interface FailureBucket {
  readonly start: number;
  readonly end: number;
  readonly counts: Readonly<Record<(typeof WRITE_EFFECTS)[number], number>>;
}

const STEPS_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000] as const;

/**
 * Buckets the writes without audit by when they happened (`executedAt`, else
 * `firstStartedAt`) and by effect, for the audit review's chart. The bucket
 * width is the smallest of 1 min, 5 min, 15 min, 1 h, 6 h, 1 day, 1 week that
 * covers the span in at most `maxBuckets`; buckets are aligned to it, and
 * empty ones in between are kept so the time axis is even. Empty buckets
 * before the first failure pad the axis to `minBuckets`, so that a single
 * failure reads as a bar on a time line, not as a block.
 */
export function failureBuckets(writes: readonly AuditWrite[], { maxBuckets = 24, minBuckets = 12 }: { maxBuckets?: number; minBuckets?: number } = {}): FailureBucket[] {
  const points = writes
    .filter((w) => !w.audited && (w.effect === 'IDEMPOTENT_WRITE' || w.effect === 'NON_IDEMPOTENT_WRITE'))
    .map((w) => ({ at: w.executedAt ?? w.firstStartedAt, effect: w.effect as (typeof WRITE_EFFECTS)[number] }))
    .filter((p): p is { at: number; effect: (typeof WRITE_EFFECTS)[number] } => p.at !== null);
  if (points.length === 0) return [];
  const min = Math.min(...points.map((p) => p.at));
  const max = Math.max(...points.map((p) => p.at));
  const width = STEPS_MS.find((step) => Math.floor(max / step) - Math.floor(min / step) + 1 <= maxBuckets) ?? STEPS_MS[STEPS_MS.length - 1]!;
  const spanned = Math.floor(max / width) - Math.floor(min / width) + 1;
  const count = Math.max(spanned, Math.min(minBuckets, maxBuckets));
  const first = (Math.floor(min / width) - (count - spanned)) * width;
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: first + i * width,
    end: first + (i + 1) * width,
    counts: { IDEMPOTENT_WRITE: 0, NON_IDEMPOTENT_WRITE: 0 },
  }));
  for (const point of points) buckets[Math.floor((point.at - first) / width)]!.counts[point.effect]++;
  return buckets;
}
