import type { ArgumentMetadata } from '@nestjs/common';
import { ValidationPipe } from '@nestjs/common';
import { RequestValidationError, requestValidationExceptionFactory } from './request-validation.error';

/**
 * The API's one `ValidationPipe`: DTOs are checked with class-validator,
 * unknown fields are refused (not stripped), bodies and queries are turned
 * into DTO instances, each field reports its first broken rule (the type
 * first), and a refusal is a {@link RequestValidationError}. A body that is
 * not a JSON object (an array, a string) is refused as a whole.
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: requestValidationExceptionFactory,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new RequestValidationError([{ field: 'body', rule: 'isObject', message: 'body must be a JSON object' }]);
    }
    return super.transform(value, metadata);
  }
}

/** Builds the API's {@link ApiValidationPipe}. */
export function createApiValidationPipe(): ApiValidationPipe {
  return new ApiValidationPipe();
}
