import type { Infer } from './schema';
import { s } from './schema';

/** One broken rule of a refused input. */
export const validationIssueSchema = s
  .object({ field: s.string(), rule: s.string(), message: s.string() })
  .named('ValidationIssue')
  .describe('One broken rule of a refused input');

/** {@link validationIssueSchema}'s type. */
export type ValidationIssue = Infer<typeof validationIssueSchema>;

/**
 * The body of every error answer. Further typed fields of an error (`runId`,
 * `status`, `limit`, `requiredScopes`...) may follow: the object is open.
 */
export const apiErrorBodySchema = s
  .object({
    statusCode: s.integer().describe('The HTTP status, repeated'),
    error: s.string().describe("The status's reason phrase"),
    code: s.string().describe('A stable, machine-readable code (`INVALID_FIELD`, `RUN_NOT_FOUND`...)'),
    message: s.string().describe('A sentence for people'),
    field: s.optional(s.string()).describe('For a refused input: the field'),
    rule: s.optional(s.string()).describe('For a refused input: the rule it breaks'),
    issues: s.optional(s.array(validationIssueSchema)).describe('For a refused body or query: every broken rule'),
  })
  .named('ApiErrorBody')
  .describe('The body of every error answer');

/** {@link apiErrorBodySchema}'s type, with the further fields an error may carry. */
export type ApiErrorBody = Infer<typeof apiErrorBodySchema> & { readonly [detail: string]: unknown };
