/**
 * The stream categories of the domain. A stream is named `<category>-<id>`
 * (the event store builds the name); categories are dash-free so that
 * EventStoreDB's `$ce-<category>` projection works.
 */
export const StreamCategory = {
  /** A run's lifecycle and steps: `run-<runId>`. */
  RUN: 'run',
  /** A run's audit trail: `audit-<runId>`. */
  AUDIT: 'audit',
} as const;

/** One of the {@link StreamCategory} values. */
export type StreamCategory = (typeof StreamCategory)[keyof typeof StreamCategory];
