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
