import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** A module, store, runner or rebuild option is invalid; `option` is its qualified name. */
export class InvalidProjectionOptionError extends ProjectionError {
  readonly code = ProjectionErrorCode.INVALID_PROJECTION_OPTION;

  constructor(
    readonly option: string,
    readonly reason: string,
  ) {
    super(`Invalid option ${option}: ${reason}`);
  }
}
