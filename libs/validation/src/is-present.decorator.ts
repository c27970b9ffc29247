import type { ValidationOptions } from 'class-validator';
import { ValidateBy } from 'class-validator';

/**
 * The field must be there; any JSON value, `null` included, is accepted.
 * Same rule name (`isPresent`) and message as the HTTP API's.
 */
export function IsPresent(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPresent',
      validator: {
        validate: (value: unknown) => value !== undefined,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be present (any JSON value)`,
      },
    },
    options,
  );
}

/**
 * The field must be JSON data: `null`, a boolean, a finite number, a string,
 * or arrays and plain objects of them, without cycles. Over HTTP a body is
 * JSON by construction; on the bus a caller could pass a function, a `Date`
 * or `NaN`, which the event store could not record faithfully.
 */
export function IsJsonValue(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isJsonValue',
      validator: {
        validate: (value: unknown) => isJsonValue(value, new Set()),
        defaultMessage: (args) => `${args?.property ?? 'value'} must be JSON data (null, booleans, finite numbers, strings, arrays and plain objects)`,
      },
    },
    options,
  );
}

function isJsonValue(value: unknown, ancestors: Set<object>): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (ancestors.has(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return false;
  ancestors.add(value);
  const ok = Object.values(value).every((child: unknown) => isJsonValue(child, ancestors));
  ancestors.delete(value);
  return ok;
}
