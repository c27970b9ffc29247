/** The declarations of scripts/test-timings.js (plain Node), for the tests that call it. */

/** A tier of jest.config.ts and the suffix of its files. */
export interface TierSuffix {
  readonly tier: string;
  readonly suffix: string;
}

/** The tiers, most specific suffix first. */
export const TIERS: readonly TierSuffix[];

/** The tier of a test file, or `other`. */
export function tierOf(file: string): string;

/** One tier's figures in a run. */
export interface TierTimings {
  readonly tier: string;
  readonly files: number;
  /** Files that failed (Jest's status `failed`). */
  readonly failed: number;
  /** The sum of its files' durations. */
  readonly seconds: number;
  readonly longest: { readonly file: string; readonly seconds: number };
}

/** A run's figures. */
export interface RunTimings {
  readonly files: number;
  /** The sum of every file's duration. */
  readonly seconds: number;
  /** From the first file's start to the last file's end. */
  readonly wallSeconds: number;
  readonly tiers: readonly TierTimings[];
}

/** The figures of Jest's JSON report, file names relative to `root`. */
export function summarize(
  report: { readonly testResults: ReadonlyArray<{ readonly name: string; readonly startTime: number; readonly endTime: number; readonly status: string }> },
  root: string,
): RunTimings;

/** The figures as a table. */
export function formatTable(summary: RunTimings): string;

/** Each file of 3 s or more, by its path relative to `root`, and its seconds rounded up, longest first. */
export function fileSeconds(report: { readonly testResults: ReadonlyArray<{ readonly name: string; readonly startTime: number; readonly endTime: number }> }, root: string): Record<string, number>;
