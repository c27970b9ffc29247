import 'reflect-metadata';
import { jsonValueIssue, MAX_MESSAGE_DEPTH } from '@agent-ledger/validation';
import type { ValidationIssue } from '@agent-ledger/validation';

/** Metadata key of the fields a DTO keeps as raw JSON. */
const RAW_JSON_FIELDS = 'agent-ledger:rawJsonFields';

/** Keys that no DTO declares and that the validation pipe would otherwise drop silently (prototype keys). */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The field is any JSON value, taken **as it was sent**: the validation pipe
 * neither transforms it (class-transformer drops `__proto__` and
 * `constructor` keys at every level) nor strips it (Nest's pipe deletes
 * `__proto__`, `constructor` and `prototype` keys in place), so a run records
 * exactly the JSON its client sent. It is only checked with the bus's rule of
 * a JSON value (`jsonValueIssue` of `@agent-ledger/validation`: finite
 * numbers, no deeper than `MAX_MESSAGE_DEPTH`), so that the command it
 * becomes is accepted alike. Combine with `@IsPresent()` for a required field.
 */
export function RawJson(): PropertyDecorator {
  return (target, property) => {
    const owner = target.constructor;
    const inherited = (Reflect.getMetadata(RAW_JSON_FIELDS, owner) as readonly string[] | undefined) ?? [];
    Reflect.defineMetadata(RAW_JSON_FIELDS, [...inherited, String(property)], owner);
  };
}

/** The fields of a DTO class marked {@link RawJson}. */
export function rawJsonFieldsOf(metatype: unknown): readonly string[] {
  if (typeof metatype !== 'function') return [];
  return (Reflect.getMetadata(RAW_JSON_FIELDS, metatype) as readonly string[] | undefined) ?? [];
}

/** A problem of one top-level field of a body, found before the DTO is validated. */
export interface BodyFieldIssue extends ValidationIssue {
  /** The body's top-level key the problem is in. */
  readonly key: string;
}

/**
 * What the validation pipe cannot be trusted to see in a JSON body, checked
 * without recursion (any depth is safe): nesting beyond
 * `MAX_MESSAGE_DEPTH`; prototype keys (`__proto__`, `constructor`,
 * `prototype`) outside the raw JSON fields, which are unknown fields; and in
 * the raw JSON fields, what the rule of a JSON value refuses (`1e400` parses
 * to `Infinity`). One issue per top-level key at most.
 */
export function bodyFieldIssues(body: Readonly<Record<string, unknown>>, rawFields: readonly string[]): BodyFieldIssue[] {
  const issues: BodyFieldIssue[] = [];
  for (const key of Object.keys(body)) {
    const raw = rawFields.includes(key);
    if (PROTOTYPE_KEYS.has(key)) {
      issues.push({ key, field: key, rule: 'unknownField', message: `property ${key} should not exist` });
      continue;
    }
    const issue = fieldIssue(key, body[key], raw);
    if (issue !== undefined) issues.push(issue);
  }
  return issues;
}

function fieldIssue(key: string, value: unknown, raw: boolean): BodyFieldIssue | undefined {
  // An empty key is named as the validation pipe names it: the body.
  const field = key === '' ? 'body' : key;
  if (raw) {
    const issue = jsonValueIssue(value, field);
    return issue === undefined ? undefined : { key, field, ...issue };
  }
  // Depth-first with an explicit stack: [value, its level, its path (for a nested unknown key)].
  const stack: Array<readonly [unknown, number, string]> = [[value, 2, field]];
  while (stack.length > 0) {
    const [current, level, path] = stack.pop() as readonly [unknown, number, string];
    if (typeof current !== 'object' || current === null) continue;
    if (level > MAX_MESSAGE_DEPTH) {
      return { key, field, rule: 'maxDepth', message: `${field} must not nest deeper than ${MAX_MESSAGE_DEPTH} levels (the body being the first)` };
    }
    for (const [childKey, child] of Object.entries(current)) {
      if (!Array.isArray(current) && PROTOTYPE_KEYS.has(childKey)) {
        return { key, field: `${path}.${childKey}`, rule: 'unknownField', message: `property ${childKey} should not exist` };
      }
      stack.push([child, level + 1, `${path}.${childKey}`]);
    }
  }
  return undefined;
}
