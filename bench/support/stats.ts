/** Order statistics of benchmark samples. */

/** The q-quantile (0..1) of `values` by the nearest-rank method; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The median of `values`: the mean of the two middle values when their count is even. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median and spread of the samples of the rounds. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** (max - min) / median, as a fraction; 0 for one sample. */
  readonly spread: number;
  readonly n: number;
}

/** Summarises samples (one per round). */
export function summarise(samples: readonly number[]): Summary {
  const m = median(samples);
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  return { median: m, min, max, spread: samples.length < 2 || m === 0 ? 0 : (max - min) / Math.abs(m), n: samples.length };
}

/** Element-wise ratio of two sample lists of the same rounds. */
export function ratioSamples(numerator: readonly number[], denominator: readonly number[]): number[] {
  if (numerator.length !== denominator.length) throw new Error(`ratio of ${numerator.length} and ${denominator.length} samples: the rounds differ`);
  return numerator.map((n, i) => n / (denominator[i] as number));
}

/** A latency recorder: milliseconds, with nearest-rank percentiles. */
export class Latencies {
  private readonly values: number[] = [];

  add(ms: number): void {
    this.values.push(ms);
  }

  get count(): number {
    return this.values.length;
  }

  percentile(p: number): number {
    return quantile(this.values, p / 100);
  }
}
