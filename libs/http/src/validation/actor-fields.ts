import type { ValidationIssue } from '@agent-ledger/validation';

/**
 * Body fields that would name who acts. No route takes one: who acts is the
 * authenticated caller (its API key; `development` without keys), never a
 * name the caller writes. A body that sends one is refused (400 naming it)
 * with a message that says so, instead of the bare "should not exist".
 */
export const ACTOR_FIELDS: ReadonlySet<string> = new Set(['requestedBy', 'startedBy', 'decidedBy', 'submittedBy', 'resolvedBy', 'principal', 'actor']);

/**
 * The issue of an actor field a body sends: still the `unknownField` rule,
 * with a message that names where the caller's words go (`reason` when the
 * route takes one).
 */
export function actorFieldIssue(field: string, takesReason: boolean): ValidationIssue {
  const words = takesReason ? "; the caller's own words go in reason" : '';
  return {
    field,
    rule: 'unknownField',
    message: `${field} is not accepted: who acts is the authenticated caller (its API key), recorded by the service, never a name in the body${words}`,
  };
}

/** The issues with every unknown actor field's issue replaced by {@link actorFieldIssue}. */
export function withActorFieldIssues(issues: readonly ValidationIssue[], takesReason: boolean): ValidationIssue[] {
  return issues.map((issue) => (issue.rule === 'unknownField' && ACTOR_FIELDS.has(issue.field) ? actorFieldIssue(issue.field, takesReason) : issue));
}
