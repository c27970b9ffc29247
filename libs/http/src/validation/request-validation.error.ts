import type { ValidationError } from 'class-validator';

/** One broken rule of a request: which field, which rule, and the message. */
export interface ValidationIssue {
  /** The field's path in the body or the query, e.g. `agent`, `limit`; `body` for the body as a whole. */
  readonly field: string;
  /** The rule it breaks, e.g. `isString`, `isIn`, `unknownField`. */
  readonly rule: string;
  /** A sentence naming the field, e.g. `agent must be a string`. */
  readonly message: string;
}

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

/** The rule name class-validator gives an unknown field (`forbidNonWhitelisted`), and the one the API shows. */
const RENAMED_RULES: Readonly<Record<string, string>> = { whitelistValidation: 'unknownField', unknownValue: 'object' };

/**
 * Flattens class-validator's error tree into issues, with dotted field paths.
 * An error without a property (the body is not an object) is reported on `body`.
 */
export function validationIssuesOf(errors: readonly ValidationError[], parent = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const property = error.property === undefined || error.property === '' ? '' : String(error.property);
    const field = parent === '' ? property || 'body' : property === '' ? parent : `${parent}.${property}`;
    for (const [rule, message] of Object.entries(error.constraints ?? {})) {
      issues.push({ field, rule: RENAMED_RULES[rule] ?? rule, message: rule === 'unknownValue' ? 'body must be a JSON object' : message });
    }
    if (error.children !== undefined && error.children.length > 0) issues.push(...validationIssuesOf(error.children, field));
  }
  return issues;
}

/** The `exceptionFactory` of the API's `ValidationPipe`. */
export function requestValidationExceptionFactory(errors: ValidationError[]): RequestValidationError {
  return new RequestValidationError(validationIssuesOf(errors));
}
