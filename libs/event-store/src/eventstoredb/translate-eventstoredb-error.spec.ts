import { Metadata, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import {
  AccessDeniedError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  StreamDeletedError as ClientStreamDeletedError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { EventStoreError } from '../port/errors/event-store-error';
import { EventTooLargeError } from '../port/errors/event-too-large.error';
import { InvalidStreamNameError } from '../port/errors/invalid-stream-name.error';
import { StoreFailureError } from '../port/errors/store-failure.error';
import { StoreUnavailableError } from '../port/errors/store-unavailable.error';
import { StreamDeletedError } from '../port/errors/stream-deleted.error';
import { WrongExpectedRevisionError } from '../port/errors/wrong-expected-revision.error';
import { isConnectionFailure, translateEventStoreDbError } from './translate-eventstoredb-error';

function serviceError(code: status, metadata: Record<string, string> = {}): ServiceError {
  const md = new Metadata();
  for (const [key, value] of Object.entries(metadata)) md.set(key, value);
  return Object.assign(new Error(`${code} ${status[code]}`), { code, details: status[code], metadata: md });
}

describe('translateEventStoreDbError', () => {
  const append = { operation: 'append', streamName: 'run-1', expected: 'no_stream' as const };

  it('turns a wrong expected version into WrongExpectedRevisionError with the caller\'s expected revision', () => {
    const driver = new WrongExpectedVersionError(undefined, { streamName: 'run-1', expected: 'no_stream', current: 2n });
    const error = translateEventStoreDbError(driver, append);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamName: 'run-1', expected: 'no_stream', actual: 2n, cause: driver, retryable: false });
  });

  it('reads the legacy numbers of delete/tombstone conflicts (-4 stream exists, -1 no stream) when no context says otherwise', () => {
    const driver = new WrongExpectedVersionError(serviceError(status.FAILED_PRECONDITION, {
      exception: 'wrong-expected-version',
      'stream-name': 'run-2',
      'expected-version': '-4',
    }));
    expect(translateEventStoreDbError(driver, { operation: 'deleteStream' })).toMatchObject({
      streamName: 'run-2',
      expected: 'stream_exists',
      actual: 'no_stream',
    });
  });

  it('turns a deleted stream into the port\'s StreamDeletedError', () => {
    const error = translateEventStoreDbError(ClientStreamDeletedError.fromStreamName('run-1'), { operation: 'readStream', streamName: 'run-1' });
    expect(error).toBeInstanceOf(StreamDeletedError);
    expect(error).toMatchObject({ streamName: 'run-1' });
  });

  it.each([
    ['UnavailableError', new UnavailableError(serviceError(status.UNAVAILABLE)), 'cannotOpen'],
    ['a raw grpc-js error with code 14 (the 6.2.1 reconnection probe)', serviceError(status.UNAVAILABLE), 'cannotOpen'],
    ['NotLeaderError', new NotLeaderError(serviceError(status.NOT_FOUND, { 'leader-endpoint-host': 'n2', 'leader-endpoint-port': '2113' })), 'cannotOpen'],
    ['DeadlineExceededError', new DeadlineExceededError(serviceError(status.DEADLINE_EXCEEDED)), 'busy'],
    ['a raw DEADLINE_EXCEEDED', serviceError(status.DEADLINE_EXCEEDED), 'busy'],
    ['AccessDeniedError', new AccessDeniedError(serviceError(status.UNAUTHENTICATED)), 'cannotOpen'],
  ])('turns %s into StoreUnavailableError (%s)', (_label, driver, reason) => {
    const error = translateEventStoreDbError(driver, append);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ reason, cause: driver });
  });

  it('turns a server-side append size limit into EventTooLargeError', () => {
    const error = translateEventStoreDbError(MaxAppendSizeExceededError.fromMaxAppendSize(1024), { ...append, appendSize: 2048 });
    expect(error).toBeInstanceOf(EventTooLargeError);
    expect(error).toMatchObject({ size: 2048, limit: 1024, eventIndex: undefined });
  });

  it.each([
    ['UnknownError', new UnknownError(serviceError(status.INTERNAL)), 'unknown'],
    ['a raw gRPC error', serviceError(status.INTERNAL), 'grpc-13'],
    ['a plain Error', new Error('boom'), undefined],
    ['a thrown string', 'Impossible situation', undefined],
  ])('turns anything else (%s) into StoreFailureError with the driver error as cause', (_label, driver, driverCode) => {
    const error = translateEventStoreDbError(driver, append);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect(error).toMatchObject({ driverCode, cause: driver });
  });

  it('passes port errors through unchanged', () => {
    const own = new InvalidStreamNameError('x', 'bad');
    expect(translateEventStoreDbError(own, append)).toBe(own);
    expect(translateEventStoreDbError(own, append)).toBeInstanceOf(EventStoreError);
  });

  it('classifies connection failures by class and by raw code, not port errors or conflicts', () => {
    expect(isConnectionFailure(serviceError(status.UNAVAILABLE))).toBe(true);
    expect(isConnectionFailure(new UnavailableError())).toBe(true);
    expect(isConnectionFailure(serviceError(status.INTERNAL))).toBe(false);
    expect(isConnectionFailure(ClientStreamDeletedError.fromStreamName('run-1'))).toBe(false);
    expect(isConnectionFailure(new StoreUnavailableError('cannotOpen', 'x'))).toBe(false);
  });
});
