import type { ValidationIssue } from '@agent-ledger/validation';

/**
 * The body of every error answer of the API.
 *
 * @example
 * { "statusCode": 400, "error": "Bad Request", "code": "INVALID_FIELD", "field": "agent",
 *   "rule": "isString", "message": "agent must be a string", "issues": [...] }
 */
export interface ApiErrorBody {
  /** The HTTP status, repeated. */
  readonly statusCode: number;
  /** The status's reason phrase (`Bad Request`, `Not Found`...). */
  readonly error: string;
  /** A stable, machine-readable code: a domain error's `code` (`RUN_NOT_FOUND`), an event-store error's (`STORE_UNAVAILABLE`), or one of the API's (`INVALID_FIELD`, `PAYLOAD_TOO_LARGE`, `ROUTE_NOT_FOUND`, `INTERNAL_ERROR`...). */
  readonly code: string;
  /** A sentence for people. Never a stack trace. */
  readonly message: string;
  /** For a refused input: the field (body property, query parameter, path parameter or header). */
  readonly field?: string;
  /** For a refused input: the rule it breaks. */
  readonly rule?: string;
  /** For a refused body or query: every broken rule. */
  readonly issues?: readonly ValidationIssue[];
  /** Further typed fields of the error (`runId`, `status`, `limit`...). */
  readonly [detail: string]: unknown;
}
