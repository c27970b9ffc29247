/** What went wrong with the test server itself (never an EventStoreDB protocol outcome). */
export type EsdbTestServerErrorCode = 'invalid-option' | 'bind-failed';

/** Error raised by the test server's lifecycle: bad options, or a port that cannot be bound. */
export class EsdbTestServerError extends Error {
  override readonly name = 'EsdbTestServerError';

  constructor(
    readonly code: EsdbTestServerErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
