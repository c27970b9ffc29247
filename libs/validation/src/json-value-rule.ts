import type { ValidationOptions } from 'class-validator';
import { ValidateBy } from 'class-validator';

/**
 * The deepest a message may nest, the message itself (an HTTP body, a bus
 * command) being level 1: `{"input":[[1]]}` nests 3 levels. Deeper is refused
 * (`maxDepth`) before anything recursive reads it: class-transformer and
 * `JSON.stringify` overflow the stack a few thousand levels down, and the
 * event store refuses data nested deeper than 256 levels.
 */
export const MAX_MESSAGE_DEPTH = 128;

/** What is wrong with a JSON value, if anything: the rule it breaks and the sentence naming its field. */
export interface JsonValueIssue {
  readonly rule: 'isJsonValue' | 'maxDepth';
  readonly message: string;
}

/**
 * The one rule of a field that holds any JSON value (a run's `input`, an
 * input answer), on the bus and over HTTP: `null`, booleans, finite numbers,
 * strings, and arrays and plain objects of them, without cycles, nested no
 * deeper than {@link MAX_MESSAGE_DEPTH} (the field's value being at `level`).
 * Any key is data: `__proto__`, `constructor` and `prototype` keys inside the
 * value are kept, as sent. Checked without recursion, so any depth is safe.
 *
 * @returns the first problem met, depth first (the last key first), or undefined.
 */
export function jsonValueIssue(value: unknown, field: string, level = 2): JsonValueIssue | undefined {
  const notJson: JsonValueIssue = { rule: 'isJsonValue', message: `${field} must be JSON data (null, booleans, finite numbers, strings, arrays and plain objects)` };
  const ancestors = new Set<object>();
  // [a value, its level] to check, or [an object, -1]: its children are checked, it is no longer an ancestor.
  const stack: Array<readonly [unknown, number]> = [[value, level]];
  while (stack.length > 0) {
    const [current, at] = stack.pop() as readonly [unknown, number];
    if (at === -1) {
      ancestors.delete(current as object);
      continue;
    }
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return notJson;
      continue;
    }
    if (typeof current !== 'object') return notJson;
    if (at > MAX_MESSAGE_DEPTH) return { rule: 'maxDepth', message: `${field} must not nest deeper than ${MAX_MESSAGE_DEPTH} levels (the body being the first)` };
    const prototype: unknown = Object.getPrototypeOf(current);
    if (ancestors.has(current) || (!Array.isArray(current) && prototype !== Object.prototype && prototype !== null)) return notJson;
    ancestors.add(current);
    stack.push([current, -1]);
    for (const child of Object.values(current)) stack.push([child, at + 1]);
  }
  return undefined;
}

/**
 * The field must be JSON data, as {@link jsonValueIssue} says: a value that is
 * not is refused `isJsonValue`, one nested too deep `maxDepth`, with the HTTP
 * API's messages. Combine with `@IsPresent()` for a required field.
 */
export function IsJsonValue(options?: ValidationOptions): PropertyDecorator {
  const rule = (name: JsonValueIssue['rule']) =>
    ValidateBy(
      {
        name,
        validator: {
          validate: (value: unknown, args) => jsonValueIssue(value, args?.property ?? 'value')?.rule !== name,
          defaultMessage: (args) => jsonValueIssue(args?.value, args?.property ?? 'value')?.message ?? `${args?.property ?? 'value'} must be JSON data`,
        },
      },
      options,
    );
  const isJson = rule('isJsonValue');
  const maxDepth = rule('maxDepth');
  return (target, property) => {
    isJson(target, property);
    maxDepth(target, property);
  };
}
