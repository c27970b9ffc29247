import type { ValidationError } from 'class-validator';
import type { IssueNaming, ValidationIssue } from '@agent-ledger/validation';
import { validationIssuesOf } from '@agent-ledger/validation';

/**
 * A request body or query refused by the `ValidationPipe`: every broken rule,
 * the first one first. The API's error filter answers it with 400; nothing
 * was recorded.
 */
export class RequestValidationError extends Error {
  readonly code = 'INVALID_FIELD' as const;

  constructor(readonly issues: readonly ValidationIssue[]) {
    super(issues[0]?.message ?? 'The request is invalid');
    this.name = 'RequestValidationError';
  }
}

/** The API reports an error of the request as a whole (a body that is not an object) on `body`. */
const REQUEST_NAMING: IssueNaming = { root: 'body', notAnObject: () => 'body must be a JSON object' };

/** The `exceptionFactory` of the API's `ValidationPipe`. */
export function requestValidationExceptionFactory(errors: ValidationError[]): RequestValidationError {
  return new RequestValidationError(validationIssuesOf(errors, REQUEST_NAMING));
}
