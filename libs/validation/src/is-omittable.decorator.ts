import { ValidateIf } from 'class-validator';

/**
 * The field may be left out; when it is there, its rules apply, to `null` as
 * to any other value. class-validator's `@IsOptional()` skips a `null` as if
 * the field were absent, and a handler then met a `null` where its type says
 * a string or an object (`"idempotencyKey": null`, `"resolution": null`: a
 * 500 over HTTP, a `TypeError` on the bus). Every optional field of a bus
 * message and of an HTTP body uses it. An HTTP query parameter is never
 * `null` (it is text): the query DTOs keep `@IsOptional()`.
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
