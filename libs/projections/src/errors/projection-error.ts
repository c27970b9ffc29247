/** Every code a {@link ProjectionError} can carry. */
export const ProjectionErrorCode = {
  /** A projection name that this library does not define. */
  UNKNOWN_PROJECTION: 'UNKNOWN_PROJECTION',
  /** A pagination cursor that was not produced by `listRuns`, or a bad query option. */
  INVALID_QUERY: 'INVALID_QUERY',
  /** A module or runner option is invalid. */
  INVALID_PROJECTION_OPTION: 'INVALID_PROJECTION_OPTION',
  /** A rebuild is already running in this process. */
  REBUILD_IN_PROGRESS: 'REBUILD_IN_PROGRESS',
  /** The read-model database was used after `close()`. */
  STORE_CLOSED: 'STORE_CLOSED',
  /** The rebuild was aborted by its signal; the live tables are untouched. */
  REBUILD_ABORTED: 'REBUILD_ABORTED',
  /** The read models were made from another event store than the one they are given. */
  STORE_MISMATCH: 'STORE_MISMATCH',
} as const;

/** Union of the literal codes of {@link ProjectionErrorCode}. */
export type ProjectionErrorCode = (typeof ProjectionErrorCode)[keyof typeof ProjectionErrorCode];

/** Base class of the errors of the projections library; each subclass has a literal `code` and typed fields. */
export abstract class ProjectionError extends Error {
  abstract readonly code: ProjectionErrorCode;

  protected constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
