import { ProjectionError, ProjectionErrorCode } from './projection-error';

/** The read-model database was used after `close()`. */
export class ProjectionStoreClosedError extends ProjectionError {
  readonly code = ProjectionErrorCode.STORE_CLOSED;

  constructor(readonly path: string) {
    super(`The read-model database ${path} is closed`);
  }
}
