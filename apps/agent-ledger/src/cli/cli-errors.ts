/**
 * The CLI's own errors, in a module of their own that imports nothing, so
 * that `runCli` can tell them apart without loading the client of the
 * service or the stores' packages (`--help` and `--version` load neither).
 */

/** A command line that cannot be carried out as written (exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The CLI could not carry out a command against the service, for a reason it states itself (exit 3). */
export class ServiceFailureError extends Error {
  override readonly name = 'ServiceFailureError';
}
