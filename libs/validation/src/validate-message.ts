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
  const issues = [...inheritedKeyIssues(message, ''), ...validationIssuesOf(validateSync(message, { ...MESSAGE_VALIDATOR_OPTIONS }))];
  if (issues.length > 0) throw new MessageValidationError(message.constructor.name, issues);
}

const OBJECT_PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The own fields of a message, and of the nested messages it holds (instances
 * of a class with rules, like a `ListRuns` filter), named as `Object.prototype`'s
 * members. Plain JSON values (a run's `input`) are data, not checked.
 */
function inheritedKeyIssues(message: object, parent: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const key of Object.keys(message)) {
    const field = parent === '' ? key : `${parent}.${key}`;
    const value: unknown = (message as Record<string, unknown>)[key];
    if (OBJECT_PROTOTYPE_KEYS.has(key)) issues.push({ field, rule: 'unknownField', message: `property ${key} should not exist` });
    else if (isNestedMessage(value)) issues.push(...inheritedKeyIssues(value, field));
  }
  return issues;
}

function isNestedMessage(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null;
}

/** How {@link validationIssuesOf} names what it flattens: the bus's messages, or the HTTP API's bodies and queries. */
export interface IssueNaming {
  /** The field of an error without a property (the value as a whole), e.g. `message`, `body`. */
  readonly root: string;
  /** The sentence for a value that is not an object with rules (class-validator's `unknownValue`), given its field. */
  readonly notAnObject: (field: string) => string;
}

/** The naming of the bus's commands and queries. */
const MESSAGE_NAMING: IssueNaming = { root: 'message', notAnObject: (field) => `${field} must be an object with validation rules` };

/**
 * Flattens class-validator's error tree into issues with dotted field paths:
 * one rule for the bus's messages and the HTTP API's requests, which name
 * the value as a whole differently (`naming`).
 */
export function validationIssuesOf(errors: readonly ValidationError[], naming: IssueNaming = MESSAGE_NAMING, parent = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const property = error.property === undefined || error.property === '' ? '' : String(error.property);
    const field = parent === '' ? property || naming.root : property === '' ? parent : `${parent}.${property}`;
    for (const [rule, message] of Object.entries(error.constraints ?? {})) {
      issues.push({ field, rule: RENAMED_RULES[rule] ?? rule, message: rule === 'unknownValue' ? naming.notAnObject(field) : message });
    }
    if (error.children !== undefined && error.children.length > 0) issues.push(...validationIssuesOf(error.children, naming, field));
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
