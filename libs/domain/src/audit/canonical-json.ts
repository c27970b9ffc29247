import type { JsonValue } from '../json';

/**
 * A JSON text with object keys sorted at every level and no white space: the
 * same data always gives the same text, whatever order its keys were built in.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, JsonValue | undefined>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, JsonValue>)[key] as JsonValue)}`);
  return `{${entries.join(',')}}`;
}
