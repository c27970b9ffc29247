import type { FailureBucket } from '../audit/failure-buckets';
import { WRITE_EFFECTS } from '../audit/failure-buckets';
import { formatTime } from './format';

const WIDTH = 720;
const HEIGHT = 150;
const PAD = { left: 36, right: 12, top: 12, bottom: 36 };

/**
 * Audit failures (writes without audit) over time, stacked by effect: an
 * inline SVG, drawn with classes only (the console's CSP forbids inline styles).
 */
export function FailureChart({ buckets }: { buckets: readonly FailureBucket[] }) {
  if (buckets.length === 0) {
    return (
      <p class="empty" data-testid="audit-chart-empty">
        No write without audit: nothing to chart.
      </p>
    );
  }
  const max = Math.max(1, ...buckets.map((b) => b.counts.IDEMPOTENT_WRITE + b.counts.NON_IDEMPOTENT_WRITE));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / buckets.length;
  const barW = Math.max(2, slot * 0.7);
  const y = (n: number) => PAD.top + plotH - (n / max) * plotH;
  const labelEvery = Math.ceil(buckets.length / 6);
  return (
    <figure class="chart">
      <svg data-testid="audit-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Writes without audit over time, by effect" xmlns="http://www.w3.org/2000/svg">
        <line class="axis" x1={PAD.left} y1={PAD.top + plotH} x2={WIDTH - PAD.right} y2={PAD.top + plotH} />
        <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + plotH} />
        <text class="tick" x={PAD.left - 6} y={PAD.top + 4} text-anchor="end">
          {max}
        </text>
        <text class="tick" x={PAD.left - 6} y={PAD.top + plotH} text-anchor="end">
          0
        </text>
        {buckets.map((bucket, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          let base = 0;
          return (
            <g key={bucket.start}>
              {WRITE_EFFECTS.map((effect) => {
                const n = bucket.counts[effect];
                if (n === 0) return null;
                const rect = (
                  <rect key={effect} class={`bar ${effect.toLowerCase().replace(/_/g, '-')}`} x={x} width={barW} y={y(base + n)} height={y(base) - y(base + n)} data-effect={effect} data-count={n}>
                    <title>{`${formatTime(bucket.start)}: ${n} ${effect}`}</title>
                  </rect>
                );
                base += n;
                return rect;
              })}
              {i % labelEvery === 0 ? (
                <text class="tick" x={x + barW / 2} y={HEIGHT - PAD.bottom + 16} text-anchor="middle">
                  {formatTime(bucket.start).slice(5, 16)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key idempotent-write" /> IDEMPOTENT_WRITE <span class="key non-idempotent-write" /> NON_IDEMPOTENT_WRITE — bucket {Math.round((buckets[0]!.end - buckets[0]!.start) / 60_000)} min
      </figcaption>
    </figure>
  );
}
