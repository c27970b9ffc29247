/** A query parameter's value: left out when `undefined`. */
export type QueryValue = string | number | boolean | Date | undefined;

/** A time in a query: ms since the epoch, an ISO 8601 date-time, or a `Date`. */
export type Instant = number | string | Date;

/**
 * The query string of `params` (with its `?`; empty when nothing is set):
 * `undefined` values left out, a `Date` as ms since the epoch, each name and
 * value percent-encoded, in the order given.
 *
 * @throws TypeError for a number that is not finite, or an invalid `Date`
 */
export function queryString(params: Readonly<Record<string, QueryValue>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(queryValueText(name, value))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function queryValueText(name: string, value: Exclude<QueryValue, undefined>): string {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new TypeError(`The query parameter ${name} is an invalid Date`);
    return String(ms);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`The query parameter ${name} must be a finite number (got ${value})`);
  return String(value);
}

/** A path with its `{runId}`-style segment filled in, percent-encoded: `/runs/a%2Fb/steps`. */
export function pathWith(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`No value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  });
}
