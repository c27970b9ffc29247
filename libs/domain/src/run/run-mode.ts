/** How a run is executed. */
export const RunMode = {
  /** Executed by the caller that started it; a failure settles it `FAILED`, never retried. */
  INTERACTIVE: 'interactive',
  /** Enqueued now, executed by a worker; a failure may be retried or dead-lettered. */
  QUEUED: 'queued',
} as const;

/** One of the two {@link RunMode} values. */
export type RunMode = (typeof RunMode)[keyof typeof RunMode];
