import type { AuditWriteView as AuditWrite } from '@agent-ledger/client';
import { failureBuckets } from './failure-buckets';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const write = (at: number | null, effect: AuditWrite['effect'], audited = false): AuditWrite => ({
  stepId: `s${at}`,
  runId: 'r',
  toolName: 't',
  effect,
  firstStartedAt: at,
  executedAt: at,
  outcome: 'succeeded',
  audited,
  auditSequence: null,
  idempotencyKey: null,
  starts: 1,
  executedAttempt: 1,
  auditAttempt: null,
  auditRecordedAt: null,
  gapRunAlreadySettled: null,
  gapDetectedAt: null,
  gapDetectedBy: null,
  failedRunReason: null,
  runStartedBy: 'key:ops',
});

describe('failureBuckets', () => {
  it('counts writes without audit by effect in aligned minute buckets, keeping empty ones', () => {
    const buckets = failureBuckets([
      write(T0 + 10_000, 'NON_IDEMPOTENT_WRITE'),
      write(T0 + 20_000, 'IDEMPOTENT_WRITE'),
      write(T0 + 50_000, 'NON_IDEMPOTENT_WRITE'),
      write(T0 + 3 * 60_000 + 1, 'NON_IDEMPOTENT_WRITE'),
      write(T0 + 30_000, 'NON_IDEMPOTENT_WRITE', true), // audited: not a failure
      write(T0 + 30_000, 'READ_ONLY'), // reads are never findings
      write(null, 'NON_IDEMPOTENT_WRITE'), // no time: not placeable
    ], { minBuckets: 1 });
    expect(buckets.map((b) => [b.start - T0, b.end - T0, b.counts.IDEMPOTENT_WRITE, b.counts.NON_IDEMPOTENT_WRITE])).toEqual([
      [0, 60_000, 1, 2],
      [60_000, 120_000, 0, 0],
      [120_000, 180_000, 0, 0],
      [180_000, 240_000, 0, 1],
    ]);
  });

  it('widens the bucket to stay within maxBuckets', () => {
    const buckets = failureBuckets([write(T0, 'IDEMPOTENT_WRITE'), write(T0 + 5 * 3_600_000, 'IDEMPOTENT_WRITE')], { maxBuckets: 24 });
    expect(buckets[0]!.end - buckets[0]!.start).toBe(15 * 60_000);
    expect(buckets.length).toBeLessThanOrEqual(24);
    expect(buckets.reduce((n, b) => n + b.counts.IDEMPOTENT_WRITE, 0)).toBe(2);
  });

  it('pads the axis before the first failure to minBuckets, the failure in the last bucket', () => {
    const buckets = failureBuckets([write(T0 + 30_000, 'NON_IDEMPOTENT_WRITE')], { minBuckets: 12 });
    expect(buckets).toHaveLength(12);
    expect(buckets[11]).toMatchObject({ start: T0, counts: { NON_IDEMPOTENT_WRITE: 1 } });
    expect(buckets[0]!.start).toBe(T0 - 11 * 60_000);
  });

  it('is empty without failures', () => {
    expect(failureBuckets([write(T0, 'IDEMPOTENT_WRITE', true)])).toEqual([]);
  });
});
