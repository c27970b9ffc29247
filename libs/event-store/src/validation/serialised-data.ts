import { findJsonProblem, isPlainObject } from './json-check';

/** Payloads this module checked and serialised, each until the first append that meets it. */
const checkedJson = new WeakMap<object, string>();

/**
 * `JSON.stringify(data)`, for a payload about to be appended at once: when
 * `data` is plain JSON data (the checks of `append`), the string is also kept
 * for the next append that carries this very object, which then stores it
 * instead of checking and serialising the payload a second time (a writer
 * that needs the JSON before the append, for a name-based event id, pays for
 * it once).
 *
 * The store takes the kept string once, at the first append that meets the
 * object: it stores the payload as it was at this call. Call it right before
 * `append`, on a payload nothing changes in between. A payload that is not
 * plain JSON data is not kept: the append checks it and refuses it with the
 * error it always gives. The string returned is `JSON.stringify(data)` in
 * every case (and its error, for a cycle or a `bigint`).
 */
export function serialiseEventData(data: object): string {
  if (!isPlainObject(data) || findJsonProblem(data, 'data') !== undefined) return JSON.stringify(data);
  const json = JSON.stringify(data);
  checkedJson.set(data, json);
  return json;
}

/** The JSON {@link serialiseEventData} kept for `data` (checked then), taken: a later append of the object checks it anew. */
export function takeSerialisedData(data: object): string | undefined {
  const json = checkedJson.get(data);
  if (json !== undefined) checkedJson.delete(data);
  return json;
}
