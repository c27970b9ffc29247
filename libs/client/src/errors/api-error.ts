import type { ApiErrorBody, ValidationIssue } from '../contract/api-error-body';
import { AgentLedgerError } from './agent-ledger-error';

/**
 * The service answered with an error status: its error body, typed. Branch
 * on `code` (`RUN_NOT_FOUND`, `INVALID_FIELD`, `IDEMPOTENCY_KEY_REUSED`...),
 * and on `field` / `rule` for a refused input.
 *
 * An answer whose body is not the API's JSON error body (a proxy's HTML
 * page, say) still gives this error, with `code` `HTTP_<status>` and the
 * text (cut to 500 characters) as `message`.
 */
export class AgentLedgerApiError extends AgentLedgerError {
  /** The HTTP status. */
  readonly status: number;
  /** A stable, machine-readable code. */
  readonly code: string;
  /** For a refused input: the field (body property, query parameter, `runId`, `Last-Event-ID`, `Content-Type` or `body`). */
  readonly field: string | undefined;
  /** For a refused input: the rule it breaks (`isString`, `unknownField`, `isPresent`...). */
  readonly rule: string | undefined;
  /** For a refused body or query: every broken rule. */
  readonly issues: readonly ValidationIssue[];
  /** The whole error body (further fields: `runId`, `status`, `waitingRound`, `requiredScopes`...). */
  readonly body: ApiErrorBody;
  /** The request, for messages and logs: `POST /runs`. */
  readonly request: string;
  /** The `Retry-After` header in seconds (a 503), when given. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: { readonly status: number; readonly body: ApiErrorBody; readonly request: string; readonly retryAfterSeconds?: number }) {
    super(`${init.request}: ${init.status} ${init.body.code}: ${init.body.message}`);
    this.status = init.status;
    this.body = init.body;
    this.code = init.body.code;
    this.field = init.body.field;
    this.rule = init.body.rule;
    this.issues = init.body.issues ?? [];
    this.request = init.request;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The error body's message (the `Error`'s `message` also names the request, the status and the code). */
  get apiMessage(): string {
    return this.body.message;
  }
}
