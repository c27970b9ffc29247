import { esdb } from './eventstoredb-client-library';
import { EventStoreError } from '../port/errors/event-store-error';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError, StoreUnavailableReason } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import type { CurrentRevision, ExpectedRevision } from '../port/expected-revision';
import { ExpectedRevision as Expected } from '../port/expected-revision';

/** gRPC status codes the translation looks at (grpc-js `status`, kept here to avoid importing grpc-js). */
const GrpcCode = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  ABORTED: 10,
  UNAVAILABLE: 14,
} as const;

/** What the adapter was doing when the driver failed: for messages and for the typed fields. */
export interface EventStoreDbErrorContext {
  /** The operation, e.g. `append`, `readStream`, `subscribeToAll`. */
  readonly operation: string;
  /** The stream concerned, when there is one. */
  readonly streamName?: string;
  /** The expected revision the caller passed (appends and deletes). */
  readonly expected?: ExpectedRevision;
  /** UTF-8 size of the append, for `EventTooLargeError`. */
  readonly appendSize?: number;
}

function grpcCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Whether the failure is a lost or refused connection (server down or
 * restarting, not the leader, a deadline or server timeout): the kind of
 * failure after which a subscription resubscribes, and an append may be
 * retried with the same event ids. Classified by the client's error classes
 * **and** by the raw gRPC code, because after a connection loss client 6.2.1
 * rethrows its `ServerFeatures` probe failure as a raw grpc-js error
 * (`code: 14`), not as an `UnavailableError`.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (
    error instanceof esdb().UnavailableError ||
    error instanceof esdb().NotLeaderError ||
    error instanceof esdb().DeadlineExceededError ||
    error instanceof esdb().TimeoutError ||
    error instanceof esdb().CancelledError
  ) {
    return true;
  }
  if (error instanceof EventStoreError) return false;
  const code = grpcCodeOf(error);
  return code === GrpcCode.UNAVAILABLE || code === GrpcCode.DEADLINE_EXCEEDED || code === GrpcCode.CANCELLED || code === GrpcCode.ABORTED;
}

/** The port's view of a revision the client reports (legacy negative numbers mean "no stream"). */
function currentRevisionOf(value: unknown): CurrentRevision {
  return typeof value === 'bigint' && value >= 0n ? value : Expected.NO_STREAM;
}

/**
 * The port's expected revision from the client's: `'any'`, `'no_stream'`,
 * `'stream_exists'`, a revision, or (on delete/tombstone, client 6.2.1) the
 * legacy numbers `-2n` any, `-1n` no stream, `-4n` stream exists.
 */
function expectedRevisionOf(value: unknown): ExpectedRevision {
  if (value === Expected.ANY || value === Expected.NO_STREAM || value === Expected.STREAM_EXISTS) return value;
  if (typeof value === 'bigint') {
    if (value >= 0n) return value;
    if (value === -1n) return Expected.NO_STREAM;
    if (value === -4n) return Expected.STREAM_EXISTS;
  }
  return Expected.ANY;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Translates whatever `@eventstore/db-client` (or grpc-js under it) threw into
 * the port's own error, at the adapter's edge; the driver error is kept as
 * `cause` where the port error takes one. Port errors pass through unchanged.
 *
 * | driver error | port error |
 * | --- | --- |
 * | `WrongExpectedVersionError` (any of its three wire forms) | `WrongExpectedRevisionError` with `streamName`, `expected` (as the caller passed it), `actual` |
 * | `StreamDeletedError` | `StreamDeletedError` |
 * | `UnavailableError`, raw gRPC `UNAVAILABLE` (14), `NotLeaderError`, server `CancelledError` | `StoreUnavailableError` (`cannotOpen`) |
 * | `DeadlineExceededError` / gRPC 4, `TimeoutError` (server "timeout", gRPC 10) | `StoreUnavailableError` (`busy`, retryable) |
 * | `AccessDeniedError` | `StoreUnavailableError` (`cannotOpen`) |
 * | `MaxAppendSizeExceededError` | `EventTooLargeError` |
 * | anything else | `StoreFailureError` with `driverCode` (the client's error `type`, or `grpc-<code>`) |
 */
export function translateEventStoreDbError(error: unknown, context: EventStoreDbErrorContext): EventStoreError {
  if (error instanceof EventStoreError) return error;
  const where = `${context.operation}${context.streamName === undefined ? '' : ` of '${context.streamName}'`}`;
  const message = `${where}: ${describe(error)}`;

  if (error instanceof esdb().WrongExpectedVersionError) {
    return new WrongExpectedRevisionError(
      context.streamName ?? error.streamName,
      context.expected ?? expectedRevisionOf(error.expectedVersion),
      currentRevisionOf(error.actualVersion),
      { cause: error },
    );
  }
  if (error instanceof esdb().StreamDeletedError) return new StreamDeletedError(context.streamName ?? error.streamName);
  if (error instanceof esdb().MaxAppendSizeExceededError) {
    return new EventTooLargeError(context.appendSize ?? -1, error.maxAppendSize, undefined);
  }
  if (error instanceof esdb().AccessDeniedError) {
    return new StoreUnavailableError(StoreUnavailableReason.CANNOT_OPEN, `access denied: ${message}`, { cause: error });
  }
  if (isConnectionFailure(error)) {
    const code = grpcCodeOf(error);
    const busy =
      error instanceof esdb().DeadlineExceededError ||
      error instanceof esdb().TimeoutError ||
      code === GrpcCode.DEADLINE_EXCEEDED ||
      code === GrpcCode.ABORTED;
    return new StoreUnavailableError(busy ? StoreUnavailableReason.BUSY : StoreUnavailableReason.CANNOT_OPEN, message, { cause: error });
  }
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  const code = grpcCodeOf(error);
  const driverCode = typeof type === 'string' ? type : code !== undefined ? `grpc-${code}` : undefined;
  return new StoreFailureError(driverCode, message, { cause: error });
}
