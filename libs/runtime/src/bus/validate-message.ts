import type { ValidationError, ValidatorOptions } from 'class-validator';
import { validateSync } from 'class-validator';
import type { ValidationIssue } from './message-validation.error';
import { MessageValidationError } from './message-validation.error';

/**
 * class-validator's options for every command and query of the bus: the
 * HTTP API's `ValidationPipe` settings. Unknown own properties are refused
 * (not stripped, the message is never changed), each field reports its first
 * broken rule, and a class without rules is refused.
 */
export const MESSAGE_VALIDATOR_OPTIONS: Readonly<ValidatorOptions> = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
});

/** class-validator's rule names the API shows under another name. */
const RENAMED_RULES: Readonly<Record<string, string>> = { whitelistValidation: 'unknownField', unknownValue: 'object' };

/**
 * Checks a command or query against its class-validator rules.
 *
 * @throws {@link MessageValidationError} naming the first broken rule's field, with every issue.
 */
export function validateMessage(message: object): void {
  // class-validator's whitelist looks fields up in a plain object, so it lets
  // `__proto__`, `constructor`, `toString`... through: those are refused here.
  const inherited: ValidationIssue[] = Object.keys(message)
    .filter((key) => OBJECT_PROTOTYPE_KEYS.has(key))
    .map((key) => ({ field: key, rule: 'unknownField', message: `property ${key} should not exist` }));
  const issues = [...inherited, ...validationIssuesOf(validateSync(message, { ...MESSAGE_VALIDATOR_OPTIONS }))];
  if (issues.length > 0) throw new MessageValidationError(message.constructor.name, issues);
}

const OBJECT_PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Flattens class-validator's error tree into issues with dotted field paths,
 * as the HTTP API does (`apps/agent-ledger/src/http/validation`).
 */
export function validationIssuesOf(errors: readonly ValidationError[], parent = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const property = error.property === undefined || error.property === '' ? '' : String(error.property);
    const field = parent === '' ? property || 'message' : property === '' ? parent : `${parent}.${property}`;
    for (const [rule, message] of Object.entries(error.constraints ?? {})) {
      issues.push({ field, rule: RENAMED_RULES[rule] ?? rule, message: rule === 'unknownValue' ? `${field} must be an object with validation rules` : message });
    }
    if (error.children !== undefined && error.children.length > 0) issues.push(...validationIssuesOf(error.children, field));
  }
  return issues;
}

/**
 * Copies a plain object's own enumerable fields onto a message, as data
 * properties: a `__proto__` key becomes a field (refused as unknown) instead
 * of changing the message's prototype. Anything but an object copies nothing,
 * so every required field is reported missing.
 */
export function assignFields(target: object, fields: unknown): void {
  if (typeof fields !== 'object' || fields === null) return;
  for (const key of Object.keys(fields)) {
    Object.defineProperty(target, key, { value: (fields as Record<string, unknown>)[key], enumerable: true, writable: false, configurable: true });
  }
}
