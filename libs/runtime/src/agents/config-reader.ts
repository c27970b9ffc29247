import type { JsonObject } from '@agent-ledger/domain';
import type { ConfigIssue } from './agents-config.error';

/**
 * Keys that try to configure a tool's side effect. They are refused wherever
 * they appear in a configuration: a tool's effect is a property of its code.
 * The one exception is `effect` in the binding of an MCP server's tool
 * (`mcpServers[i].tools.<tool>.effect`), whose code is neither the product's
 * nor a plugin's: see {@link ObjectReadOptions.declaresToolEffect}.
 */
export const EFFECT_KEYS: readonly string[] = Object.freeze(['effect', 'effects', 'toolEffects']);

/** The message given for any key of {@link EFFECT_KEYS}. */
export const EFFECT_KEY_MESSAGE =
  "is refused: tool effects are declared in code and cannot be configured (a tool declares its effect by implementing DeclaresToolEffect); only an MCP server's tool declares its effect in its binding, at mcpServers[].tools.<tool>.effect";

/** Options of {@link ConfigReader.object}. */
export interface ObjectReadOptions {
  /**
   * The mapping is the binding of one MCP server's tool: its key `effect` is
   * read like a known key (the caller checks its value). Every other key of
   * {@link EFFECT_KEYS} stays refused, and no other mapping may set this.
   * @default false
   */
  readonly declaresToolEffect?: boolean;
}

/**
 * Collects the issues of one configuration document, with helpers that read a
 * field, check it and record a field-qualified issue when it is wrong. Every
 * reader returns `undefined` for a wrong value, so validation goes on and
 * reports every problem at once.
 */
export class ConfigReader {
  private readonly found: ConfigIssue[] = [];

  /** The issues recorded so far, in the order found. */
  get issues(): readonly ConfigIssue[] {
    return this.found;
  }

  /** Records an issue. */
  add(path: string, message: string): void {
    this.found.push({ path, message });
  }

  /**
   * Reads a mapping whose keys must all be in `known`. An unknown key is an
   * issue (a typo must not be silently ignored), with a suggestion when it is
   * close to a known key. An effect key ({@link EFFECT_KEYS}) is refused even
   * when `known` lists it, with its hint or {@link EFFECT_KEY_MESSAGE}, but
   * for `effect` where `options.declaresToolEffect` says so.
   *
   * @param hints - messages for keys that are refused for a reason worth explaining.
   */
  object(
    value: unknown,
    path: string,
    what: string,
    known: readonly string[],
    hints: Readonly<Record<string, string>> = {},
    options: ObjectReadOptions = {},
  ): Readonly<Record<string, unknown>> | undefined {
    if (!isPlainObject(value)) {
      this.add(path, `must be ${what} (a mapping), not ${describeConfigValue(value)}`);
      return undefined;
    }
    for (const key of Object.keys(value)) {
      const at = joinPath(path, key);
      if (EFFECT_KEYS.includes(key) && !(key === 'effect' && options.declaresToolEffect === true)) {
        this.add(at, hints[key] ?? EFFECT_KEY_MESSAGE);
        continue;
      }
      if (known.includes(key)) continue;
      if (hints[key] !== undefined) {
        this.add(at, hints[key]);
      } else {
        const near = known.find((candidate) => editDistance(candidate.toLowerCase(), key.toLowerCase()) <= 2);
        this.add(
          at,
          `is not a known key of ${what}${near === undefined ? '' : ` (did you mean ${near}?)`}; known keys: ${known.join(', ')}`,
        );
      }
    }
    return value;
  }

  /** Reads a required string; `nonEmpty` refuses one that is blank. */
  string(value: unknown, path: string, options: { nonEmpty?: boolean } = {}): string | undefined {
    if (value === undefined) {
      this.add(path, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.add(path, `must be a string, not ${describeConfigValue(value)}`);
      return undefined;
    }
    if (options.nonEmpty === true && value.trim() === '') {
      this.add(path, 'must not be empty');
      return undefined;
    }
    return value;
  }

  /**
   * Reads a string that must match `pattern`; `expected` says what it must be.
   * `secret` keeps a wrong value out of the message (it may be a pasted key).
   */
  pattern(value: unknown, path: string, pattern: RegExp, expected: string, options: { secret?: boolean } = {}): string | undefined {
    const text = this.string(value, path);
    if (text === undefined) return undefined;
    if (!pattern.test(text)) {
      this.add(path, options.secret === true ? `must be ${expected}` : `must be ${expected}, not ${JSON.stringify(text)}`);
      return undefined;
    }
    return text;
  }

  /** Reads a number within `[min, max]`; `integer` also refuses fractions. */
  number(
    value: unknown,
    path: string,
    range: { readonly min: number; readonly max: number; readonly integer?: boolean; readonly exclusiveMin?: boolean },
  ): number | undefined {
    const kind = range.integer === true ? 'an integer' : 'a number';
    const lower = range.exclusiveMin === true ? `greater than ${range.min}` : `from ${range.min}`;
    const expected = `${kind} ${lower} ${range.exclusiveMin === true ? 'and at most' : 'to'} ${range.max}`;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (range.integer === true && !Number.isInteger(value)) ||
      (range.exclusiveMin === true ? value <= range.min : value < range.min) ||
      value > range.max
    ) {
      this.add(path, `must be ${expected}, not ${describeConfigValue(value)}`);
      return undefined;
    }
    return value;
  }

  /** Reads an array; `nonEmpty` refuses an empty one. */
  array(value: unknown, path: string, options: { nonEmpty?: boolean } = {}): readonly unknown[] | undefined {
    if (value === undefined) {
      this.add(path, 'is required');
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.add(path, `must be a list, not ${describeConfigValue(value)}`);
      return undefined;
    }
    if (options.nonEmpty === true && value.length === 0) {
      this.add(path, 'must not be empty');
      return undefined;
    }
    return value;
  }

  /**
   * Reads a JSON object whose keys are data (tool arguments): any key is
   * allowed, every value must be JSON (no YAML timestamps or binary).
   */
  jsonObject(value: unknown, path: string): JsonObject | undefined {
    if (!isPlainObject(value)) {
      this.add(path, `must be an object (a mapping), not ${describeConfigValue(value)}`);
      return undefined;
    }
    const problem = findNonJson(value, path);
    if (problem !== undefined) {
      this.add(problem.path, problem.message);
      return undefined;
    }
    return value as JsonObject;
  }
}

/** `agents` + `1` -> `agents[1]`; `agents[1]` + `name` -> `agents[1].name`; odd keys are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Whether `value` is a mapping (a plain object, not an array, null or class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** How a wrong value reads in a message: `the string "x"`, `number 3`, `a list`, `a mapping`, `nothing`. */
export function describeConfigValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (isPlainObject(value)) return 'a mapping';
  return typeof value === 'object' ? `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'an object'}` : `a ${typeof value}`;
}

function findNonJson(value: unknown, path: string): ConfigIssue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, message: `must be a finite number, not ${String(value)}` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = findNonJson(value[i], joinPath(path, i));
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const problem = findNonJson(child, joinPath(path, key));
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return { path, message: `must be JSON data, not ${describeConfigValue(value)}` };
}

/** Levenshtein distance, for "did you mean" on short keys and names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
