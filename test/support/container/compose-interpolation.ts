/**
 * Docker Compose's interpolation of `${NAME}` in a compose file's strings:
 * `${NAME}`, `$NAME`, `${NAME:-default}` (unset or empty), `${NAME-default}`
 * (unset), `${NAME:?message}` and `${NAME?message}` (an error, as Compose
 * refuses the file), `${NAME:+other}`, `${NAME+other}`, and `$$` for a `$`.
 */
export class InterpolationError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`required variable ${variable} is missing a value${message === '' ? '' : `: ${message}`}`);
  }
}

const PATTERN = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** One string, interpolated; `used` collects each variable it names. */
export function interpolate(text: string, env: ReadonlyMap<string, string>, used?: Set<string>): string {
  return text.replace(PATTERN, (_match, dollar: string | undefined, braced: string | undefined, colon: string, operator: string | undefined, word: string | undefined, bare: string | undefined) => {
    if (dollar !== undefined) return '$';
    const name = (braced ?? bare) as string;
    used?.add(name);
    const value = env.get(name);
    if (operator === undefined) return value ?? '';
    const missing = colon === ':' ? value === undefined || value === '' : value === undefined;
    const nested = interpolate(word ?? '', env, used);
    if (operator === '-') return missing ? nested : (value as string);
    if (operator === '+') return missing ? '' : nested;
    if (missing) throw new InterpolationError(name, nested);
    return value as string;
  });
}

/** Every string of a parsed compose document (keys excepted), interpolated. */
export function interpolateDocument<T>(document: T, env: ReadonlyMap<string, string>, used?: Set<string>): T {
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return interpolate(value, env, used);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(document) as T;
}
