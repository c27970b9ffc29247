/**
 * Several attempts of one operation all failed. The failure classifier treats
 * it as its last attempt, since that is the freshest view of the target.
 */
export class AttemptsFailedError extends AggregateError {
  constructor(
    readonly attempts: readonly unknown[],
    message = `All ${attempts.length} attempts failed`,
  ) {
    super(attempts, message);
    this.name = 'AttemptsFailedError';
  }
}
