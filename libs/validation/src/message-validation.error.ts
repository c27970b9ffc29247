import { InvalidFieldError } from '@agent-ledger/domain';

/** One broken rule of a command or query: which field, which rule, and the message. */
export interface ValidationIssue {
  /** The field's path in the message, e.g. `agent`, `query.limit`. */
  readonly field: string;
  /** The rule it breaks, e.g. `isString`, `isIn`, `matches`, `unknownField`. */
  readonly rule: string;
  /** A sentence naming the field, e.g. `agent must be a string`. */
  readonly message: string;
}

/**
 * A command or query refused on the bus, before its handler ran: nothing was
 * appended. It is an {@link InvalidFieldError} (`code` `INVALID_FIELD`,
 * `failureClass` `clientError`) naming the first broken rule's `field`, with
 * the same message the HTTP API gives for the same input; `issues` lists
 * every field's first broken rule, as the HTTP error body does.
 */
export class MessageValidationError extends InvalidFieldError {
  /** The first broken rule (`isString`, `unknownField`...). */
  readonly rule: string;

  constructor(
    /** The refused message's class name, e.g. `StartRun`. */
    readonly messageType: string,
    /** Every field's first broken rule, the first one first; never empty. */
    readonly issues: readonly ValidationIssue[],
  ) {
    const first = issues[0] ?? { field: 'message', rule: 'invalid', message: `${messageType} is invalid` };
    super(first.field, first.message.startsWith(`${first.field} `) ? first.message.slice(first.field.length + 1) : first.message);
    this.rule = first.rule;
    // The HTTP API's message is class-validator's sentence as it is ("property x should not exist").
    this.message = first.message;
  }
}
