/**
 * Finds why a value is not plain JSON data, or `undefined` when it is.
 * Plain JSON data: `null`, booleans, strings, finite numbers, arrays of plain
 * JSON data (no holes, no `undefined`), and objects whose prototype is
 * `Object.prototype` or `null` with plain JSON values (a property whose value is
 * `undefined` is allowed and omitted, as `JSON.stringify` does). Rejected:
 * functions, symbols, `bigint`, `NaN`/`Infinity`, class instances (`Date`,
 * `Map`, `Buffer`...), symbol keys, cycles, nesting deeper than `maxDepth`.
 *
 * @param path - JSON path of `value`, used in the returned reason (`data.items[2]`).
 */
export function findJsonProblem(value: unknown, path: string, maxDepth = 256): string | undefined {
  // Almost every value is plain JSON: checked without building a path per node; the reason is looked for only when it is not.
  return isJsonData(value, maxDepth, 0) ? undefined : describeJsonProblem(value, path, maxDepth);
}

/**
 * Whether `value` is plain JSON data, by the rules of {@link findJsonProblem}.
 * Without a set of ancestors: a cycle runs past `maxDepth` and answers false
 * (the slow walk then names it a circular reference).
 */
function isJsonData(v: unknown, maxDepth: number, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth > maxDepth) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!(i in v) || !isJsonData(v[i], maxDepth, depth + 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(v).length > 0) return false;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const child = (v as Record<string, unknown>)[keys[i] as string];
    if (child !== undefined && !isJsonData(child, maxDepth, depth + 1)) return false;
  }
  return true;
}

/** Why `value` is not plain JSON data (the first problem, with its path), or `undefined` when it is. */
function describeJsonProblem(value: unknown, path: string, maxDepth: number): string | undefined {
  const ancestors = new Set<object>();

  const visit = (v: unknown, at: string, depth: number): string | undefined => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return undefined;
      case 'number':
        return Number.isFinite(v) ? undefined : `${at} is ${String(v)}: not a finite number`;
      case 'bigint':
        return `${at} is a bigint: not JSON (convert it to a string)`;
      case 'undefined':
        return `${at} is undefined`;
      case 'function':
        return `${at} is a function`;
      case 'symbol':
        return `${at} is a symbol`;
      case 'object':
        break;
    }
    if (v === null) return undefined;
    const obj = v as object;
    if (depth > maxDepth) return `${at} is nested deeper than ${maxDepth} levels`;
    if (ancestors.has(obj)) return `${at} is a circular reference`;
    ancestors.add(obj);
    try {
      if (Array.isArray(obj)) {
        for (let i = 0; i < obj.length; i++) {
          if (!(i in obj)) return `${at}[${i}] is a hole in a sparse array`;
          const p = visit(obj[i], `${at}[${i}]`, depth + 1);
          if (p !== undefined) return p;
        }
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) {
        const name = (obj as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
        return `${at} is an instance of ${name}: only plain objects and arrays are JSON data`;
      }
      if (Object.getOwnPropertySymbols(obj).length > 0) return `${at} has symbol keys`;
      for (const [key, child] of Object.entries(obj)) {
        if (child === undefined) continue;
        const p = visit(child, /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`, depth + 1);
        if (p !== undefined) return p;
      }
      return undefined;
    } finally {
      ancestors.delete(obj);
    }
  };

  return visit(value, path, 0);
}

/** Whether `value` is a plain object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
