import { applyDecorators } from '@nestjs/common';
import { ApiInternalServerErrorResponse, ApiResponse, ApiServiceUnavailableResponse } from '@nestjs/swagger';

/** Options of {@link ApiStoreFaults}. */
export interface ApiStoreFaultsOptions {
  /** The route appends to the event store: it also answers 507 when the store is full. @default false */
  readonly appends?: boolean;
  /** What else the route answers with 503, appended to the shared description. */
  readonly alsoUnavailable?: string;
}

const UNAVAILABLE =
  'the event store or the read models cannot be reached now (`STORE_UNAVAILABLE`, `STORE_CLOSED`, `CIRCUIT_OPEN`; `Retry-After` when waiting may help): try again later';
const FAULT = 'an unexpected failure of the service or of a store (`INTERNAL_ERROR`, or the store\'s own code), logged with its stack';
const FULL = 'the event store is full (`STORE_FULL`): the append that met it was not recorded; the same request succeeds once space is freed';

/**
 * Declares in the OpenAPI document what a route that reads or writes a store
 * answers when the store fails, as the API's error mapping decides it: 503
 * while a store cannot be reached, 500 on an unexpected failure, and 507
 * when the event store is full (routes that append).
 */
export function ApiStoreFaults(options: ApiStoreFaultsOptions = {}): MethodDecorator {
  const unavailable = options.alsoUnavailable === undefined ? UNAVAILABLE : `${UNAVAILABLE}; ${options.alsoUnavailable}`;
  return applyDecorators(
    ApiServiceUnavailableResponse({ description: unavailable }),
    ApiInternalServerErrorResponse({ description: FAULT }),
    ...(options.appends === true ? [ApiResponse({ status: 507, description: FULL })] : []),
  );
}
